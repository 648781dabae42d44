// The client's log: a `logger` with debug/info/warn/error functions (default: the console) and a `logLevel`
// (default: the PETSTORE_LOG environment variable where there is one, else 'warn'). One line per attempt (debug
// for answers, warn for failures that are retried: network errors, 429, 5xx), one per wait (info). Lines name the
// method, URL, status, request id and quota; never the API key or a body.
import { fromEnvironment } from './platform.js'

export interface Logger {
  debug(message: string): void
  info(message: string): void
  warn(message: string): void
  error(message: string): void
}

export type LogLevel = 'off' | 'error' | 'warn' | 'info' | 'debug'
const RANK: Record<LogLevel, number> = { off: 0, error: 1, warn: 2, info: 3, debug: 4 }
const LOG_LEVELS = Object.keys(RANK) as LogLevel[]

export type Log = Record<Exclude<LogLevel, 'off'>, (message: string) => void>

function levelOf(value: string, from: string): LogLevel {
  if (!(value in RANK))
    throw new RangeError(`${from} must be one of ${LOG_LEVELS.join(', ')}; got ${JSON.stringify(value)}`)
  return value as LogLevel
}

/** The log a client writes to: lines below the level are dropped before they are built into the logger's call. */
export function createLog(options: { logger?: Logger | undefined; logLevel?: LogLevel | undefined }): Log {
  const fromEnv = fromEnvironment('PETSTORE_LOG')
  const level =
    options.logLevel !== undefined
      ? levelOf(options.logLevel, 'logLevel')
      : fromEnv !== undefined
        ? levelOf(fromEnv, 'PETSTORE_LOG')
        : 'warn'
  const logger: Logger = options.logger ?? console
  const at = (name: Exclude<LogLevel, 'off'>) => (message: string) => {
    if (RANK[name] <= RANK[level]) logger[name](`petstore: ${message}`)
  }
  return { error: at('error'), warn: at('warn'), info: at('info'), debug: at('debug') }
}
