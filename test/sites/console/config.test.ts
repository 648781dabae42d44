// CONSOLE: the console is on wherever the portal is, CONSOLE=off turns it off alone, and it cannot be on without
// the portal (it shares its mail settings and public URL rules).
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../../src/kernel/config.js'

test('the console follows the portal unless CONSOLE=off; CONSOLE=on without the portal is a start-up error', () => {
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
  assert.throws(
    () => loadConfig({ PORTAL: 'off', CONSOLE: 'on' }),
    (e: unknown) => e instanceof ConfigError && /CONSOLE=on needs the portal on/.test(e.message),
  )
  assert.throws(() => loadConfig({ CONSOLE: 'yes' }), /CONSOLE="yes": must be one of on, off/)
})
