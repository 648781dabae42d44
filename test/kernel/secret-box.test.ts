// Sealed secrets open only under a configured key, for the row they were sealed for, unaltered; a second key
// configured after the first still opens what the first sealed (rotation).
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { createSecretBox, parseSecretsKeys, SecretBoxError } from '../../src/kernel/secret-box.js'

const key = () => randomBytes(32)

test('a sealed secret opens for its context and nowhere else', () => {
  const box = createSecretBox([key()])
  const sealed = box.seal('whsec_abc', 'ep_1')
  assert.doesNotMatch(sealed, /whsec_abc/)
  assert.notEqual(box.seal('whsec_abc', 'ep_1'), sealed, 'a fresh IV each time')
  assert.equal(box.open(sealed, 'ep_1'), 'whsec_abc')
  assert.throws(() => box.open(sealed, 'ep_2'), SecretBoxError, 'moved to another row')
  const parts = sealed.split('.')
  const flipped = Buffer.from(parts[3]!, 'base64url')
  flipped[0]! ^= 1
  parts[3] = flipped.toString('base64url')
  assert.throws(() => box.open(parts.join('.'), 'ep_1'), SecretBoxError, 'altered')
  assert.throws(() => createSecretBox([key()]).open(sealed, 'ep_1'), SecretBoxError, 'another key')
})

test('keys rotate: the first seals, every one opens', () => {
  const [oldKey, newKey] = [key(), key()]
  const sealed = createSecretBox([oldKey]).seal('s', 'c')
  const rotated = createSecretBox([newKey, oldKey])
  assert.equal(rotated.open(sealed, 'c'), 's')
  assert.throws(() => createSecretBox([oldKey]).open(rotated.seal('t', 'c'), 'c'), SecretBoxError)
})

test('the setting takes base64 or hex of 32 bytes, comma-separated', () => {
  const k = key()
  assert.deepEqual(parseSecretsKeys(k.toString('base64')), [k])
  assert.deepEqual(parseSecretsKeys(`${k.toString('hex')}, ${k.toString('base64')}`), [k, k])
  for (const bad of ['', 'short', randomBytes(16).toString('base64'), randomBytes(33).toString('hex')])
    assert.throws(() => parseSecretsKeys(bad), /32 random bytes/)
})
