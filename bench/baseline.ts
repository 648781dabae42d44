// The baseline: bare node:http answering every request with one precomputed status and body.
// It is what Node.js itself can do on this machine; every scenario's figures are ratios against it.
import { createServer } from 'node:http'

const status = Number(process.env.BASELINE_STATUS ?? 200)
const body = Buffer.from(process.env.BASELINE_BODY ?? '[]')
const headers = { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) }

const server = createServer((req, res) => {
  // Drain the request body (POST scenarios) before answering, as a real server must.
  req.resume()
  req.on('end', () => {
    res.writeHead(status, headers)
    res.end(body)
  })
})
server.keepAliveTimeout = 72_000
server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('listening\n'))
process.on('SIGTERM', () => server.close(() => process.exit(0)))
