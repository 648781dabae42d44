// loadConfig: the documented defaults, and a ConfigError naming the variable for every bad value.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig } from '../src/config.js'

test('with no environment the documented defaults apply', () => {
  const config = loadConfig({})
  assert.equal(config.host, '127.0.0.1')
  assert.equal(config.port, 8080)
  assert.equal(config.databaseUrl, './data/petstore.db')
  assert.equal(config.environment, 'development')
  assert.equal(config.getPetSunset.toISOString(), '2030-12-05T00:00:00.000Z')
  assert.equal(config.publicUrl, 'http://127.0.0.1:8080', 'the listener\'s own origin')
})

test('set variables are read and parsed', () => {
  const config = loadConfig({
    HOST: '0.0.0.0',
    PORT: '9090',
    DATABASE_URL: 'sqlite:/var/lib/petstore/pets.db',
    PETSTORE_ENV: 'staging',
    PETSTORE_GETPET_SUNSET: '2031-01-02T03:04:05+01:00',
    PETSTORE_PRODUCTION_URL: 'https://api.example.com/v1/',
    PETSTORE_STAGING_URL: 'https://staging.example.com/v1',
    LOG_LEVEL: 'warn',
  })
  assert.equal(config.host, '0.0.0.0')
  assert.equal(config.port, 9090)
  assert.equal(config.databaseUrl, 'sqlite:/var/lib/petstore/pets.db')
  assert.equal(config.environment, 'staging')
  assert.equal(config.getPetSunset.toISOString(), '2031-01-02T02:04:05.000Z')
  assert.equal(config.productionUrl, 'https://api.example.com/v1')
  assert.equal(config.stagingUrl, 'https://staging.example.com/v1')
  assert.equal(config.logLevel, 'warn')
})

const bad: Array<[variable: string, value: string]> = [
  ['HOST', '   '],
  ['PORT', 'abc'],
  ['PORT', '0'],
  ['PORT', '65536'],
  ['PORT', '80.5'],
  ['PORT', '-1'],
  ['DATABASE_URL', '  '],
  ['PETSTORE_ENV', 'prod'],
  ['PETSTORE_ENV', 'Production'],
  ['PETSTORE_GETPET_SUNSET', 'next year'],
  ['PETSTORE_GETPET_SUNSET', '2030-12-05'],
  ['PETSTORE_GETPET_SUNSET', '2030-12-05T00:00:00'],
  ['PETSTORE_GETPET_SUNSET', '2030-13-05T00:00:00Z'],
  ['PETSTORE_GETPET_SUNSET', '2030-02-30T00:00:00Z'],
  ['PETSTORE_GETPET_DEPRECATED_AT', 'yesterday'],
  ['PETSTORE_PRODUCTION_URL', 'api.example.com/v1'],
  ['PETSTORE_PRODUCTION_URL', 'ftp://api.example.com/v1'],
  ['PETSTORE_STAGING_URL', 'not a url'],
  ['PETSTORE_PUBLIC_URL', 'https://api.example.com/v1'],
  ['LOG_LEVEL', 'loud'],
]

for (const [variable, value] of bad) {
  test(`${variable}=${JSON.stringify(value)} throws a ConfigError naming ${variable}`, () => {
    assert.throws(
      () => loadConfig({ [variable]: value }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, `not a ConfigError: ${String(error)}`)
        assert.equal(error.problems.length, 1, error.message)
        assert.ok(error.problems[0]!.startsWith(`${variable}=`), error.message)
        assert.ok(error.message.includes(variable))
        return true
      },
    )
  })
}

test('every bad variable is named in one ConfigError', () => {
  assert.throws(
    () => loadConfig({ PORT: 'abc', PETSTORE_ENV: 'prod', LOG_LEVEL: 'loud' }),
    (error: unknown) => error instanceof ConfigError && ['PORT', 'PETSTORE_ENV', 'LOG_LEVEL'].every((v) => error.problems.some((p) => p.startsWith(`${v}=`))),
  )
})

test('a deprecation instant after the sunset is refused, naming both variables', () => {
  assert.throws(
    () => loadConfig({ PETSTORE_GETPET_DEPRECATED_AT: '2031-01-01T00:00:00Z', PETSTORE_GETPET_SUNSET: '2030-12-05T00:00:00Z' }),
    (error: unknown) => error instanceof ConfigError && /PETSTORE_GETPET_DEPRECATED_AT/.test(error.message) && /PETSTORE_GETPET_SUNSET/.test(error.message),
  )
})

test('PETSTORE_GETPET_SUNSET alone may be any instant, past ones included; the deprecation then defaults to the earlier', () => {
  const past = loadConfig({ PETSTORE_GETPET_SUNSET: '2020-01-01T00:00:00Z' })
  assert.equal(past.getPetSunset.toISOString(), '2020-01-01T00:00:00.000Z')
  assert.equal(past.getPetDeprecatedAt.toISOString(), '2020-01-01T00:00:00.000Z')
  const later = loadConfig({ PETSTORE_GETPET_SUNSET: '2040-01-01T00:00:00Z' })
  assert.equal(later.getPetDeprecatedAt.toISOString(), '2026-11-21T00:00:00.000Z')
  // Both set, deprecation not after the sunset: both kept as given.
  const both = loadConfig({ PETSTORE_GETPET_SUNSET: '2020-01-01T00:00:00Z', PETSTORE_GETPET_DEPRECATED_AT: '2019-06-01T00:00:00Z' })
  assert.equal(both.getPetDeprecatedAt.toISOString(), '2019-06-01T00:00:00.000Z')
})
