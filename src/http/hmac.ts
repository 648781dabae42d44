// HMAC-SHA256 (RFC 2104) from Node's one-shot `crypto.hash`. `createHmac` looks the digest up in OpenSSL 3
// on every call, which costs more than the hashing itself; the Link of every list page is signed, so the key
// pads are prepared once and each signature is two one-shot hashes. test/http/hmac.test.ts checks it against
// createHmac.
import { hash } from 'node:crypto'

const BLOCK_BYTES = 64

export function hmacSha256(key: string | Buffer): (message: string) => Buffer {
  let k = Buffer.from(key)
  if (k.length > BLOCK_BYTES) k = hash('sha256', k, 'buffer')
  const inner = Buffer.alloc(BLOCK_BYTES, 0x36)
  const outer = Buffer.alloc(BLOCK_BYTES, 0x5c)
  for (let i = 0; i < k.length; i++) {
    inner[i]! ^= k[i]!
    outer[i]! ^= k[i]!
  }
  return (message) => hash('sha256', Buffer.concat([outer, hash('sha256', Buffer.concat([inner, Buffer.from(message)]), 'buffer')]), 'buffer')
}
