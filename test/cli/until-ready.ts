// For CLI tests that start the real service: wait until it answers.
import assert from 'node:assert/strict'
import { pollUntil } from '../helpers/within.js'

/** Resolves once the service on `port` answers /readyz with 200; fails if it exits first, or is not ready in `ms`. */
export async function untilReady(port: number, exited: Promise<unknown>, ms = 60_000): Promise<void> {
  let gone = false
  void exited.then(() => (gone = true))
  await pollUntil(
    `the service on port ${port} ready (/readyz answering 200)`,
    async () => {
      const status = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
        (r) => r.status,
        () => 0,
      )
      if (status === 200) return true
      assert.ok(!gone, 'the service exited before it was ready')
      return undefined
    },
    ms,
  )
}
