// loadConfig: the documented defaults, and a ConfigError naming the variable for every bad value.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ConfigError, loadConfig, settings } from '../../src/kernel/config.js'

const settingOf = (variable: string) => Object.values(settings).find((s) => s.env === variable)!

test('with no environment the documented defaults apply', () => {
  const config = loadConfig({})
  assert.equal(config.host, '127.0.0.1')
  assert.equal(config.port, 8080)
  assert.equal(config.databaseUrl, './data/petstore.db')
  assert.equal(config.environment, 'development')
  assert.equal(config.getPetSunset.toISOString(), '2030-12-05T00:00:00.000Z')
  assert.equal(config.publicUrl, 'http://127.0.0.1:8080', "the listener's own origin")
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
        // The value is echoed, except for a setting that may hold a credential (config-errors.test.ts).
        assert.ok(
          error.problems[0]!.startsWith(settingOf(variable).sensitive ? `${variable}: ` : `${variable}=`),
          error.message,
        )
        assert.ok(error.message.includes(variable))
        return true
      },
    )
  })
}

test('every bad variable is named in one ConfigError', () => {
  assert.throws(
    () => loadConfig({ PORT: 'abc', PETSTORE_ENV: 'prod', LOG_LEVEL: 'loud' }),
    (error: unknown) =>
      error instanceof ConfigError &&
      ['PORT', 'PETSTORE_ENV', 'LOG_LEVEL'].every((v) => error.problems.some((p) => p.startsWith(`${v}=`))),
  )
})

test('a deprecation instant after the sunset is refused, naming both variables', () => {
  assert.throws(
    () =>
      loadConfig({
        PETSTORE_GETPET_DEPRECATED_AT: '2031-01-01T00:00:00Z',
        PETSTORE_GETPET_SUNSET: '2030-12-05T00:00:00Z',
      }),
    (error: unknown) =>
      error instanceof ConfigError &&
      /PETSTORE_GETPET_DEPRECATED_AT/.test(error.message) &&
      /PETSTORE_GETPET_SUNSET/.test(error.message),
  )
})

test(
  'PETSTORE_GETPET_SUNSET alone may be any instant, past ones included; ' +
    'the deprecation then defaults to the earlier',
  () => {
    const past = loadConfig({ PETSTORE_GETPET_SUNSET: '2020-01-01T00:00:00Z' })
    assert.equal(past.getPetSunset.toISOString(), '2020-01-01T00:00:00.000Z')
    assert.equal(past.getPetDeprecatedAt.toISOString(), '2020-01-01T00:00:00.000Z')
    const later = loadConfig({ PETSTORE_GETPET_SUNSET: '2040-01-01T00:00:00Z' })
    assert.equal(later.getPetDeprecatedAt.toISOString(), '2026-11-21T00:00:00.000Z')
    // Both set, deprecation not after the sunset: both kept as given.
    const both = loadConfig({
      PETSTORE_GETPET_SUNSET: '2020-01-01T00:00:00Z',
      PETSTORE_GETPET_DEPRECATED_AT: '2019-06-01T00:00:00Z',
    })
    assert.equal(both.getPetDeprecatedAt.toISOString(), '2019-06-01T00:00:00.000Z')
  },
)

