// A TCP proxy between the app and a real server (PostgreSQL here), so a test can take the server "off the
// network" and bring it back on the same address: `stop()` closes the listener and cuts every connection,
// `start()` listens on the same port again. `blackhole` accepts connections and never answers (a server
// that hangs); `cutWhen(pattern)` drops the connection instead of forwarding bytes that match (a connection
// lost at that very statement). `stall(true)` makes the relay stop forwarding in both directions without closing
// anything (a silent partition: packets dropped, no reset), `stall(false)` forwards again.
import { once } from 'node:events'
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'

export interface TcpProxy {
  port: number
  start: (mode?: 'forward' | 'blackhole') => Promise<void>
  stop: () => Promise<void>
  cutWhen: (pattern: RegExp | undefined) => void
  stall: (on: boolean) => void
  /** Connections cut by `cutWhen` so far. */
  cuts: () => number
}

export async function tcpProxy(
  t: { after: (fn: () => Promise<void>) => void },
  target: { host: string; port: number },
): Promise<TcpProxy> {
  let server: Server | undefined
  let port = 0
  let cutPattern: RegExp | undefined
  let cuts = 0
  let stalled = false
  const sockets = new Set<Socket>()
  const track = (socket: Socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => socket.destroy())
  }

  const proxy: TcpProxy = {
    get port() {
      return port
    },
    async start(mode = 'forward') {
      if (server) throw new Error('the proxy is already listening')
      server = createServer((client) => {
        track(client)
        if (mode === 'blackhole') return
        client.pause()
        const upstream = connect(target.port, target.host)
        track(upstream)
        upstream.on('connect', () => client.resume())
        upstream.on('data', (chunk) => {
          if (!stalled) client.write(chunk)
        })
        client.on('data', (chunk) => {
          if (stalled) return
          if (cutPattern?.test(chunk.toString('latin1'))) {
            cuts++
            client.destroy()
            upstream.destroy()
            return
          }
          upstream.write(chunk)
        })
        client.on('close', () => upstream.destroy())
        upstream.on('close', () => client.destroy())
      })
      server.listen(port, '127.0.0.1')
      await once(server, 'listening')
      port = (server.address() as AddressInfo).port
    },
    async stop() {
      const running = server
      server = undefined
      if (!running) return
      const closed = once(running, 'close')
      running.close()
      for (const socket of sockets) socket.destroy()
      await closed
    },
    cutWhen(pattern) {
      cutPattern = pattern
    },
    cuts: () => cuts,
    stall(on) {
      stalled = on
    },
  }
  t.after(() => proxy.stop())
  return proxy
}
