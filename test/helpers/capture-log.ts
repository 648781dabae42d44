// What the service tells an operator: its log lines (pino, parsed), and anything printed to the console besides.
import { pino } from 'pino'

type LogLine = { level: number; msg: string }

/** A pino logger writing parsed lines to an array (the log an operator would read). */
export function captureLog() {
  const lines: LogLine[] = []
  const log = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as LogLine) })
  const count = (pattern: RegExp) => lines.filter((l) => pattern.test(l.msg)).length
  return { log, lines, count }
}

export const OUTAGE = /unreachable|not reachable/
export const RECOVERY = /reachable again/

/**
 * Collects what is written to the console (ioredis prints connection errors there when nobody listens), so a
 * test can show the outage is reported once, in the log, and not once a second on stderr.
 */
export function captureConsoleErrors(t: { after: (fn: () => void) => void }): string[] {
  const printed: string[] = []
  const original = console.error
  console.error = (...args: unknown[]) => void printed.push(args.map(String).join(' '))
  t.after(() => {
    console.error = original
  })
  return printed
}
