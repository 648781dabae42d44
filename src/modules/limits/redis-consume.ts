// The rate-limit decisions of every request limited in one turn of the event loop, in one Lua call to Redis.
//
// Why: one command per request cost ioredis a Command, its arguments written one by one and a reply parsed, and
// Redis a script call: with fifty requests in flight ~9 % of the service's CPU samples on the PostgreSQL path
// (BENCHMARKS.md, entry 21). Batched, a turn costs one of each. Redis runs a script atomically, so each decision is
// as exact as before (and the batch as a whole is atomic too). A failed call fails every request of its batch,
// as one failed write of the auto-pipeline did; the fallback store answers them.
//
// Redis Cluster would need a batch per hash slot (a script's keys must share one); see docs/operators/scaling.md.
import type { Redis } from 'ioredis'
import type { Deadline } from './redis-deadline.js'

// One decision (the logic of one request; KEYS from `kb`, ARGV from `ab`):
// KEYS: n counter keys, refusal hash, ban key.
// ARGV: now, n, hasBan, threshold, banMs, end and start of the first window, then limit and end of each window.
// Refusals are a hash field per first-window start, so the count restarts with each window on any clock.
// Counters' expiry is set once, by the request that makes the key (PEXPIRE relative to its `now`, plus a grace
// minute: see redis.store.ts).
// The script: ARGV[1] = number of requests, then each request's ARGV block; KEYS are each request's in turn.
// Returns, per request: admitted, banned until (ms or 0), ban started (0/1), then the count of each window.
const CONSUME_BATCH =
  `
local GRACE_MS = 60000
local function decide(kb, ab)
  local now = tonumber(ARGV[ab])
  local n = tonumber(ARGV[ab + 1])
  local hasBan = ARGV[ab + 2] == '1'
  local refusals, ban = KEYS[kb + n], KEYS[kb + n + 1]
  local out = {0, 0, 0}
  for i = 1, n do out[3 + i] = tonumber(redis.call('GET', KEYS[kb + i - 1]) or '0') end
  if hasBan then
    local untilMs = tonumber(redis.call('GET', ban) or '0')
    if untilMs > now then out[2] = untilMs return out end
  end
  local room = true
  for i = 1, n do
    if out[3 + i] >= tonumber(ARGV[ab + 5 + i * 2]) then room = false end
  end
  if room then
    out[1] = 1
    for i = 1, n do
      out[3 + i] = redis.call('INCR', KEYS[kb + i - 1])
      if out[3 + i] == 1 then redis.call('PEXPIRE', KEYS[kb + i - 1], tonumber(ARGV[ab + 6 + i * 2]) - now + ` +
  `GRACE_MS) end
    end
    return out
  end
  if hasBan then
    local refused = redis.call('HINCRBY', refusals, ARGV[ab + 6], 1)
    redis.call('PEXPIRE', refusals, tonumber(ARGV[ab + 5]) - now + GRACE_MS)
    if refused > tonumber(ARGV[ab + 3]) then
      local untilMs = now + tonumber(ARGV[ab + 4])
      redis.call('SET', ban, untilMs, 'PX', tonumber(ARGV[ab + 4]))
      out[2] = untilMs
      out[3] = 1
    end
  end
  return out
end
local results = {}
local kb, ab = 1, 2
for r = 1, tonumber(ARGV[1]) do
  local n = tonumber(ARGV[ab + 1])
  results[r] = decide(kb, ab)
  kb = kb + n + 2
  ab = ab + 7 + 2 * n
end
return results
`

/** Requests per call at most: a turn with more sends several calls. */
const MAX_BATCH = 200

interface Pending {
  keys: string[]
  args: (string | number)[]
  resolve: (reply: number[]) => void
  reject: (error: unknown) => void
}

/** One request's decision (its keys and arguments as above); resolves with its row of the reply. */
type Consume = (keys: string[], args: (string | number)[]) => Promise<number[]>

/** `within`: bounds each call's wait for Redis (one deadline per call, not per request). */
export function createBatchedConsume(client: Redis, within: Deadline): Consume {
  client.defineCommand('petstoreConsumeBatch', { lua: CONSUME_BATCH })
  const call = (
    client as unknown as { petstoreConsumeBatch: (...args: (string | number)[]) => Promise<unknown[][]> }
  ).petstoreConsumeBatch.bind(client)
  let pending: Pending[] = []

  function send(batch: Pending[]): void {
    const keys: string[] = []
    const argv: (string | number)[] = [batch.length]
    for (const p of batch) {
      keys.push(...p.keys)
      argv.push(...p.args)
    }
    within(call(keys.length, ...keys, ...argv)).then(
      (rows) => batch.forEach((p, i) => p.resolve((rows[i] ?? []).map(Number))),
      (error: unknown) => batch.forEach((p) => p.reject(error)),
    )
  }

  function flush(): void {
    const batch = pending
    pending = []
    for (let i = 0; i < batch.length; i += MAX_BATCH) send(batch.slice(i, i + MAX_BATCH))
  }

  return (keys, args) =>
    new Promise<number[]>((resolve, reject) => {
      if (pending.length === 0) setImmediate(flush)
      pending.push({ keys, args, resolve, reject })
    })
}
