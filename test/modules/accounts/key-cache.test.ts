// The key cache's own rules, with a fake monotonic clock: nothing is served while the change channel is not
// listening, entries end after their time to live, a look-up overtaken by an invalidation is not stored, and
// the oldest entry makes room for a new one. (Its use by two servers on PostgreSQL: key-cache.postgres.test.ts.)
import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { KeyOwner } from '../../../src/modules/accounts/accounts.repository.js'
import { createKeyCache } from '../../../src/modules/accounts/key-cache.js'

const owner = (keyId: string): KeyOwner => ({
  keyId,
  accountId: 'acct_1',
  environment: 'test',
  lifetime: { revokedAt: null, expiresAt: null, graceEndsAt: null },
  scopes: ['pets:read'],
  quota: { perMinute: 60, perDay: 1000 },
})

function cacheAt(ttlMs: number, maxEntries?: number) {
  let now = 0
  const counts = { hit: 0, miss: 0 }
  const cache = createKeyCache(
    { ttlMs, maxEntries, now: () => now },
    { hit: () => counts.hit++, miss: () => counts.miss++ },
  )
  return { cache, counts, advance: (ms: number) => void (now += ms) }
}

test('nothing is stored or served until the change channel listens, and a gap in listening empties it', () => {
  const { cache, counts } = cacheAt(1_000)
  cache.set('h1', owner('k1'), cache.generation())
  assert.equal(cache.get('h1'), undefined, 'not listening: not stored')
  cache.setListening(true)
  cache.set('h1', owner('k1'), cache.generation())
  assert.equal(cache.get('h1')?.keyId, 'k1')
  cache.setListening(false)
  assert.equal(cache.get('h1'), undefined, 'not listening: not served')
  cache.setListening(true)
  assert.equal(cache.get('h1'), undefined, 'what was cached before the gap is gone')
  assert.deepEqual(counts, { hit: 1, miss: 3 })
})

test('an entry is served until its time to live ends, not after', () => {
  const { cache, advance } = cacheAt(1_000)
  cache.setListening(true)
  cache.set('h1', owner('k1'), cache.generation())
  advance(999)
  assert.equal(cache.get('h1')?.keyId, 'k1')
  advance(1)
  assert.equal(cache.get('h1'), undefined)
})

test('invalidate empties it, and a look-up that started before an invalidation is not stored', () => {
  const { cache } = cacheAt(60_000)
  cache.setListening(true)
  cache.set('h1', owner('k1'), cache.generation())
  const before = cache.generation()
  cache.invalidate()
  assert.equal(cache.get('h1'), undefined)
  cache.set('h2', owner('k2'), before)
  assert.equal(cache.get('h2'), undefined, 'read before the change, so possibly stale: dropped')
  cache.set('h2', owner('k2'), cache.generation())
  assert.equal(cache.get('h2')?.keyId, 'k2')
})

test('when full, the oldest entry makes room', () => {
  const { cache } = cacheAt(60_000, 2)
  cache.setListening(true)
  for (const n of [1, 2, 3]) cache.set(`h${n}`, owner(`k${n}`), cache.generation())
  assert.equal(cache.get('h1'), undefined)
  assert.equal(cache.get('h2')?.keyId, 'k2')
  assert.equal(cache.get('h3')?.keyId, 'k3')
})
