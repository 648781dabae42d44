// GET /v1/events pages newest first with the pets' signed cursors, its `type` filter kept in the Link and bound to
// the cursor (a cursor of one type is refused for another). On the pass's backend.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { bearer, errorOf, startHarness } from '../../../helpers/harness.js'
import { roomyAccount } from '../../../helpers/pets.js'
import { addEndpoint } from '../../../helpers/webhooks.js'

test('events page newest first by type, following Link; a cursor is bound to its type', async (t) => {
  const h = await startHarness(t)
  const { key } = await roomyAccount(h)
  await addEndpoint(h, key)
  const headers = { ...bearer(key), 'content-type': 'application/json' }
  const names = ['a', 'b', 'c']
  for (const name of names)
    await h.app.inject({ method: 'POST', url: '/v1/pets', headers, payload: { name, categoryId: 1 } })
  const seen: string[] = []
  let url: string | undefined = '/v1/events?type=pet.created&limit=1'
  let cursor = ''
  while (url) {
    const page: Awaited<ReturnType<typeof h.app.inject>> = await h.app.inject({ url, headers: bearer(key) })
    assert.equal(page.statusCode, 200, page.body)
    seen.push(...page.json<{ data: { name: string } }[]>().map((e) => e.data.name))
    const next = /<([^>]+)>; rel="next"/.exec(String(page.headers.link ?? ''))?.[1]
    if (next) {
      assert.match(next, /[?&]type=pet\.created&/)
      cursor = new URL(next).searchParams.get('cursor')!
    }
    url = next?.replace(h.config.publicUrl, '')
  }
  assert.deepEqual(seen, ['c', 'b', 'a'])
  const other = await h.app.inject({ url: `/v1/events?type=order.created&cursor=${cursor}`, headers: bearer(key) })
  assert.deepEqual([other.statusCode, errorOf(other).code], [400, 'invalid_cursor'])
  // The message names the events' filter, `type`, and the type the cursor was issued for.
  assert.match(errorOf(other).message, /issued for type=pet\.created; keep the same type filter/)
})
