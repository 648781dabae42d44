// A private redis-server child process on a free port, for tests that take Redis down and bring it back.
// Nothing persists (`--save "" --appendonly no`): a restart starts empty, like a Redis that lost its data.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { connect } from 'node:net'
import { pollUntil } from './within.js'
import { freePort } from './ports.js'

export { freePort }

export interface RedisServer {
  port: number
  url: string
  /** Starts redis-server on the port and resolves once it answers PING. */
  start: () => Promise<void>
  /** Kills it (SIGKILL: a crash, not a shutdown) and resolves once it has exited. */
  stop: () => Promise<void>
  /** SIGSTOP: it keeps every connection open and stops answering (a hung Redis). `resume` sends SIGCONT. */
  pause: () => void
  resume: () => void
}

/** True when something on 127.0.0.1:port answers a Redis PING with PONG. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1')
    let reply = ''
    const done = (ok: boolean) => {
      socket.destroy()
      resolve(ok)
    }
    socket.setTimeout(1_000, () => done(false))
    socket.on('error', () => done(false))
    socket.on('connect', () => socket.write('PING\r\n'))
    socket.on('data', (chunk) => {
      reply += chunk.toString()
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'))
    })
  })
}

/** A redis-server handle on a free port, not started yet; killed after the test if it still runs. */
export async function redisServer(t: { after: (fn: () => Promise<void>) => void }): Promise<RedisServer> {
  const port = await freePort()
  let child: ChildProcess | undefined
  const stop = async () => {
    const running = child
    child = undefined
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = once(running, 'exit')
    running.kill('SIGKILL')
    await exited
  }
  t.after(stop)
  const signal = (name: NodeJS.Signals) => {
    if (!child) throw new Error('redis-server is not running')
    child.kill(name)
  }
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    pause: () => signal('SIGSTOP'),
    resume: () => signal('SIGCONT'),
    async start() {
      if (child) throw new Error('redis-server is already running')
      const started = spawn(
        'redis-server',
        ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'],
        { stdio: ['ignore', 'ignore', 'pipe'] },
      )
      child = started
      let stderr = ''
      started.stderr!.on('data', (chunk) => (stderr += chunk))
      let failure: Error | undefined
      started.on(
        'error',
        (error) => (failure = new Error(`cannot run redis-server (is it installed?): ${error.message}`)),
      )
      started.on('exit', (code) => (failure ??= new Error(`redis-server exited (${code}) before answering: ${stderr}`)))
      await pollUntil(`redis-server on port ${port}`, async () => {
        if (failure) throw failure
        return (await answersPing(port)) || undefined
      })
    },
  }
}
