// For CLI tests that start the real service: wait until it answers.
import assert from 'node:assert/strict'

/** Resolves once the service on `port` answers /readyz with 200; fails if it exits first. */
export async function untilReady(port: number, exited: Promise<unknown>): Promise<void> {
  let gone = false
  void exited.then(() => (gone = true))
  for (;;) {
    const status = await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(2_000) }).then(
      (r) => r.status,
      () => 0,
    )
    if (status === 200) return
    assert.ok(!gone, 'the service exited before it was ready')
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
