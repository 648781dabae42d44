// What an `orders:write`-only key learns about pets (issue 32, decided and documented): placing an order tells it
// whether a pet id is one of its own account's (it may order that pet), and nothing more. Another account's pet and
// an id that names no pet are the same 400; the key still cannot read a pet; docs/integrators/api.md's Scopes section
// says so.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { bearer, startHarness } from '../../../helpers/harness.js'
import { expectError, injectSender } from '../../../helpers/http.js'
import { testActor } from '../../../helpers/actors.js'
import { createPet } from '../../../helpers/pets.js'
import { repoRoot } from '../../../helpers/root.js'

test(
  'an orders:write key tells its own pet ids apart only: ' + "another account's pet is answered as a missing one",
  async (t) => {
    const h = await startHarness(t)
    const mine = await h.newAccount()
    const theirs = await h.newAccount()
    const own = await createPet(h, mine.key, { name: 'Rex', categoryId: 1 })
    const foreign = await createPet(h, theirs.key, { name: 'Fido', categoryId: 1 })
    const ordersOnly = await h.services.accounts.createApiKey({
      actor: testActor,
      accountId: mine.accountId,
      environment: 'test',
      scopes: ['orders:write'],
    })
    const send = injectSender(h)
    const order = (petId: number) =>
      send({ method: 'POST', url: '/v1/store/orders', headers: bearer(ordersOnly.key), body: { petId } })
    assert.equal((await order(own.id)).statusCode, 201)
    const missingId = Math.max(own.id, foreign.id) + 1000
    const asForeign = await order(foreign.id)
    const asMissing = await order(missingId)
    expectError(asForeign, 400, 'invalid_body', "'petId'")
    expectError(asMissing, 400, 'invalid_body', "'petId'")
    assert.equal(asForeign.body.replace(String(foreign.id), '{id}'), asMissing.body.replace(String(missingId), '{id}'))
    assert.deepEqual(Object.keys(asForeign.headers).sort(), Object.keys(asMissing.headers).sort())
    expectError(await send({ url: `/v1/pets/${own.id}`, headers: bearer(ordersOnly.key) }), 403, 'insufficient_scope')
  },
)

test("the API guide says an orders:write key can probe its own account's pet ids", () => {
  const readme = readFileSync(new URL('docs/integrators/api.md', repoRoot), 'utf8')
  const scopes = readme.slice(readme.indexOf('### Scopes'), readme.indexOf('## Usage'))
  assert.match(scopes.replace(/\s+/g, ' '), /`orders:write` key can tell which pet ids exist in its own account/)
})
