// The webhooks guide (docs/integrators/webhooks.md) says what the code does: its catalogue is the service's, and its
// `node:crypto` verification, run as written, accepts our signatures (either of two during a rotation) and refuses
// an altered body or a stale timestamp.
import assert from 'node:assert/strict'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { EVENT_TYPES } from '../../../../src/modules/webhooks/event-types.js'
import { newEndpointSecret, signDelivery } from '../../../../src/modules/webhooks/signature.js'
import { repoRoot } from '../../../helpers/root.js'

const guide = readFileSync(new URL('docs/integrators/webhooks.md', repoRoot), 'utf8')

test('the catalogue lists every event type with its description, and nothing else', () => {
  const rows = [...guide.matchAll(/^\| `([a-z_.]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]])
  assert.deepEqual(rows, Object.entries(EVENT_TYPES))
})

test("the guide's node:crypto verification accepts our deliveries and refuses others", () => {
  const block = /```js\nimport \{ createHmac, timingSafeEqual \} from 'node:crypto'\n([\s\S]*?)```/.exec(guide)![1]!
  const verify = new Function('createHmac', 'timingSafeEqual', `${block}\nreturn verify`)(
    createHmac,
    timingSafeEqual,
  ) as (body: string, headers: Record<string, string>, secret: string) => unknown
  const [oldSecret, newSecret] = [newEndpointSecret(), newEndpointSecret()]
  const body =
    '{"id":"evt_1","type":"webhook.test","timestamp":"2030-01-01T00:00:00.000Z","data":{"id":9223372036854775807}}'
  const headers = { ...signDelivery({ eventId: 'evt_1', body, secrets: [newSecret, oldSecret], at: new Date() }) }
  assert.deepEqual(verify(body, headers, newSecret), JSON.parse(body))
  assert.deepEqual(verify(body, headers, oldSecret), JSON.parse(body))
  assert.throws(() => verify(body.replace('test', 'tesT'), headers, newSecret), /bad signature/)
  assert.throws(() => verify(body, headers, newEndpointSecret()), /bad signature/)
  const stale = {
    ...signDelivery({ eventId: 'evt_1', body, secrets: [newSecret], at: new Date(Date.now() - 600_000) }),
  }
  assert.throws(() => verify(body, stale, newSecret), /timestamp/)
})
