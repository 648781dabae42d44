// An HTTP proxy in front of a real listening service, for client tests: each of the next requests can be given
// a fault — answered by the proxy itself (a 503, a 429 with Retry-After …), forwarded and then cut after the
// service has answered in full (the answer is lost, the service's work is done), or never answered. Requests
// without a fault are forwarded as they are. Every request is recorded.
import { createServer, request as forward, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

type Fault =
  | { answer: number; headers?: Record<string, string>; body?: string }
  | { drop: 'after-answer' }
  | { hang: true }

interface ProxiedRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  body: string
}

interface FaultProxy {
  /** The proxy's origin, e.g. `http://127.0.0.1:41234`. */
  origin: string
  /** Faults for the next requests, one each, in order; later requests are forwarded. */
  next: (...faults: Fault[]) => void
  /** Every request the proxy received, faulted or not. */
  requests: ProxiedRequest[]
}

/** A fault answering `status` with the API's error body and `headers` (e.g. `{ 'retry-after': '1' }`). */
export const errorAnswer = (status: number, code: string, headers: Record<string, string> = {}): Fault => ({
  answer: status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify({ code, message: `${code} (from the fault proxy)`, status }),
})

export async function startFaultProxy(
  t: { after: (fn: () => Promise<void>) => void },
  target: string,
): Promise<FaultProxy> {
  const targetUrl = new URL(target)
  const faults: Fault[] = []
  const requests: ProxiedRequest[] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', () => {
      const body = Buffer.concat(chunks)
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: body.toString('utf8') })
      const fault = faults.shift()
      if (fault && 'answer' in fault) return void res.writeHead(fault.answer, fault.headers ?? {}).end(fault.body ?? '')
      if (fault && 'hang' in fault) return
      relay(req.method ?? 'GET', req.url ?? '/', req.headers, body, res, fault !== undefined)
    })
  })

  function relay(
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
    res: ServerResponse,
    dropAfterAnswer: boolean,
  ) {
    const upstream = forward({ host: targetUrl.hostname, port: targetUrl.port, method, path, headers }, (answer) => {
      const chunks: Buffer[] = []
      answer.on('data', (chunk: Buffer) => chunks.push(chunk))
      answer.on('end', () => {
        // The service has answered in full (and committed); the client never hears of it.
        if (dropAfterAnswer) return void res.socket?.destroy()
        res.writeHead(answer.statusCode ?? 502, answer.headers).end(Buffer.concat(chunks))
      })
    })
    upstream.on('error', () => res.socket?.destroy())
    upstream.end(body)
  }

  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    next: (...more) => void faults.push(...more),
    requests,
  }
}
