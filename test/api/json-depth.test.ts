// A body nested deeper than MAX_JSON_DEPTH is refused as invalid JSON, with the usual 400 invalid_json and a
// message that says so: never the parser's "Maximum call stack size exceeded", however deep. Brackets inside
// strings are text, not nesting.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { MAX_JSON_DEPTH } from '../../src/api/platform/json-body.js'
import { bearer, startHarness } from '../helpers/harness.js'
import { expectError, injectSender } from '../helpers/http.js'
import { repoRoot } from '../helpers/root.js'

const arrays = (depth: number) => '['.repeat(depth) + ']'.repeat(depth)
const objects = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1)
const TOO_DEEP = `The request body is not valid JSON: it is nested deeper than ${MAX_JSON_DEPTH} levels.`

test(
  `JSON nested deeper than ${MAX_JSON_DEPTH} levels is a 400 ` +
    `invalid_json saying so, as deep as the body limit allows`,
  async (t) => {
    const h = await startHarness(t)
    const { key } = await h.newAccount()
    const send = injectSender(h)
    const post = (body: string, url = '/v1/pets') =>
      send({ method: 'POST', url, headers: { ...bearer(key), 'content-type': 'application/json' }, body })
    for (const body of [
      arrays(MAX_JSON_DEPTH + 1),
      objects(MAX_JSON_DEPTH + 1),
      arrays(8_000),
      objects(2_000),
      `{"name":"Rex","categoryId":1,"x":${arrays(100)}}`,
    ]) {
      for (const url of ['/v1/pets', '/v1/store/orders']) {
        const error = expectError(await post(body, url), 400, 'invalid_json')
        assert.equal(error.message, TOO_DEEP, `${url} ${body.slice(0, 40)}…`)
      }
    }
    // At the limit the body is read (and then refused for what it is: not a pet).
    expectError(await post(arrays(MAX_JSON_DEPTH)), 400, 'invalid_body')
    expectError(await post(objects(MAX_JSON_DEPTH)), 400, 'invalid_body')
    // Brackets in a string are not nesting.
    assert.equal((await post(JSON.stringify({ name: `${'['.repeat(70)}"{`, categoryId: 1 }))).statusCode, 201)
    // Malformed JSON keeps its message.
    assert.match(
      expectError(await post('{"name":'), 400, 'invalid_json').message,
      /^The request body is not valid JSON: /,
    )
  },
)

test('the API guide states the depth limit with invalid_json', () => {
  const readme = readFileSync(new URL('docs/integrators/api.md', repoRoot), 'utf8')
  const row = readme.split('\n').find((line) => line.startsWith('| `invalid_json` |'))
  assert.match(row ?? '', new RegExp(`nested deeper than ${MAX_JSON_DEPTH} levels`))
})
