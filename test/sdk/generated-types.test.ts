// The client's checked-in types (sdk/src/generated/) are what openapi-typescript makes of the documents the
// service serves right now. When a route or schema changes, this fails and says the one command to run.
import assert from 'node:assert/strict'
import { readFile } from 'node:fs/promises'
import { test } from 'node:test'
import { GENERATED, REGENERATE_COMMAND, renderTypes } from '../../scripts/sdk-types.js'
import { startHarness } from '../helpers/harness.js'
import { startMessagesHarness } from '../helpers/messages-harness.js'

async function assertUpToDate(file: URL, servedUrl: string, servedAt: string) {
  const response = await fetch(servedUrl)
  assert.equal(response.status, 200)
  const fresh = await renderTypes(await response.json(), servedAt)
  const checkedIn = await readFile(file, 'utf8')
  if (fresh === checkedIn) return
  const [a, b] = [checkedIn.split('\n'), fresh.split('\n')]
  const line = a.findIndex((text, i) => text !== b[i])
  const at = line === -1 ? a.length : line
  assert.fail(
    `${file.pathname} is out of date with ${servedAt}: run \`${REGENERATE_COMMAND}\` and commit the result.\n` +
      `First difference at line ${at + 1}:\n  checked in: ${a[at] ?? '(end of file)'}\n` +
      `  served:     ${b[at] ?? '(end of file)'}`,
  )
}

test('sdk/src/generated/petstore.ts matches the served GET /v1/openapi.json', async (t) => {
  const h = await startHarness(t, { listen: true })
  await assertUpToDate(GENERATED.petstore, `${h.baseUrl}/v1/openapi.json`, 'GET /v1/openapi.json')
})

test("sdk/src/generated/messages.ts matches the messages interface's served GET /openapi.json", async (t) => {
  const h = await startMessagesHarness(t, { listen: true })
  await assertUpToDate(GENERATED.messages, `${h.baseUrl}/openapi.json`, 'GET /openapi.json (messages interface)')
})