// A setting that may hold a credential: the error names the variable and what is wrong, never the value.
const PASSWORD = 'Pa55word-X'
const urlProblems: Array<[variable: string, value: string, problem: string]> = [
  ['DATABASE_URL', `postgres://app:${PASSWORD}@db:54x2/petstore`, 'DATABASE_URL: port "54x2" is not a number'],
  ['DATABASE_URL', `postgres://db:54x2/petstore`, 'DATABASE_URL: port "54x2" is not a number'],
  ['DATABASE_URL', `postgres://app:${PASSWORD}@/petstore`, 'DATABASE_URL: host is missing'],
  ['DATABASE_URL', `postgres://app:${PASSWORD}@:5432/petstore`, 'DATABASE_URL: host is missing'],
  ['DATABASE_URL', 'postgres:///petstore', 'DATABASE_URL: host is missing'],
  [
    'DATABASE_URL',
    `postgres://app:${PASSWORD}@db:70000/petstore`,
    'DATABASE_URL: port 70000 is not between 1 and 65535',
  ],
  [
    'DATABASE_URL',
    `postgres://app:${PASSWORD}@db host/petstore`,
    'DATABASE_URL: host "db host" is not a valid host name',
  ],
  // A forgotten `@host`: what Node would read as the port is the password, and is not quoted.
  [
    'DATABASE_URL',
    `postgres://app:${PASSWORD}/petstore`,
    'DATABASE_URL: port is not a number (or the host is missing after user:password@)',
  ],
  // Unencoded / and # in the password.
  [
    'DATABASE_URL',
    `postgres://app:Pa55/word@db/petstore`,
    'DATABASE_URL: is not a valid URL (in a user name or password, / ? # @ : and % must be percent-encoded)',
  ],
  [
    'DATABASE_URL',
    `postgres://app:1234/${PASSWORD}@db/petstore`,
    'DATABASE_URL: is not a valid URL (in a user name or password, / ? # @ : and % must be percent-encoded)',
  ],
  [
    'DATABASE_URL',
    `postgres://app:Pa55#word@db/petstore`,
    'DATABASE_URL: is not a valid URL (in a user name or password, / ? # @ : and % must be percent-encoded)',
  ],
  [
    'DATABASE_URL',
    `postgres:app:${PASSWORD}@db/petstore`,
    'DATABASE_URL: must start with postgres:// (expected postgres://[user:password@]host[:port]/database)',
  ],
  [
    'DATABASE_URL',
    `mysql://app:${PASSWORD}@db/petstore`,
    'DATABASE_URL: scheme "mysql:" is not supported: ' +
      'use a file path, a file: or sqlite: URL, or postgres://[user:password@]host[:port]/database',
  ],
  [
    'DATABASE_URL',
    'file://files.example.com/petstore.db',
    'DATABASE_URL: the host of a file: URL must be empty or localhost, ' +
      'not "files.example.com" (file:///absolute/path or file:relative/path)',
  ],
  [
    'DATABASE_URL',
    'file:./data/p.db?mode=ro',
    'DATABASE_URL: a file: URL takes no ?query or #fragment (SQLite URI parameters are not read)',
  ],
  ['REDIS_URL', `redis://:${PASSWORD}@cache:63x9`, 'REDIS_URL: port "63x9" is not a number'],
  ['REDIS_URL', `redis://:${PASSWORD}@`, 'REDIS_URL: host is missing'],
  [
    'REDIS_URL',
    `http://:${PASSWORD}@cache`,
    'REDIS_URL: scheme "http:" is not supported: expected redis://[[user]:password@]host[:port][/db] or rediss://…',
  ],
  ['MAIL_URL', `smtp://mailer:${PASSWORD}@:587`, 'MAIL_URL: host is missing'],
  ['MAIL_URL', `smtps://mailer:${PASSWORD}@mail:4x5`, 'MAIL_URL: port "4x5" is not a number'],
  [
    'MESSAGES_WEBHOOK_URL',
    `https://hook:${PASSWORD}@hooks.example.com:44x3/in`,
    'MESSAGES_WEBHOOK_URL: port "44x3" is not a number',
  ],
  [
    'MESSAGES_WEBHOOK_SECRET',
    `whsec_${PASSWORD}`,
    'MESSAGES_WEBHOOK_SECRET: must be whsec_ followed by at least 24 base64-encoded bytes',
  ],
  [
    'METRICS_TOKEN',
    `${PASSWORD} 2`,
    'METRICS_TOKEN: must be visible ASCII characters without spaces (it is sent as a Bearer token)',
  ],
  [
    'PETSTORE_PUBLIC_URL',
    `https://u:${PASSWORD}@api.example.com`,
    'PETSTORE_PUBLIC_URL: must be an origin such as https://api.example.com (no user:password@, no path)',
  ],
  [
    'PETSTORE_PRODUCTION_URL',
    `https://u:${PASSWORD}@api.example.com:4x3/v1`,
    'PETSTORE_PRODUCTION_URL: port "4x3" is not a number',
  ],
  [
    'PETSTORE_STAGING_URL',
    `ftp://u:${PASSWORD}@staging.example.com/v1`,
    'PETSTORE_STAGING_URL: scheme "ftp:" is not supported: expected an absolute http(s) URL',
  ],
  [
    'CORS_ORIGINS',
    `https://app.example.com,https://u:${PASSWORD}@admin.example.com`,
    'CORS_ORIGINS: must be an origin such as https://api.example.com (no user:password@, no path)',
  ],
]

