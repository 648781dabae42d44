// CONSOLE_PORT: the console on a listener of its own (CONSOLE_HOST, 127.0.0.1 by default), and nowhere on the API's:
// `/console` there is the API's 404. Its forms are checked against its own origin (CONSOLE_PUBLIC_URL's default,
// http://CONSOLE_HOST:CONSOLE_PORT), so a log-in works there and a form posted from the API's origin is refused.
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { backend, migratedPostgresSchema } from '../helpers/backend.js'
import { freePort, spawnServe } from '../helpers/serve.js'

/** A form post as a browser on `origin` sends it: the cookie and token of the form it got from `page`. */
async function postLogin(base: string, origin: string) {
  const form = await fetch(`${base}/console/login`)
  const cookie = form.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ')
  const csrf = /name="_csrf" value="([^"]+)"/.exec(await form.text())![1]!
  return fetch(`${base}/console/login`, {
    method: 'POST',
    redirect: 'manual',
    headers: { origin, cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ _csrf: csrf, email: 'nobody@ops.example', password: 'wrong', code: '000000' }),
  })
}

test('the console on its own port: there and only there, with its own origin', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-console-port-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const [port, messagesPort, consolePort] = [await freePort(), await freePort(), await freePort()]
  const database: Record<string, string> =
    backend === 'postgres'
      ? { DATABASE_URL: await migratedPostgresSchema(t), REDIS_URL: process.env.TEST_REDIS_URL! }
      : { DATABASE_URL: join(dir, 'petstore.db') }
  const server = spawnServe(
    t,
    {
      HOST: '127.0.0.1',
      PORT: String(port),
      MESSAGES_PORT: String(messagesPort),
      PORTAL: 'off',
      CONSOLE: 'on',
      CONSOLE_PORT: String(consolePort),
      PASSWORD_HASH_COST: '4',
      ...database,
    },
    ['--only', 'pets'],
  )
  const consoleBase = `http://127.0.0.1:${consolePort}`
  const [, announced] = await server.waitFor(/Operator console at (\S+)/)
  assert.equal(announced, `${consoleBase}/console`)
  const apiBase = `http://127.0.0.1:${port}`

  const onApi = await fetch(`${apiBase}/console/login`)
  assert.equal(onApi.status, 404)
  assert.deepEqual(await onApi.json(), { code: 'not_found', message: 'No route for GET /console/login.', status: 404 })
  assert.equal((await fetch(`${apiBase}/v1/pets`)).status, 401, 'the API is where it was')

  const login = await fetch(`${consoleBase}/console/login`)
  assert.equal(login.status, 200)
  assert.match(await login.text(), /<form method="post" action="\/console\/login"/)
  const home = await fetch(`${consoleBase}/`, { redirect: 'manual' })
  assert.deepEqual([home.status, home.headers.get('location')], [303, '/console'])
  assert.equal((await fetch(`${consoleBase}/v1/pets`)).status, 404, 'no API on the console listener')

  const ownOrigin = await postLogin(consoleBase, consoleBase)
  assert.equal(ownOrigin.status, 400, 'the form is accepted and the credentials checked (and refused)')
  assert.match(await ownOrigin.text(), /incorrect/i)
  const apiOrigin = await postLogin(consoleBase, apiBase)
  assert.equal(apiOrigin.status, 403, "a form from the API's origin is another site's")
  await server.stop()
})
