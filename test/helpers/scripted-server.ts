// A small HTTP server that answers from a script, for the client's own rules (the gate, headers, logging): each
// request gets the next scripted answer (the last one repeats), after `delayMs`. It records each request's headers
// and how many requests were in flight when it arrived.
import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'

interface ScriptedAnswer {
  status: number
  headers?: Record<string, string>
  body?: string
  delayMs?: number
}

/** The quota headers of a window with `remaining` of `limit` left that resets in `seconds`. */
export const quotaHeaders = (remaining: number, seconds = 60, limit = 60): Record<string, string> => ({
  'x-ratelimit-limit': String(limit),
  'x-ratelimit-remaining': String(remaining),
  'x-ratelimit-reset': String(Math.ceil(Date.now() / 1000) + seconds),
  ratelimit: `"minute";r=${remaining};t=${seconds}`,
})

export async function startScriptedServer(
  t: { after: (fn: () => Promise<void>) => void },
  ...script: ScriptedAnswer[]
) {
  const requests: { headers: IncomingHttpHeaders; inFlight: number; at: number }[] = []
  let inFlight = 0
  let next = 0
  const server = createServer((req, res) => {
    inFlight++
    requests.push({ headers: req.headers, inFlight, at: Date.now() })
    const answer = script[Math.min(next++, script.length - 1)]!
    req.resume()
    setTimeout(() => {
      inFlight--
      res
        .writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers })
        .end(
          answer.body ??
            (answer.status < 300
              ? '[]'
              : JSON.stringify({ code: 'scripted', message: 'scripted', status: answer.status })),
        )
    }, answer.delayMs ?? 0)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests }
}