for (const [variable, value, problem] of urlProblems) {
  test(`${variable}=${value}: "${problem}", without the password`, () => {
    assert.throws(
      () => loadConfig({ [variable]: value }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError, String(error))
        assert.deepEqual(error.problems, [problem])
        assert.ok(!error.message.includes(PASSWORD) && !error.message.includes('Pa55'), error.message)
        return true
      },
    )
  })
}

test('every setting that may hold a credential (a URL, a secret, a token) is marked so, and no other', () => {
  for (const s of Object.values(settings)) {
    const credential = /_URL$|_ORIGINS$|_SECRET$|_TOKEN$|_PASSWORD$|_KEY$/.test(s.env)
    assert.equal(s.sensitive !== undefined, credential, `${s.env}: sensitive is ${s.sensitive}`)
  }
})

test('the URL forms the README gives are accepted as they are', () => {
  const accepted: Array<[variable: string, value: string]> = [
    ['DATABASE_URL', 'postgres://app:s%2Fcret@db.internal:5432/petstore?options=-c%20search_path%3Dx'],
    ['DATABASE_URL', 'postgresql://db/petstore'],
    ['DATABASE_URL', 'postgres:///petstore?host=/var/run/postgresql'],
    ['DATABASE_URL', 'file:/var/lib/petstore/petstore.db'],
    ['DATABASE_URL', 'file:./data/p.db'],
    ['DATABASE_URL', 'file:///abs/path.db'],
    ['DATABASE_URL', 'sqlite:./data/p.db'],
    ['DATABASE_URL', './data/petstore.db'],
    ['DATABASE_URL', ':memory:'],
    ['REDIS_URL', 'redis://:secret@cache:6379/0'],
    ['REDIS_URL', 'rediss://default:secret@[::1]:6380'],
    ['MAIL_URL', 'smtps://mailer:secret@mail.example.com:465'],
    ['MAIL_URL', 'file:./data/outbox'],
    ['MESSAGES_WEBHOOK_URL', 'https://hooks.example.com/in'],
  ]
  for (const [variable, value] of accepted)
    assert.equal(loadConfig({ [variable]: value })[settingKey(variable)], value, variable)
})

const settingKey = (variable: string) =>
  Object.entries(settings).find(([, s]) => s.env === variable)![0] as keyof ReturnType<typeof loadConfig>

test('webhooks: on outside production; in production only with PETSTORE_SECRETS_KEY (else refused)', () => {
  const key = Buffer.alloc(32, 7).toString('base64')
  const production = { PETSTORE_ENV: 'production', PORTAL: 'off', CONSOLE: 'off' }
  assert.equal(loadConfig({}).webhooks, true)
  assert.equal(loadConfig({ WEBHOOKS: 'off' }).webhooks, false)
  assert.equal(loadConfig(production).webhooks, false, 'a production image without a key still starts')
  assert.equal(loadConfig({ ...production, PETSTORE_SECRETS_KEY: key }).webhooks, true)
  assert.throws(
    () => loadConfig({ ...production, WEBHOOKS: 'on' }),
    (e: ConfigError) => e.problems.some((p) => /WEBHOOKS=on in production needs PETSTORE_SECRETS_KEY/.test(p)),
  )
  const bad = (env: NodeJS.ProcessEnv) => {
    try {
      loadConfig(env)
    } catch (e) {
      return (e as ConfigError).problems.join('\n')
    }
    return ''
  }
  const keyProblem = bad({ PETSTORE_SECRETS_KEY: 'not-a-key-but-a-secret' })
  assert.match(keyProblem, /PETSTORE_SECRETS_KEY: must be 32 random bytes/)
  assert.ok(!keyProblem.includes('not-a-key-but-a-secret'), 'a secret setting is never echoed')
  assert.match(bad({ WEBHOOK_ALLOWED_NETWORKS: '10.0.0.0/33' }), /WEBHOOK_ALLOWED_NETWORKS/)
  assert.match(bad({ WEBHOOK_DISABLE_AFTER: '5m' }), /WEBHOOK_DISABLE_AFTER.*hours or days/)
  const set = loadConfig({ WEBHOOK_DISABLE_AFTER: '36h', WEBHOOK_RETRY_SCHEDULE: '1s,2m', WEBHOOK_TIMEOUT_MS: '900' })
  assert.deepEqual(
    [set.endpointDisableAfterMs, set.deliveryRetrySchedule, set.deliveryTimeoutMs],
    [36 * 3_600_000, [1000, 120_000], 900],
  )
})
