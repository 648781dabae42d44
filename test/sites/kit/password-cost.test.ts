// PASSWORD_HASH_COST: the suite hashes at a cheap cost to save CPU, production never can, and every hash carries
// its own parameters, so a password hashed at one cost verifies under any other setting.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig, PASSWORD_HASH_COST } from '../../../src/kernel/config.js'
import { hashPassword, verifyAgainstNobody, verifyPassword } from '../../../src/kernel/passwords.js'
import { GOOD_PASSWORD } from '../../helpers/portal.js'

const production = { PETSTORE_ENV: 'production', PORTAL: 'off' }

test('the default is scrypt N = 2^15; production refuses a lower cost, and accepts a higher one', () => {
  assert.equal(PASSWORD_HASH_COST, 15)
  assert.equal(loadConfig({}).passwordHashCost, 15)
  assert.equal(loadConfig(production).passwordHashCost, 15)
  assert.equal(loadConfig({ ...production, PASSWORD_HASH_COST: '17' }).passwordHashCost, 17)
  assert.equal(loadConfig({ PETSTORE_ENV: 'development', PASSWORD_HASH_COST: '4' }).passwordHashCost, 4)
  assert.equal(loadConfig({ PETSTORE_ENV: 'staging', PASSWORD_HASH_COST: '4' }).passwordHashCost, 4)
  for (const cost of ['4', '14']) {
    assert.throws(
      () => loadConfig({ ...production, PASSWORD_HASH_COST: cost }),
      (error: unknown) =>
        error instanceof ConfigError && /PASSWORD_HASH_COST/.test(error.message) && /production/.test(error.message),
      cost,
    )
  }
  // Also when production comes from the overrides (as the test harness passes them).
  assert.throws(
    () => loadConfig({ PASSWORD_HASH_COST: '4', PORTAL: 'off' }, { environment: 'production' }),
    ConfigError,
  )
  for (const bad of ['3', '18', '0', '-1', '15.5', 'x']) {
    assert.throws(
      () => loadConfig({ PASSWORD_HASH_COST: bad }),
      (error: unknown) => error instanceof ConfigError && /PASSWORD_HASH_COST/.test(error.message),
      bad,
    )
  }
})

test('a hash carries its cost, and verifies whatever the cost of new hashes is', async () => {
  const strong = await hashPassword(GOOD_PASSWORD)
  const cheap = await hashPassword(GOOD_PASSWORD, 4)
  assert.match(strong, /^scrypt\$32768\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
  assert.match(cheap, /^scrypt\$16\$8\$1\$[\w-]{22}\$[\w-]{43}$/)
  for (const stored of [strong, cheap]) {
    assert.equal(await verifyPassword(GOOD_PASSWORD, stored), true)
    assert.equal(await verifyPassword(`${GOOD_PASSWORD}!`, stored), false)
  }
  assert.equal(await verifyAgainstNobody(GOOD_PASSWORD), false)
  assert.equal(await verifyAgainstNobody(GOOD_PASSWORD, 4), false)
})
