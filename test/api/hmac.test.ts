// Our HMAC-SHA256 (built on the one-shot hash for speed) must be HMAC-SHA256: the same bytes as createHmac
// for keys shorter than, equal to and longer than the block, and for empty, ASCII and multi-byte messages.
import assert from 'node:assert/strict'
import { createHmac, randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { hmacSha256 } from '../../src/kernel/hmac.js'

test('hmacSha256 equals createHmac("sha256") for every key length and message', () => {
  const keys = [
    Buffer.alloc(0),
    randomBytes(1),
    randomBytes(32),
    randomBytes(64),
    randomBytes(65),
    randomBytes(200),
    'a text key',
  ]
  const messages = [
    '',
    'acct_1\n42:',
    'é🐶\u0000\n'.repeat(50),
    randomBytes(300).toString('latin1'),
    'x'.repeat(1024),
    'y'.repeat(1025),
    '🐶'.repeat(300),
  ]
  for (const key of keys) {
    const mac = hmacSha256(key)
    for (const message of messages) assert.deepEqual(mac(message), createHmac('sha256', key).update(message).digest())
  }
})

test('RFC 4231 test case 2', () => {
  const mac = hmacSha256('Jefe')
  assert.equal(
    mac('what do ya want for nothing?').toString('hex'),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  )
})
