// `petstore serve` with a bad setting that may hold a credential (every URL, secret and token of config.ts): one
// line on stderr naming the variable and the problem, never the password, the secret or the token.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { settings } from '../../src/kernel/config.js'
import { oneLineFailure, runCli, tempDir } from '../helpers/cli.js'
import { freePort } from '../helpers/ports.js'

const SECRET = 'Pa55word-X'

/** A bad value for each such setting, with the secret in it, and the problem the line must say. */
const bad: Record<string, [value: string, problem: string]> = {
  DATABASE_URL: [`postgres://app:${SECRET}@db:54x2/petstore`, 'DATABASE_URL: port "54x2" is not a number'],
  REDIS_URL: [`redis://:${SECRET}@:6379`, 'REDIS_URL: host is missing'],
  MAIL_URL: [`smtp://mailer:${SECRET}@mail.example.com:5x7`, 'MAIL_URL: port "5x7" is not a number'],
  MESSAGES_WEBHOOK_URL: [
    `https://hook:${SECRET}@hooks example.com/in`,
    'MESSAGES_WEBHOOK_URL: host "hooks example.com" is not a valid host name',
  ],
  MESSAGES_WEBHOOK_SECRET: [
    `whsec_${SECRET}`,
    'MESSAGES_WEBHOOK_SECRET: must be whsec_ followed by at least 24 base64-encoded bytes',
  ],
  METRICS_TOKEN: [`${SECRET} 2`, 'METRICS_TOKEN: must be visible ASCII characters without spaces'],
  PETSTORE_PUBLIC_URL: [`https://ops:${SECRET}@api.example.com`, 'PETSTORE_PUBLIC_URL: must be an origin'],
  PETSTORE_PRODUCTION_URL: [`https://ops:${SECRET}@:443/v1`, 'PETSTORE_PRODUCTION_URL: host is missing'],
  PETSTORE_STAGING_URL: [
    `ftp://ops:${SECRET}@staging.example.com/v1`,
    'PETSTORE_STAGING_URL: scheme "ftp:" is not supported',
  ],
  CORS_ORIGINS: [`https://ops:${SECRET}@app.example.com`, 'CORS_ORIGINS: must be an origin'],
  CONSOLE_PUBLIC_URL: [`https://ops:${SECRET}@console.example.com`, 'CONSOLE_PUBLIC_URL: must be an origin'],
  PETSTORE_SECRETS_KEY: [`${SECRET}${SECRET}`, 'PETSTORE_SECRETS_KEY: must be 32 random bytes as base64 or hex'],
}

const sensitive = Object.values(settings).filter((s) => s.sensitive !== undefined)

async function serveEnv(t: Parameters<typeof tempDir>[0]): Promise<Record<string, string>> {
  const { file } = tempDir(t, 'petstore-config-errors-')
  const port = await freePort()
  let messagesPort = await freePort()
  while (messagesPort === port) messagesPort = await freePort()
  return { HOST: '127.0.0.1', PORT: String(port), MESSAGES_PORT: String(messagesPort), DATABASE_URL: file }
}

test('every setting that may hold a credential has a case here', () => {
  assert.deepEqual(Object.keys(bad).sort(), sensitive.map((s) => s.env).sort())
})

for (const s of sensitive) {
  test(
    `serve with a bad ${s.env}: one line naming it and the problem, ` +
      `without the ${s.sensitive === 'secret' ? 'secret' : 'password'}`,
    async (t) => {
      const [value, problem] = bad[s.env]!
      const line = oneLineFailure(await runCli(['serve'], { ...(await serveEnv(t)), [s.env]: value }))
      assert.ok(line.includes(problem), line)
      assert.ok(!line.includes(SECRET) && !line.includes('Pa55'), line)
    },
  )
}

test('serve with all of them bad at once: still one line, naming each, without a secret', async (t) => {
  const env = await serveEnv(t)
  for (const [variable, [value]] of Object.entries(bad)) env[variable] = value
  const line = oneLineFailure(await runCli(['serve'], env))
  for (const variable of Object.keys(bad))
    assert.ok(line.includes(`${variable}: `), `${variable} is not named: ${line}`)
  assert.ok(!line.includes('Pa55'), line)
})

test('a valid PostgreSQL URL whose server refuses: one line with the address, without the password', async (t) => {
  const env = await serveEnv(t)
  const closed = await freePort()
  const line = oneLineFailure(
    await runCli(['serve'], { ...env, DATABASE_URL: `postgres://app:${SECRET}@127.0.0.1:${closed}/petstore` }),
  )
  assert.ok(line.includes(`127.0.0.1:${closed}`), line)
  assert.ok(!line.includes('Pa55'), line)
})
