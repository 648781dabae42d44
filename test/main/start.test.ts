// `petstore serve` as a real process: first start, the key it prints, restart, production, SIGTERM, bad config.
import assert from 'node:assert/strict'
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { runCli, tempDir, oneLineFailure } from '../helpers/cli.js'
import { freePort, spawnServe } from '../helpers/serve.js'

const START_LINE = /at (http:\/\/\S+\/v1)\s/
const CURL_LINE = /^\s*curl .*$/m
const ANY_KEY = /ps_(?:test|live)_[A-Za-z0-9_-]+/g

async function setup(t: Parameters<typeof tempDir>[0], env: Record<string, string> = {}) {
  const { dir } = tempDir(t, 'petstore-serve-')
  const file = join(dir, 'not', 'yet', 'petstore.db')
  const port = await freePort()
  // The messages interface listens too (MESSAGES_PORT); give it a free port as well.
  let messagesPort = await freePort()
  while (messagesPort === port) messagesPort = await freePort()
  return {
    file,
    port,
    env: { HOST: '127.0.0.1', PORT: String(port), MESSAGES_PORT: String(messagesPort), DATABASE_URL: file, ...env },
  }
}

const call = (base: string, key: string, init: RequestInit = {}) =>
  fetch(`${base}/pets`, {
    ...init,
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    signal: AbortSignal.timeout(10_000),
  })

test(
  'first start: creates the folder, prints the base URL, ' + 'one ps_test_ key and a curl line; the key works',
  async (t) => {
    const { file, port, env } = await setup(t)
    assert.equal(existsSync(dirname(file)), false)
    const server = spawnServe(t, env)
    const [, base] = await server.waitFor(START_LINE)
    assert.equal(base, `http://127.0.0.1:${port}/v1`)
    const [curl] = await server.waitFor(CURL_LINE)
    assert.ok(existsSync(file), 'the database file is created')

    // The banner (and the key shown once) is on stderr: stdout is the log, JSON lines only.
    const keys = new Set(server.stderr().match(ANY_KEY))
    assert.equal(keys.size, 1, server.stderr())
    const [key] = [...keys] as [string]
    // (The log does name the key's prefix, `ps_test_AbCd`: in the audit entry of its creation.)
    assert.ok(!server.stdout().includes(key), 'the key is on stdout (the log)')
    assert.match(key, /^ps_test_/)
    assert.ok(curl.includes(`Bearer ${key}`) && curl.includes(`${base}/pets`), curl)

    const created = await call(base!, key, { method: 'POST', body: JSON.stringify({ name: 'Rex', categoryId: 7 }) })
    assert.equal(created.status, 201)
    const pet = (await created.json()) as { id: number }
    const listed = await call(base!, key)
    assert.equal(listed.status, 200)
    assert.deepEqual(await listed.json(), [{ id: pet.id, name: 'Rex', categoryId: 7 }])

    assert.deepEqual(await server.stop(), { code: 0, signal: null })
    const logged = (server.stdout() + server.stderr())
      .split('\n')
      .filter((l) => l.includes(key) && l.trimStart().startsWith('{'))
    assert.deepEqual(logged, [], 'the key appears in a log line')
  },
)

test('a restart on the same database prints no new key, and the first key still works', async (t) => {
  const { env } = await setup(t)
  const first = spawnServe(t, env)
  await first.waitFor(CURL_LINE)
  const [key] = first.stderr().match(ANY_KEY)!
  assert.deepEqual(await first.stop(), { code: 0, signal: null })

  const again = spawnServe(t, env)
  const [, base] = await again.waitFor(START_LINE)
  const listed = await call(base!, key!)
  assert.equal(listed.status, 200)
  assert.deepEqual(await again.stop(), { code: 0, signal: null })
  assert.equal((again.stdout() + again.stderr()).match(ANY_KEY), null, again.stderr())
  assert.doesNotMatch(again.stdout() + again.stderr(), CURL_LINE)
  const accounts = await runCli(['accounts', 'list', '--json'], { DATABASE_URL: env.DATABASE_URL })
  assert.equal(JSON.parse(accounts.stdout).accounts.length, 1, 'the restart created another account')
})

test('production: the first start prints no key and creates no account', async (t) => {
  const { port, env } = await setup(t, { PETSTORE_ENV: 'production' })
  const server = spawnServe(t, env)
  const [, base] = await server.waitFor(START_LINE)
  assert.equal(base, `http://127.0.0.1:${port}/v1`)
  assert.deepEqual(await server.stop(), { code: 0, signal: null })
  assert.equal((server.stdout() + server.stderr()).match(ANY_KEY), null, server.stderr())
  assert.doesNotMatch(server.stdout() + server.stderr(), CURL_LINE)

  const accounts = await runCli(['accounts', 'list', '--json'], {
    DATABASE_URL: env.DATABASE_URL,
    PETSTORE_ENV: 'production',
  })
  assert.equal(accounts.code, 0, accounts.stderr)
  assert.deepEqual(JSON.parse(accounts.stdout), { accounts: [] })
})

for (const [variable, value] of [
  ['PORT', 'abc'],
  ['PETSTORE_ENV', 'prod'],
] as const) {
  test(`serve with ${variable}=${value} exits ≠ 0 with one clear line on stderr`, async (t) => {
    const { env } = await setup(t)
    const line = oneLineFailure(await runCli(['serve'], { ...env, [variable]: value }))
    assert.ok(line.includes(variable) && line.includes(value), line)
  })
}

test(
  'the petstore program runs Node.js with its memory settings (young ' +
    'generation 4 MiB, old generation ≤ 128 MiB, 2 malloc arenas)',
  async (t) => {
    const { env } = await setup(t)
    const server = spawnServe(t, env, [], { asProgram: true })
    await server.waitFor(START_LINE)
    // `env -S` execs node in place: the process that serves is the one started, with the options of the first line.
    const argv = readFileSync(`/proc/${server.pid}/cmdline`, 'utf8').split('\0')
    assert.ok(argv.includes('--max-semi-space-size=4') && argv.includes('--max-old-space-size=128'), argv.join(' '))
    assert.ok(readFileSync(`/proc/${server.pid}/environ`, 'utf8').split('\0').includes('MALLOC_ARENA_MAX=2'))
    assert.equal((await server.stop()).code, 0)
  },
)

test('serve with PETSTORE_GETPET_SUNSET alone in the past starts, and GET /v1/pets/{petId} answers 410', async (t) => {
  const { env } = await setup(t, { PETSTORE_GETPET_SUNSET: '2020-01-01T00:00:00Z' })
  const server = spawnServe(t, env)
  const [, base] = await server.waitFor(START_LINE)
  await server.waitFor(CURL_LINE)
  const [key] = server.stderr().match(ANY_KEY)!
  const gone = await fetch(`${base}/pets/1`, {
    headers: { authorization: `Bearer ${key}` },
    signal: AbortSignal.timeout(10_000),
  })
  assert.equal(gone.status, 410)
  assert.equal(((await gone.json()) as { code: string }).code, 'operation_sunset')
  assert.equal((await server.stop()).code, 0)
})
