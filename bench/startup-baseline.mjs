// Start-up's baseline (bench/startup.ts): node itself starting an HTTP server that answers GET /healthz. Plain
// JavaScript, so that no TypeScript loader is timed with it.
import { createServer } from 'node:http'

const server = createServer((_req, res) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}'),
)
server.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1')
process.on('SIGTERM', () => server.close(() => process.exit(0)))
