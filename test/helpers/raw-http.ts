// Requests written byte for byte on a net.Socket (what fetch and inject cannot send: malformed HTTP, a header
// twice), and the response read back until the server closes the connection.
import { connect } from 'node:net'

/** Sends `bytes` to the listener at `baseUrl`; resolves with everything received once the server closes. */
export function sendRaw(baseUrl: string, bytes: string): Promise<string> {
  const { hostname, port } = new URL(baseUrl)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let received = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk) => (received += chunk))
    socket.on('end', () => resolve(received))
    socket.on('error', reject)
    socket.write(bytes)
  })
}

/** The status, headers (lower-case names; a repeated one keeps its last value) and body of one raw response. */
export function parseResponse(raw: string) {
  const [head = '', body = ''] = raw.split('\r\n\r\n')
  const [statusLine = '', ...headerLines] = head.split('\r\n')
  const headers = Object.fromEntries(
    headerLines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  )
  return { status: Number(statusLine.split(' ')[1]), headers, body }
}
