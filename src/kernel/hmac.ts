// HMAC-SHA256 (RFC 2104) from Node's one-shot `crypto.hash`. `createHmac` looks the digest up in OpenSSL 3
// on every call, which costs more than the hashing itself; the Link of every list page is signed, so the key
// pads are prepared once and each signature is two one-shot hashes. test/api/hmac.test.ts checks it against
// createHmac.
import { hash } from 'node:crypto'

const BLOCK_BYTES = 64

const DIGEST_BYTES = 32
/** Messages up to this many bytes are hashed from a buffer made once (cursors are ~60 bytes). */
const SCRATCH_BYTES = 1024

export function hmacSha256(key: string | Buffer): (message: string) => Buffer {
  let k = Buffer.from(key)
  if (k.length > BLOCK_BYTES) k = hash('sha256', k, 'buffer')
  // inner = (K ⊕ ipad) ‖ message, outer = (K ⊕ opad) ‖ H(inner); the pads are written once.
  const inner = Buffer.alloc(BLOCK_BYTES + SCRATCH_BYTES, 0x36)
  const outer = Buffer.alloc(BLOCK_BYTES + DIGEST_BYTES, 0x5c)
  for (let i = 0; i < k.length; i++) {
    inner[i]! ^= k[i]!
    outer[i]! ^= k[i]!
  }
  const innerPad = inner.subarray(0, BLOCK_BYTES)
  return (message) => {
    const length = Buffer.byteLength(message)
    // Synchronous from here to the digest: no other call can use the buffers in between.
    const innerHash =
      length <= SCRATCH_BYTES
        ? hash('sha256', inner.subarray(0, BLOCK_BYTES + inner.write(message, BLOCK_BYTES)), 'buffer')
        : hash('sha256', Buffer.concat([innerPad, Buffer.from(message)]), 'buffer')
    innerHash.copy(outer, BLOCK_BYTES)
    return hash('sha256', outer, 'buffer')
  }
}
