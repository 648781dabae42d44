// Runs `node bin/petstore.js serve` as a child process and watches what it prints.
import { spawn } from 'node:child_process'
import { BIN, childEnv } from './cli.js'
import { freePort } from './ports.js'

export { freePort }

export interface Exit {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface ServeProcess {
  stdout: () => string
  stderr: () => string
  /**
   * Resolves with the first match of `pattern` on stdout (the log), else on stderr (the start-up banner); rejects if
   * the process exits first or time runs out.
   */
  waitFor: (pattern: RegExp, timeoutMs?: number) => Promise<RegExpMatchArray>
  /** Sends SIGTERM and resolves when the process has exited (rejects if it has not after 20 s). */
  stop: () => Promise<Exit>
  exited: Promise<Exit>
  /** The process id (of the primary, with `--workers`). */
  pid: number
}

/**
 * Starts the server (`serve` plus `args`, e.g. `['--workers', '2']` or `['--only', 'pets']`); it is killed after
 * the test if it is still running then. `asProgram`: run bin/petstore.js itself, as `npx petstore` does (its
 * first line then gives Node.js its options), instead of `node bin/petstore.js`. With `--create` (tests mostly start
 * on a database file nobody has made yet) unless `create: false`.
 */
export function spawnServe(
  t: { after: (fn: () => Promise<void>) => void },
  env: Record<string, string>,
  args: string[] = [],
  options: { asProgram?: boolean; create?: boolean } = {},
): ServeProcess {
  const serve = ['serve', ...args, ...(options.create === false ? [] : ['--create'])]
  const [command, argv] = options.asProgram ? [BIN, serve] : [process.execPath, [BIN, ...serve]]
  const child = spawn(command, argv, { env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  const listeners = new Set<() => void>()
  const notify = () => listeners.forEach((fn) => fn())
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => ((out += chunk), notify()))
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => ((err += chunk), notify()))
  let running = true
  const exited = new Promise<Exit>((resolve) =>
    child.once('close', (code, signal) => {
      running = false
      notify()
      resolve({ code, signal })
    }),
  )
  t.after(async () => {
    if (running) {
      child.kill('SIGKILL')
      await exited
    }
  })

  return {
    pid: child.pid!,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor(pattern, timeoutMs = 20_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => done(new Error(`timed out waiting for ${pattern}`)), timeoutMs)
        const check = () => {
          const match = pattern.exec(out) ?? pattern.exec(err)
          if (match) done(undefined, match)
          else if (!running) done(new Error(`the server exited before printing ${pattern}`))
        }
        const done = (error?: Error, match?: RegExpMatchArray) => {
          clearTimeout(timer)
          listeners.delete(check)
          if (error) reject(new Error(`${error.message}\nstdout: ${out}\nstderr: ${err}`))
          else resolve(match!)
        }
        listeners.add(check)
        check()
      })
    },
    async stop() {
      if (running) child.kill('SIGTERM')
      let timer: NodeJS.Timeout | undefined
      const late = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error('the server did not exit within 20 s of SIGTERM')), 20_000)
      })
      return Promise.race([exited, late]).finally(() => clearTimeout(timer))
    },
  }
}
