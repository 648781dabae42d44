// Connections kept alive between webhook attempts, in undici pools: one pool per receiver origin and set of checked
// addresses. A pool connects only to the addresses it was made for (its lookup answers them and asks no DNS), so a
// connection it lends was made to an address this attempt checked; a host that now resolves elsewhere gets another
// pool, and reuse never skips the check. undici rather than node:http: node:http's request machinery (agent,
// ClientRequest, listeners) was a third of each delivery's CPU (BENCHMARKS.md 28). A Pool follows no redirect and
// reads no proxy settings of the environment.
import type { LookupFunction } from 'node:net'
import { Pool } from 'undici'

export interface ResolvedAddress {
  address: string
  family: number
}

/** Pools kept; the longest unused one is closed first. */
const MAX_POOLS = 256
/**
 * Connections to one receiver at a time: a batch's attempts beyond these wait for one (the batch is 100, and an
 * attempt's deadline counts from before that wait, so a receiver answering in 2 s still gets the whole batch).
 */
const CONNECTIONS = 16

export function createDeliveryPools({ timeoutMs }: { timeoutMs: number }) {
  const pools = new Map<string, Pool>()
  return {
    /** The pool for `origin` (protocol, host and port of the URL) connecting to `addresses`, all of them checked. */
    poolFor(origin: string, addresses: readonly ResolvedAddress[]): Pool {
      const key = `${origin} ${addresses.map((a) => a.address).join(',')}`
      let pool = pools.get(key)
      // Used again: to the end of the map's order, so the first one is the longest unused.
      if (pool !== undefined) pools.delete(key)
      if (pool === undefined) {
        if (pools.size >= MAX_POOLS) {
          const [oldest, old] = pools.entries().next().value as [string, Pool]
          void old.destroy().catch(() => undefined)
          pools.delete(oldest)
        }
        pool = new Pool(origin, {
          connections: CONNECTIONS,
          connect: { lookup: pinnedLookup(addresses), timeout: timeoutMs },
          // The attempt's own deadline (webhook-http.ts) aborts first; these only keep a pool from waiting forever.
          headersTimeout: timeoutMs + 5_000,
          bodyTimeout: timeoutMs + 5_000,
        })
      }
      pools.set(key, pool)
      return pool
    },
  }
}

// The connection's lookup: the addresses already checked, never a second DNS query (whose answer could differ).
// With autoSelectFamily (on by default since Node 20) net asks for all of them ({ all: true }) and tries each.
function pinnedLookup(addresses: readonly ResolvedAddress[]): LookupFunction {
  return (_hostname, options, callback) => {
    const family = options.family === 4 || options.family === 6 ? options.family : 0
    const usable = family === 0 ? [...addresses] : addresses.filter((a) => a.family === family)
    const first = usable[0]
    if (!first) {
      const err: NodeJS.ErrnoException = Object.assign(new Error('no address of the family asked for'), {
        code: 'ENOTFOUND',
      })
      callback(err, '', 0)
    } else if (options.all) callback(null, usable)
    else callback(null, first.address, first.family)
  }
}
