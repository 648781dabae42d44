// Every ```js example of sdk/README.md runs, as written, against the real service: each in its own Node.js
// process, with `@petstore/sdk` pointed at the package's sources and PETSTORE_API_KEY, PETSTORE_BASE_URL and
// PETSTORE_MESSAGES_URL set, as a reader would run it. What each prints is checked. And every one compiles as
// TypeScript with `strict` and `exactOptionalPropertyTypes` (issue 27: optional properties accept undefined).
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { startMessagesHarness } from '../helpers/messages-harness.js'
import { repoRoot } from '../helpers/root.js'

const root = repoRoot
const readme = readFileSync(new URL('sdk/README.md', root), 'utf8')
const examples = [...readme.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
const sources = new URL('sdk/src/index.ts', root).pathname

async function run(example: string, env: Record<string, string>): Promise<string[]> {
  const code = example.replaceAll("from '@petstore/sdk'", `from '${sources}'`)
  assert.notEqual(code, example, 'the example imports @petstore/sdk')
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', '--input-type=module', '-e', code],
    {
      cwd: root,
      env: { ...process.env, ...env },
    },
  )
  return stdout.trim().split('\n')
}

async function service(t: Parameters<typeof startMessagesHarness>[0], quota: { perMinute: number; perDay: number }) {
  const h = await startMessagesHarness(t, { listen: true, pets: true })
  await h.pets!.listen({ host: '127.0.0.1', port: 0 })
  const account = await h.newAccount({ plan: 'enterprise', ...quota })
  return {
    h,
    env: {
      PETSTORE_API_KEY: account.key,
      PETSTORE_BASE_URL: `http://127.0.0.1:${(h.pets!.server.address() as AddressInfo).port}/v1`,
      PETSTORE_MESSAGES_URL: h.baseUrl,
    },
  }
}

test('sdk/README.md has the six examples this file checks', () => {
  assert.equal(examples.length, 6)
})

test('every example compiles as TypeScript with strict and exactOptionalPropertyTypes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sdk-readme-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const files = examples.map((_, i) => `example${i + 1}.mts`)
  await Promise.all(examples.map((example, i) => writeFile(join(dir, files[i]!), example)))
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: [],
    noEmit: true,
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    paths: { '@petstore/sdk': [sources] },
  }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }))
  const tsc = new URL('node_modules/typescript/bin/tsc', root).pathname
  await promisify(execFile)(process.execPath, [tsc, '-p', dir]).catch((err: { stdout?: string }) =>
    assert.fail(`tsc:\n${err.stdout}`),
  )
})

test('example 1: create, iterate, a page, exact int64', async (t) => {
  const { env } = await service(t, { perMinute: 1000, perDay: 10_000 })
  const out = await run(examples[0]!, env)
  assert.deepEqual(out, ['created pet 1', '1: Rex', '1 on this page, next cursor: none', 'categoryId exact'])
})

test('example 2: a RateLimitError handled by the caller, at once', async (t) => {
  const { env } = await service(t, { perMinute: 1, perDay: 100 })
  // uses up the minute
  await fetch(`${env.PETSTORE_BASE_URL}/pets`, { headers: { authorization: `Bearer ${env.PETSTORE_API_KEY}` } })
  const out = await run(examples[1]!, env)
  assert.equal(out.length, 1)
  assert.match(out[0]!, /^over the quota: try again in 60 s \(request [0-9a-f-]{36}\)$/)
})

test('example 3: the quota watched with onResponse', async (t) => {
  const { env } = await service(t, { perMinute: 50, perDay: 1000 })
  const out = await run(examples[2]!, env)
  assert.deepEqual(out, [
    `GET ${env.PETSTORE_BASE_URL}/pets?limit=1 → 200 (attempt 1)`,
    'quota: 49 of 50 left until 2027-01-01T00:01:00.000Z',
  ])
})

test('example 4: an order placed and cancelled, and a message', async (t) => {
  const { env } = await service(t, { perMinute: 1000, perDay: 10_000 })
  const out = await run(examples[3]!, env)
  assert.deepEqual(out.slice(0, 2), [
    'order 1: placed, ships 2030-01-01T12:00:00.000Z',
    'order 1 is cancelled (order_not_found)',
  ])
  assert.match(out[2]!, /^message msg_\S+ is queued$/)
})

test('example 5: withResponse, the debug log line, toJSON', async (t) => {
  const { env } = await service(t, { perMinute: 50, perDay: 1000 })
  const out = await run(examples[4]!, env)
  assert.equal(out.length, 3, out.join('\n'))
  assert.match(
    out[0]!,
    new RegExp(
      `^petstore: POST ${env.PETSTORE_BASE_URL}/pets → 201 in \\d+ ms ` +
        '\\(attempt 1, request [0-9a-f-]{36}, quota 49/50\\)$',
    ),
  )
  assert.match(out[1]!, /^HTTP 201, request [0-9a-f-]{36}, 49 requests left this minute$/)
  assert.equal(out[2], '{"id":"1","name":"Rex","categoryId":"1"}')
})

test('example 6: the gate with a deadline; with the minute used up, RateLimitError at once', async (t) => {
  const { env } = await service(t, { perMinute: 50, perDay: 1000 })
  assert.deepEqual(await run(examples[5]!, env), ['3 pages, 47 requests left this minute'])
  const limited = await service(t, { perMinute: 1, perDay: 100 })
  await fetch(`${limited.env.PETSTORE_BASE_URL}/pets`, {
    headers: { authorization: `Bearer ${limited.env.PETSTORE_API_KEY}` },
  }) // uses up the minute
  assert.deepEqual(await run(examples[5]!, limited.env), ['not within 10 s: the quota frees in 60 s'])
})
