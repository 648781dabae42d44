// PORTAL, MAIL_URL and MAIL_FROM: the portal is on outside production, and in production only with SMTP.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../../../src/kernel/config.js'

test('outside production the portal is on and mail goes to ./data/outbox by default', () => {
  const config = loadConfig({})
  assert.equal(config.portal, true)
  assert.equal(config.mailUrl, 'file:./data/outbox')
  assert.equal(loadConfig({ PORTAL: 'off' }).portal, false)
})

test('in production the portal is on only with an SMTP MAIL_URL, so an existing deployment starts as before', () => {
  assert.equal(loadConfig({ PETSTORE_ENV: 'production' }).portal, false)
  assert.equal(loadConfig({ PETSTORE_ENV: 'production' }).mailUrl, undefined)
  assert.equal(loadConfig({ PETSTORE_ENV: 'production', MAIL_URL: 'file:/tmp/out' }).portal, false)
  assert.equal(
    loadConfig({
      PETSTORE_ENV: 'production',
      MAIL_URL: 'smtps://u:p@mail.example:465',
      PETSTORE_PUBLIC_URL: 'https://portal.example',
    }).portal,
    true,
  )
  assert.equal(
    loadConfig({ PETSTORE_ENV: 'production', MAIL_URL: 'smtp://mail.example:587', PORTAL: 'off' }).portal,
    false,
  )
})

test('PORTAL=on in production without an SMTP MAIL_URL is a start-up error naming both', () => {
  for (const env of [{}, { MAIL_URL: 'file:/tmp/out' }]) {
    assert.throws(
      () => loadConfig({ PETSTORE_ENV: 'production', PORTAL: 'on', ...env }),
      (error: unknown) =>
        error instanceof ConfigError && /PORTAL=on/.test(error.message) && /MAIL_URL/.test(error.message),
    )
  }
})

test('MAIL_URL must be smtp://, smtps:// or file:DIR; PORTAL must be on or off', () => {
  for (const [name, value] of [
    ['MAIL_URL', 'http://mail.example'],
    ['MAIL_URL', 'smtp://'],
    ['MAIL_URL', 'file:'],
    ['PORTAL', 'yes'],
  ]) {
    assert.throws(
      () => loadConfig({ [name!]: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(name!),
      `${name}=${value}`,
    )
  }
})
