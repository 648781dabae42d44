// Child processes of a benchmark run: the service and the baseline, each on its own port, and their peak RSS.
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => (typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port'))))
    })
  })
}

export interface Running {
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

function start(command: string, args: string[], env: NodeJS.ProcessEnv, ready: RegExp, timeoutMs = 60_000): Promise<Running> {
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  // Keep only what is needed to see the start line and errors; a service's request log is dropped.
  const keep = (chunk: Buffer) => {
    if (out.length < 64_000) out += chunk.toString()
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${out}`)), timeoutMs)
    child.on('exit', (code) => reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`)))
    const poll = setInterval(() => {
      if (ready.test(out)) {
        clearInterval(poll)
        clearTimeout(timer)
        resolve({ child, output: () => out, stop })
      }
    }, 50)
  })
}

export function startService(env: NodeJS.ProcessEnv, args: string[] = []): Promise<Running> {
  return start(process.execPath, ['bin/petstore.js', 'serve', ...args], env, /Database: /)
}

export function startBaseline(port: number, status: number, body: string): Promise<Running> {
  return start(process.execPath, ['--import', 'tsx', 'bench/baseline.ts'], { PORT: String(port), BASELINE_STATUS: String(status), BASELINE_BODY: body }, /listening/)
}

/** Peak resident memory (VmHWM) of a process and its children (cluster workers), in MB. */
export function peakRssMb(pid: number): number {
  const pids = [pid, ...childrenOf(pid)]
  return pids.reduce((sum, p) => sum + vmHwmKb(p), 0) / 1024
}

function vmHwmKb(pid: number): number {
  try {
    const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : 0
  } catch {
    return 0
  }
}

function childrenOf(pid: number): number[] {
  try {
    const ids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number)
    return ids.flatMap((id) => [id, ...childrenOf(id)])
  } catch {
    return []
  }
}
