// A real webhook receiver on a local port: records every request it gets and answers what the test tells it to.
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

interface Received {
  headers: IncomingHttpHeaders
  body: string
  url: string
}

export async function startReceiver(
  t: { after: (fn: () => Promise<void>) => void },
  answer: (
    request: Received,
    n: number,
  ) => { status: number; headers?: Record<string, string>; body?: string } = () => ({
    status: 204,
  }),
) {
  const received: Received[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const request = { headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), url: req.url ?? '' }
      received.push(request)
      const reply = answer(request, received.length)
      res.writeHead(reply.status, reply.headers).end(reply.body ?? '')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/hooks`, port, received }
}
