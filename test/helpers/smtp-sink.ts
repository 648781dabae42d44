// A minimal SMTP server for tests: accepts every message and records its envelope (MAIL FROM, each RCPT TO)
// and data, so a test sees exactly whom the service asked the mail server to deliver to.
import { createServer, type AddressInfo, type Socket } from 'node:net'

interface ReceivedMail {
  from: string
  to: string[]
  data: string
}

export async function startSmtpSink(t: {
  after: (fn: () => Promise<void>) => void
}): Promise<{ url: string; received: ReceivedMail[] }> {
  const received: ReceivedMail[] = []
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let buffer = ''
    let current: ReceivedMail = { from: '', to: [], data: '' }
    let inData = false
    socket.write('220 sink ESMTP\r\n')
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8')
      let end: number
      while ((end = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (inData) {
          if (line === '.') {
            inData = false
            received.push(current)
            current = { from: '', to: [], data: '' }
            socket.write('250 queued\r\n')
          } else current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`
          continue
        }
        const verb = line.slice(0, 4).toUpperCase()
        if (verb === 'EHLO' || verb === 'HELO') socket.write('250 sink\r\n')
        else if (verb === 'MAIL') (current.from = /<([^>]*)>/.exec(line)?.[1] ?? ''), socket.write('250 ok\r\n')
        else if (verb === 'RCPT') current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? ''), socket.write('250 ok\r\n')
        else if (verb === 'DATA') (inData = true), socket.write('354 go on\r\n')
        else if (verb === 'QUIT') socket.end('221 bye\r\n')
        else socket.write('250 ok\r\n')
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    for (const s of sockets) s.destroy()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return { url: `smtp://127.0.0.1:${(server.address() as AddressInfo).port}`, received }
}
