// Before `serve` touches the database: each address the instance will listen on is bound once and let go, so a HOST
// that is no address of this machine, or a PORT another process holds, stops the start with one line naming the
// setting, before any migration runs (listening comes after them, and its own error named neither).
import { createServer } from 'node:net'
import type { Config } from '../kernel/config.js'
import type { Interface } from './server.js'

/** A listener setting that cannot be used: the message names the variable and its value. */
class ListenerError extends Error {}

interface Listener {
  variable: 'PORT' | 'MESSAGES_PORT' | 'CONSOLE_PORT'
  port: number
  /** The host setting it binds to: HOST, or CONSOLE_HOST for the console's own listener. */
  hostVariable: 'HOST' | 'CONSOLE_HOST'
  host: string
}

function why(code: string | undefined, { variable, port, host, hostVariable }: Listener): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `${hostVariable}=${host}: not an address or a host name this machine can listen on`
    case 'EADDRNOTAVAIL':
      return `${hostVariable}=${host}: not an address of this machine`
    case 'EADDRINUSE':
      return `${variable}=${port}: the port is in use on ${host} (another process listens there)`
    case 'EACCES':
      return `${variable}=${port}: this user may not listen on port ${port} of ${host}`
    default:
      return `cannot listen on ${host}:${port} (${hostVariable}, ${variable})`
  }
}

function tryListening(listener: Listener): Promise<void> {
  const { host } = listener
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', (error: NodeJS.ErrnoException) =>
      reject(new ListenerError(`${why(error.code, listener)} (${error.code ?? error.message})`)),
    )
    server.listen({ host, port: listener.port, exclusive: true }, () => server.close(() => resolve()))
  })
}

export async function checkListeners(config: Config, only?: Interface): Promise<void> {
  const listeners: Listener[] = []
  const on = { hostVariable: 'HOST', host: config.host } as const
  if (only !== 'messages') listeners.push({ variable: 'PORT', port: config.port, ...on })
  if (only !== 'pets') listeners.push({ variable: 'MESSAGES_PORT', port: config.messagesPort, ...on })
  if (only !== 'messages' && config.console && config.consolePort !== undefined)
    listeners.push({
      variable: 'CONSOLE_PORT',
      port: config.consolePort,
      hostVariable: 'CONSOLE_HOST',
      host: config.consoleHost,
    })
  for (const listener of listeners) await tryListening(listener)
}
