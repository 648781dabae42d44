// Where the service's output goes. stdout carries the log and nothing else: JSON lines (pino) a collector can parse,
// or, with LOG_FORMAT=pretty (development only, config.ts refuses it in production), readable lines through
// pino-pretty. The start-up banner (URLs, the local key shown once) is for a person: on stderr, or on stdout when
// stdout is a terminal (someone is watching it, and no collector reads it).
import { pino, type DestinationStream } from 'pino'
import { createRequire } from 'node:module'
import type { Config } from '../kernel/config.js'

interface LogDestination extends DestinationStream {
  /** Writes what is still buffered (at exit). */
  flushSync: () => void
}

/** The stream every logger of the process writes to. */
export function createLogDestination(
  config: Pick<Config, 'logFormat'>,
  fd = 1,
  { sync = false }: { sync?: boolean } = {},
): LogDestination {
  if (config.logFormat === 'pretty') {
    // Loaded only for LOG_FORMAT=pretty: production never needs it.
    const PinoPretty = createRequire(import.meta.url)('pino-pretty') as typeof import('pino-pretty')
    const stream = PinoPretty({
      destination: fd,
      sync: true,
      colorize: fd === 1 ? process.stdout.isTTY === true : false,
    })
    return Object.assign(stream, { flushSync: () => {} })
  }
  // Lines are written asynchronously: while one write is under way the next lines are buffered and go out
  // together, instead of one blocking write(2) per request. What is buffered is flushed on exit.
  // `sync`: for a few lines written before anything else (a flushSync while an asynchronous write is still under
  // way put the first migration's line after the others).
  return pino.destination({ dest: fd, sync })
}

/** Where the human start-up banner is written. */
export function bannerStream(): NodeJS.WritableStream {
  return process.stdout.isTTY ? process.stdout : process.stderr
}
