// Child processes of a benchmark run: the service and the baseline, each on its own port, and their peak RSS.
import { spawn, type ChildProcess } from 'node:child_process'
import { closeSync, openSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      )
    })
  })
}

export interface Running {
  child: ChildProcess
  output: () => string
  stop: () => Promise<void>
}

/**
 * Starts a process whose output goes to `logFile`, as a service's log would: read through a pipe, the request
 * log of the service would cost CPU in this process, which is the load generator's.
 */
function start(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
  logFile: string,
  timeoutMs = 60_000,
): Promise<Running> {
  const fd = openSync(logFile, 'w')
  const child = spawn(command, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] })
  closeSync(fd)
  let out = ''
  const keep = () => {
    const text = readFileSync(logFile)
    // The start lines and any error are at the head; the request log after them is not needed.
    out = text.subarray(0, 64_000).toString()
  }
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve()
      child.once('exit', () => resolve())
      child.kill('SIGTERM')
    })
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${args.join(' ')} did not start:\n${out}`)), timeoutMs)
    child.on('exit', (code) => {
      keep()
      reject(new Error(`${args.join(' ')} exited with ${code}:\n${out}`))
    })
    const poll = setInterval(() => {
      keep()
      if (ready.test(out)) {
        clearInterval(poll)
        clearTimeout(timer)
        resolve({ child, output: () => out, stop })
      }
    }, 50)
  })
}

/** The service as an operator runs it: the `petstore` program itself (so with its own V8 heap settings). */
export function startService(env: NodeJS.ProcessEnv, args: string[], logFile: string): Promise<Running> {
  return start(join(root, 'bin/petstore.js'), ['serve', ...args], env, /Database: /, logFile)
}

/** A reference server of the budget (bench/references/<name>.ts), for comparison in the same run. */
export function startReference(name: string, env: NodeJS.ProcessEnv, logFile: string): Promise<Running> {
  return start(process.execPath, ['--import', 'tsx', `bench/references/${name}.ts`], env, /listening/, logFile)
}

export function startBaseline(port: number, status: number, body: string, logFile: string): Promise<Running> {
  return start(
    process.execPath,
    ['--import', 'tsx', 'bench/baseline.ts'],
    { PORT: String(port), BASELINE_STATUS: String(status), BASELINE_BODY: body },
    /listening/,
    logFile,
  )
}

/** Peak resident memory (VmHWM) of a process and its children (cluster workers), in MB. */
export function peakRssMb(pid: number): number {
  const pids = [pid, ...childrenOf(pid)]
  return pids.reduce((sum, p) => sum + vmHwmKb(p), 0) / 1024
}

/**
 * CPU time (user + system, all threads) a process and its children (cluster workers) have used, in seconds.
 * CPU per request is steadier than requests/s on a shared machine: it does not depend on how much of the
 * other core the load generator got.
 */
export function cpuSeconds(pid: number): number {
  return [pid, ...childrenOf(pid)].reduce((sum, p) => {
    try {
      // Fields after the command name: state is 3rd, utime the 14th and stime the 15th field of the whole line.
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return sum + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
    } catch {
      return sum
    }
  }, 0)
}

/**
 * CPU time of the main thread alone (the event loop that serves requests) of a process and of its children, in
 * seconds. What the service's other threads do (the webhook delivery thread, V8's helpers) is not in it: the
 * request path's own cost, where the whole process's includes work that runs beside it on another core.
 */
export function mainThreadCpuSeconds(pid: number): number {
  return [pid, ...childrenOf(pid)].reduce((sum, p) => {
    try {
      const fields = readFileSync(`/proc/${p}/task/${p}/stat`, 'utf8').split(') ')[1]!.split(' ')
      return sum + (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS_PER_SECOND
    } catch {
      return sum
    }
  }, 0)
}

/** USER_HZ: the unit of /proc/<pid>/stat times on Linux. */
const CLOCK_TICKS_PER_SECOND = 100

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
    const ids = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number)
    return ids.flatMap((id) => [id, ...childrenOf(id)])
  } catch {
    return []
  }
}
