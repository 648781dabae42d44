// Ports for servers a test starts itself (a child `petstore serve`, a Redis, an app on a port chosen before its
// config). Picked at random below the OS's ephemeral range (32768–60999 here), then checked free by listening on
// it: a port the OS handed out (listen(0), or the local end of any outgoing connection, in any process) can be
// taken again between our check and the child's bind, and test files run side by side (TEST_CONCURRENCY) made
// that happen. Below the range only another test's random pick can collide, one chance in thousands.
import { createServer } from 'node:net'

const FIRST = 10_000
const LAST = 32_000
/** Ports fetch() refuses to connect to ("bad port", the Fetch standard's list): in our range, only 10080. */
const FETCH_BAD_PORTS = new Set([10_080])

function listensFreely(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer()
    server.once('error', () => resolve(false))
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)))
  })
}

/** A port nobody listens on right now, outside the ephemeral range. */
export async function freePort(): Promise<number> {
  for (;;) {
    const port = FIRST + Math.floor(Math.random() * (LAST - FIRST))
    if (!FETCH_BAD_PORTS.has(port) && (await listensFreely(port))) return port
  }
}
