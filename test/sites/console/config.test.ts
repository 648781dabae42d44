// CONSOLE: the console is on wherever the portal is unless CONSOLE says otherwise; CONSOLE=on runs it with the portal
// off (a private console). Its own listener (CONSOLE_PORT, CONSOLE_HOST), its origin (CONSOLE_PUBLIC_URL) and who may
// reach it (CONSOLE_ALLOWED_NETWORKS), each checked at start.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../../src/kernel/config.js'

const refused = (env: NodeJS.ProcessEnv, why: RegExp) =>
  assert.throws(
    () => loadConfig(env),
    (e: unknown) => e instanceof ConfigError && why.test(e.message),
  )

test('the console follows the portal unless CONSOLE says otherwise; CONSOLE=on runs it alone', () => {
  assert.equal(loadConfig({}).console, true)
  assert.equal(loadConfig({ CONSOLE: 'on' }).console, true)
  assert.deepEqual([loadConfig({ CONSOLE: 'off' }).portal, loadConfig({ CONSOLE: 'off' }).console], [true, false])
  assert.equal(loadConfig({ PORTAL: 'off' }).console, false)
  assert.equal(
    loadConfig({ PETSTORE_ENV: 'production' }).console,
    false,
    'production without SMTP: no portal, no console',
  )
  const smtp = {
    PETSTORE_ENV: 'production',
    MAIL_URL: 'smtp://mail.example:25',
    PETSTORE_PUBLIC_URL: 'https://api.example',
  }
  assert.equal(loadConfig(smtp).console, true)
  const alone = loadConfig({ PORTAL: 'off', CONSOLE: 'on' })
  assert.deepEqual([alone.portal, alone.console], [false, true])
  assert.throws(() => loadConfig({ CONSOLE: 'yes' }), /CONSOLE="yes": must be one of on, off/)
})

test('a private console in production: its own port on localhost, no SMTP and no public URL needed', () => {
  const config = loadConfig({ PETSTORE_ENV: 'production', PORTAL: 'off', CONSOLE: 'on', CONSOLE_PORT: '8082' })
  assert.deepEqual(
    [config.portal, config.console, config.consoleHost, config.consolePort, config.consolePublicUrl],
    [false, true, '127.0.0.1', 8082, 'http://127.0.0.1:8082'],
  )
  assert.equal(config.mailUrl, undefined)
  refused(
    { PETSTORE_ENV: 'production', PORTAL: 'off', CONSOLE: 'on' },
    /the console is on in production and needs CONSOLE_PUBLIC_URL or PETSTORE_PUBLIC_URL/,
  )
  const named = loadConfig({
    PETSTORE_ENV: 'production',
    PORTAL: 'off',
    CONSOLE: 'on',
    CONSOLE_PORT: '8082',
    CONSOLE_HOST: '0.0.0.0',
    CONSOLE_PUBLIC_URL: 'https://console.internal.example/',
  })
  assert.equal(named.consolePublicUrl, 'https://console.internal.example')
})

test('the console shares the API listener and its origin unless it has a port of its own', () => {
  const shared = loadConfig({ PORT: '9000' })
  assert.equal(shared.consolePort, undefined)
  assert.equal(shared.consolePublicUrl, shared.publicUrl)
  assert.equal(loadConfig({ PETSTORE_PUBLIC_URL: 'https://api.example' }).consolePublicUrl, 'https://api.example')
  assert.equal(
    loadConfig({ PETSTORE_PUBLIC_URL: 'https://api.example', CONSOLE_PORT: '9100' }).consolePublicUrl,
    'http://127.0.0.1:9100',
    'on its own listener its links and cookies are for that listener',
  )
})

test('console settings that cannot work are refused at start, each by name', () => {
  refused({ PORTAL: 'off', CONSOLE_PORT: '9100' }, /CONSOLE_PORT set, but the console is off/)
  refused({ CONSOLE: 'off', CONSOLE_ALLOWED_NETWORKS: '10.0.0.0/8' }, /CONSOLE_ALLOWED_NETWORKS set, but the console/)
  refused({ PORT: '9100', CONSOLE_PORT: '9100' }, /CONSOLE_PORT must differ from PORT and MESSAGES_PORT/)
  refused({ MESSAGES_PORT: '9101', CONSOLE_PORT: '9101' }, /CONSOLE_PORT must differ/)
  refused({ CONSOLE_PORT: '70000' }, /CONSOLE_PORT="70000": must be a port number/)
  refused(
    { CONSOLE_ALLOWED_NETWORKS: '10.0.0.0/33' },
    /CONSOLE_ALLOWED_NETWORKS="10.0.0.0\/33".*"10.0.0.0\/33" is none/,
  )
  refused({ CONSOLE_ALLOWED_NETWORKS: 'office' }, /"office" is none of these/)
  refused({ CONSOLE_PUBLIC_URL: 'https://console.example/path' }, /CONSOLE_PUBLIC_URL: must be an origin/)
  refused({ PORTAL_SIGNUP: 'invite' }, /PORTAL_SIGNUP="invite": must be one of open, closed/)
  assert.deepEqual(
    loadConfig({ CONSOLE_ALLOWED_NETWORKS: ' 10.0.0.0/8 , fd00::/8,192.168.1.7' }).consoleAllowedNetworks,
    ['10.0.0.0/8', 'fd00::/8', '192.168.1.7'],
  )
  assert.equal(loadConfig({}).portalSignup, 'open')
})
