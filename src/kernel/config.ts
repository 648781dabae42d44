import { checkUrl } from './config-urls.js'
import { parseDatabaseUrl } from './database-url.js'
import { parseNetworkList } from './networks.js'
import { parseSecretsKeys } from './secret-box.js'

// One definition per setting: its environment variable, default, documentation and parser.
// docs/operators/configuration.md's table is written from this list; `loadConfig` validates all of it at boot.

export const ENVIRONMENTS = ['production', 'staging', 'development'] as const
export type Environment = (typeof ENVIRONMENTS)[number]

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const

/** scrypt's cost (log2 of N) for new password hashes in production, and the default (web/passwords.ts). */
export const PASSWORD_HASH_COST = 15

interface Setting<T> {
  env: string
  doc: string
  default: string | undefined
  parse: (raw: string) => T
  /**
   * The value may hold a credential: a `secret` (a token) or a `url` (its password). An error then names the
   * variable and the problem and never echoes the value (a `url`'s problem may quote its scheme, host or port).
   */
  sensitive?: 'secret' | 'url'
}

function setting<T>(s: Setting<T>): Setting<T> {
  return s
}

function oneOf<T extends string>(values: readonly T[]) {
  return (raw: string): T => {
    if (!(values as readonly string[]).includes(raw)) throw new Error(`must be one of ${values.join(', ')}`)
    return raw as T
  }
}

function port(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > 65535) throw new Error('must be a port number 1–65535')
  return Number(raw)
}

function instant(raw: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.exec(raw)
  const date = new Date(raw)
  // Date rolls impossible days over (2030-02-30 becomes 2030-03-02); refuse them instead.
  const real = m !== null && new Date(Date.UTC(+m[1]!, +m[2]! - 1, +m[3]!)).getUTCDate() === +m[3]!
  if (!real || Number.isNaN(date.getTime())) throw new Error('must be an ISO 8601 instant such as 2030-12-05T00:00:00Z')
  return date
}

function httpUrl(raw: string): string {
  checkUrl(raw, { schemes: ['http:', 'https:'], expected: 'an absolute http(s) URL' })
  return raw.replace(/\/+$/, '')
}

function positiveInt(raw: string): number {
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw)))
    throw new Error('must be a positive integer')
  return Number(raw)
}

function nonNegativeInt(raw: string): number {
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) throw new Error('must be a whole number (0 or more)')
  return Number(raw)
}

function origin(raw: string): string {
  const url = new URL(httpUrl(raw))
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new Error('must be an origin such as https://api.example.com (no user:password@, no path)')
  }
  return url.origin
}

function origins(raw: string): string[] {
  const list = raw
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
  if (list.length === 0) throw new Error('must list at least one origin')
  return list.map((o) => {
    if (o === '*') throw new Error('must list origins, not *')
    return origin(o)
  })
}

function webhookSecret(raw: string): string {
  const body = raw.startsWith('whsec_') ? raw.slice('whsec_'.length) : raw
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(body) || Buffer.from(body, 'base64').length < 24)
    throw new Error('must be whsec_ followed by at least 24 base64-encoded bytes')
  return raw
}

function redisUrl(raw: string): string {
  checkUrl(raw, {
    schemes: ['redis:', 'rediss:'],
    expected: 'redis://[[user]:password@]host[:port][/db] or rediss://…',
  })
  return raw
}

function mailUrl(raw: string): string {
  if (/^file:.+/.test(raw)) return raw
  checkUrl(raw, { schemes: ['smtp:', 'smtps:'], expected: 'smtp://[user:password@]host[:port], smtps://… or file:DIR' })
  return raw
}

function databaseUrl(raw: string): string {
  parseDatabaseUrl(raw)
  return raw
}

/** A bearer token: it travels in an `Authorization` header, which carries visible ASCII without spaces. */
function token(raw: string): string {
  if (!/^[\x21-\x7e]+$/.test(raw))
    throw new Error('must be visible ASCII characters without spaces (it is sent as a Bearer token)')
  return raw
}

/** `http://HOST:PORT` of the pets listener: the public URL when none is configured (outside production). */
function listenerOrigin(host: string, port: number): string {
  const name = host === '0.0.0.0' || host === '::' ? 'localhost' : host.includes(':') ? `[${host}]` : host
  return `http://${name}:${port}`
}

/** Whether mail goes to a real server (not to files): production sends the portal's mail only that way. */
const sendsRealMail = (url: string | undefined): boolean => url !== undefined && /^smtps?:/.test(url)

/**
 * `false`, a hop count, or a comma-separated list of proxy addresses and CIDR ranges: what Fastify's `trustProxy`
 * takes (`true`, trusting anyone to say who the client is, is refused).
 */
function trustProxy(raw: string): false | number | string[] {
  if (raw === 'false') return false
  if (/^\d+$/.test(raw)) return positiveInt(raw)
  return parseNetworkList(raw, 'false, a hop count, or ')
}

const UNIT_MS = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000 } as const

/** `5s,5m,30m,2h`: a list of positive durations, in ms. */
function durations(raw: string): number[] {
  return raw.split(',').map((entry) => {
    const m = /^\s*(\d+)(ms|s|m|h)\s*$/.exec(entry)
    if (!m || Number(m[1]) === 0)
      throw new Error(`must be a comma-separated list of durations such as 5s,5m,2h ("${entry}" is not one)`)
    return Number(m[1]) * UNIT_MS[m[2] as keyof typeof UNIT_MS]
  })
}

function nonEmpty(raw: string): string {
  if (raw.trim() === '') throw new Error('must not be empty')
  return raw
}

export const settings = {
  host: setting({ env: 'HOST', default: '127.0.0.1', doc: 'Address the HTTP listener binds to.', parse: nonEmpty }),
  port: setting({
    env: 'PORT',
    default: '8080',
    doc: 'Port of the pet store API (base URL `http://HOST:PORT/v1`).',
    parse: port,
  }),
  messagesPort: setting({
    env: 'MESSAGES_PORT',
    default: '8081',
    doc: 'Port of the messages interface (base URL `http://HOST:MESSAGES_PORT`).',
    parse: port,
  }),
  databaseUrl: setting({
    env: 'DATABASE_URL',
    default: './data/petstore.db',
    doc:
      'Database location. A plain path, or a `file:` or `sqlite:` URL (`file:/var/lib/petstore/petstore.db`, ' +
      '`file:./data/p.db`) selects SQLite (a command refuses a path that names no database, except `migrate`, ' +
      '`accounts create`, `operators create` and `serve` at this default path or with `--create`, which create it ' +
      'and its folder); `:memory:` is a throw-away database; ' +
      '`postgres://user:password@host:5432/db` selects PostgreSQL.',
    parse: databaseUrl,
    sensitive: 'url',
  }),
  databasePoolSize: setting({
    env: 'DATABASE_POOL_SIZE',
    default: '10',
    doc: 'PostgreSQL: connections in the pool (per process).',
    parse: positiveInt,
  }),
  databasePipelinedConnections: setting({
    env: 'DATABASE_PIPELINED_CONNECTIONS',
    default: '2',
    doc:
      'PostgreSQL: connections (per process, besides the pool) that carry the hot reads pipelined, every read of ' +
      "a turn in one write, and as many again for the grouped writes, each turn's in one transaction; 0 sends both " +
      'through the pool.',
    parse: nonNegativeInt,
  }),
  databaseTimeoutMs: setting({
    env: 'DATABASE_TIMEOUT_MS',
    default: '5000',
    doc:
      'PostgreSQL: longest wait for one statement (`statement_timeout`; on a silent network the client gives up ' +
      '500 ms later and drops the connection). A request then gets 503.',
    parse: positiveInt,
  }),
  keyCacheTtlMs: setting({
    env: 'KEY_CACHE_TTL_MS',
    default: '1000',
    doc:
      'PostgreSQL: how long a server may reuse an API key look-up. Revoking, rolling or a plan change reaches ' +
      'every server at once (LISTEN/NOTIFY); this is the bound if that channel failed silently. While the channel is ' +
      'down nothing is reused. `0`: look every key up on every request.',
    parse: nonNegativeInt,
  }),
  sqliteCacheMb: setting({
    env: 'SQLITE_CACHE_MB',
    default: '2',
    doc:
      "SQLite: page cache of each process's connection, in MiB. Pages outside it are read again from the " +
      "operating system's file cache.",
    parse: positiveInt,
  }),
  redisUrl: setting({
    env: 'REDIS_URL',
    default: undefined,
    doc:
      '`redis://…`: keep rate-limit counters and bans in Redis, shared by every instance. Unset: in this ' +
      "process's memory.",
    parse: redisUrl,
    sensitive: 'url',
  }),
  redisTimeoutMs: setting({
    env: 'REDIS_TIMEOUT_MS',
    default: '50',
    doc:
      'How long Redis may stay silent on a rate-limit command, counted only while this process is free to read ' +
      'the answer (a busy process is not a silent Redis; 20 × this, at least 1 s, at most); past it that request, ' +
      'and every one after it until Redis answers a background probe, is limited per process.',
    parse: positiveInt,
  }),
  redisPrefix: setting({
    env: 'REDIS_PREFIX',
    default: 'petstore:',
    doc: 'Prefix of every Redis key.',
    parse: nonEmpty,
  }),
  fallbackDivisor: setting({
    env: 'RATE_LIMIT_FALLBACK_DIVISOR',
    default: '3',
    doc:
      'While Redis is unreachable each instance limits alone, at quota ÷ this (set it to your instance count); ' +
      'each of its worker processes takes an equal part of that.',
    parse: positiveInt,
  }),
  workers: setting({
    env: 'PETSTORE_WORKERS',
    default: '1',
    doc: 'Processes to run on this machine (node:cluster). More than 1 needs `REDIS_URL`, so the quota stays one.',
    parse: positiveInt,
  }),
  trustProxy: setting({
    env: 'TRUST_PROXY',
    default: 'false',
    doc:
      'Proxies in front of the service whose `X-Forwarded-For` is believed: a hop count, or addresses/CIDRs ' +
      "(`10.0.0.0/8,127.0.0.1`). Then per-address limits, logs and the `/metrics` guard use the client's address; " +
      "`false`: the connection's.",
    parse: trustProxy,
  }),
  metricsToken: setting({
    env: 'METRICS_TOKEN',
    default: undefined,
    doc: 'If set, `GET /metrics` needs `Authorization: Bearer <token>`; if unset it answers only clients on loopback.',
    parse: token,
    sensitive: 'secret',
  }),
  environment: setting({
    env: 'PETSTORE_ENV',
    default: 'development',
    doc:
      '`production`, `staging` or `development`. Production accepts only `ps_live_` keys and never creates a ' +
      'local account.',
    parse: oneOf(ENVIRONMENTS),
  }),
  getPetSunset: setting({
    env: 'PETSTORE_GETPET_SUNSET',
    default: '2030-12-05T00:00:00Z',
    doc:
      'Instant (any, past ones included) from which the deprecated `GET /v1/pets/{petId}` answers 410 (sent in ' +
      'its `Sunset` header).',
    parse: instant,
  }),
  getPetDeprecatedAt: setting({
    env: 'PETSTORE_GETPET_DEPRECATED_AT',
    default: '2026-11-21T00:00:00Z',
    doc:
      'Instant `GET /v1/pets/{petId}` was deprecated (sent in its `Deprecation` header); must not be after the ' +
      'sunset. Unset: the earlier of the default and the sunset.',
    parse: instant,
  }),
  productionUrl: setting({
    env: 'PETSTORE_PRODUCTION_URL',
    default: 'https://api.petstore.example/v1',
    doc: 'Production base URL, listed in the OpenAPI `servers`.',
    parse: httpUrl,
    sensitive: 'url',
  }),
  stagingUrl: setting({
    env: 'PETSTORE_STAGING_URL',
    default: 'https://staging.api.petstore.example/v1',
    doc: 'Staging base URL, listed in the OpenAPI `servers`.',
    parse: httpUrl,
    sensitive: 'url',
  }),
  publicUrl: setting({
    env: 'PETSTORE_PUBLIC_URL',
    default: undefined,
    doc:
      'Origin (`https://host[:port]`) people and clients use to reach the service, e.g. behind a proxy: every ' +
      "absolute link (API `Link` headers, links in the portal's mail), the portal's origin check and its `Secure` " +
      "cookies come from it, never from the request's `Host` or `X-Forwarded-*`. Required in production when the " +
      "portal is on. Unset elsewhere: the listener's own `http://HOST:PORT` (`localhost` for a wildcard HOST).",
    parse: origin,
    sensitive: 'url',
  }),
  hstsIncludeSubdomains: setting({
    env: 'HSTS_INCLUDE_SUBDOMAINS',
    default: 'off',
    doc:
      '`on`: the `Strict-Transport-Security` header every answer carries when `PETSTORE_PUBLIC_URL` is https also ' +
      'says `includeSubDomains` (only if every subdomain of that host is served over https). `off`: that host alone.',
    parse: (raw: string) => oneOf(['on', 'off'] as const)(raw) === 'on',
  }),
  unauthenticatedPerMinute: setting({
    env: 'RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE',
    default: '60',
    doc:
      'Requests per minute per client address for requests without a valid key (401s, unknown paths), so key ' +
      'guessing is throttled.',
    parse: positiveInt,
  }),
  banThreshold: setting({
    env: 'RATE_LIMIT_BAN_THRESHOLD',
    default: '30',
    doc: 'Refused (429) requests a key may send within one minute window; the next one starts a temporary ban.',
    parse: positiveInt,
  }),
  banSeconds: setting({
    env: 'RATE_LIMIT_BAN_SECONDS',
    default: '900',
    doc: 'Length of a temporary ban, in seconds.',
    parse: positiveInt,
  }),
  messagesSink: setting({
    env: 'MESSAGES_SINK',
    default: 'log',
    doc: 'Where queued messages are delivered: `log` (one line in the service log) or `webhook` (signed HTTP POST).',
    parse: oneOf(['log', 'webhook'] as const),
  }),
  webhookUrl: setting({
    env: 'MESSAGES_WEBHOOK_URL',
    default: undefined,
    doc: 'Receiver of the `webhook` sink (required with it).',
    parse: httpUrl,
    sensitive: 'url',
  }),
  webhookSecret: setting({
    env: 'MESSAGES_WEBHOOK_SECRET',
    default: undefined,
    doc: 'Standard Webhooks signing secret, `whsec_` + base64 (at least 24 bytes; required with the `webhook` sink).',
    parse: webhookSecret,
    sensitive: 'secret',
  }),
  webhookMaxAttempts: setting({
    env: 'MESSAGES_WEBHOOK_MAX_ATTEMPTS',
    default: '8',
    doc: 'Delivery attempts before a message is `failed` (the first one and a retry per step of the schedule).',
    parse: positiveInt,
  }),
  webhookRetrySchedule: setting({
    env: 'MESSAGES_RETRY_SCHEDULE',
    default: '5s,5m,30m,2h,5h,10h,10h',
    doc:
      'Delay before each retry of a failed delivery (`ms`, `s`, `m`, `h`), with full jitter between one step and ' +
      'the one before; past its end the last step repeats.',
    parse: durations,
  }),
  webhookTimeoutMs: setting({
    env: 'MESSAGES_WEBHOOK_TIMEOUT_MS',
    default: '5000',
    doc: 'Time a webhook receiver has to answer one attempt.',
    parse: positiveInt,
  }),
  messagesPollMs: setting({
    env: 'MESSAGES_POLL_MS',
    default: '250',
    doc: 'How often the delivery worker looks for due messages.',
    parse: positiveInt,
  }),
  webhooks: setting({
    env: 'WEBHOOKS',
    default: undefined,
    doc:
      '`on` or `off`: integrators may register webhook endpoints and are sent events ' +
      '(docs/integrators/webhooks.md). Unset: on, except in production without `PETSTORE_SECRETS_KEY`. Off: no ' +
      'webhook routes, pages or deliveries; endpoints already saved are kept, the database goes on recording the ' +
      'events of those left enabled, and every event is purged after `WEBHOOK_RETENTION_DAYS`.',
    parse: oneOf(['on', 'off'] as const),
  }),
  secretsKey: setting({
    env: 'PETSTORE_SECRETS_KEY',
    default: undefined,
    doc:
      "Key that encrypts secrets the service must use again (webhook signing secrets, integrators' authenticator-app " +
      'secrets; AES-256-GCM): 32 random bytes as base64 (`openssl rand -base64 32`); several comma-separated to ' +
      'rotate (the first encrypts). Required in ' +
      'production with webhooks on (without it, integrators cannot add an authenticator app there; passkeys still ' +
      'work); unset elsewhere: a public development key.',
    parse: parseSecretsKeys,
    sensitive: 'secret',
  }),
  eventRetentionDays: setting({
    env: 'WEBHOOK_RETENTION_DAYS',
    default: '30',
    doc: 'Days events and delivery attempts are kept (and listable); older ones are deleted every ten minutes.',
    parse: positiveInt,
  }),
  deliveryTimeoutMs: setting({
    env: 'WEBHOOK_TIMEOUT_MS',
    default: '15000',
    doc: 'Time an endpoint has to answer one delivery attempt with a 2xx (connection and response included).',
    parse: positiveInt,
  }),
  deliveryRetrySchedule: setting({
    env: 'WEBHOOK_RETRY_SCHEDULE',
    default: '5s,5m,30m,2h,5h,10h,10h',
    doc:
      'Delay before each retry of a failed event delivery, with jitter; one attempt plus one per step (eight over ' +
      'about 27 hours by default).',
    parse: durations,
  }),
  endpointDisableAfterMs: setting({
    env: 'WEBHOOK_DISABLE_AFTER',
    default: '5d',
    doc: 'An endpoint whose every attempt has failed for this long is disabled and its account mailed (`h`, `d`).',
    parse: (raw: string) => {
      const m = /^(\d+)(h|d)$/.exec(raw)
      if (!m || Number(m[1]) === 0) throw new Error('must be a duration in hours or days such as 5d or 36h')
      return Number(m[1]) * (m[2] === 'd' ? 86_400_000 : 3_600_000)
    },
  }),
  deliveryAllowedNetworks: setting({
    env: 'WEBHOOK_ALLOWED_NETWORKS',
    default: undefined,
    doc:
      'Addresses and CIDRs webhook deliveries may reach although private, loopback or otherwise refused ' +
      '(`10.20.0.0/16`). Unset: none, except loopback outside production (for testing locally).',
    parse: (raw: string) => parseNetworkList(raw),
  }),
  corsOrigins: setting({
    env: 'CORS_ORIGINS',
    default: undefined,
    doc:
      'Comma-separated origins (`https://app.example.com`) whose pages may call the API from a browser (CORS). ' +
      'Unset: none.',
    parse: origins,
    sensitive: 'url',
  }),
  requestTimeoutMs: setting({
    env: 'REQUEST_TIMEOUT_MS',
    default: '30000',
    doc: 'Time a client has to send a whole request (headers and body); a slower one gets 408 `request_timeout`.',
    parse: positiveInt,
  }),
  portal: setting({
    env: 'PORTAL',
    default: undefined,
    doc:
      '`on` or `off`: the developer portal under `/portal`. Unset: `on` outside production; in production `on` ' +
      'only when `MAIL_URL` is an SMTP URL.',
    parse: oneOf(['on', 'off'] as const),
  }),
  console: setting({
    env: 'CONSOLE',
    default: undefined,
    doc:
      '`on` or `off`: the operator console under `/console`. Unset: on wherever the portal is on. `on` runs it with ' +
      'the portal off too (a private console; see `CONSOLE_PORT`).',
    parse: oneOf(['on', 'off'] as const),
  }),
  consolePort: setting({
    env: 'CONSOLE_PORT',
    default: undefined,
    doc:
      "A listener of the console's own, on `CONSOLE_HOST`; `/console` is then not served on `PORT` at all. Unset: " +
      'the console is under `/console` on the API listener.',
    parse: port,
  }),
  consoleHost: setting({
    env: 'CONSOLE_HOST',
    default: '127.0.0.1',
    doc: "Address the console's own listener (`CONSOLE_PORT`) binds to.",
    parse: nonEmpty,
  }),
  consolePublicUrl: setting({
    env: 'CONSOLE_PUBLIC_URL',
    default: undefined,
    doc:
      'Origin operators open the console at: its set-up links, its origin check and its `Secure` cookies. Unset: ' +
      '`PETSTORE_PUBLIC_URL` on the API listener; `http://CONSOLE_HOST:CONSOLE_PORT` on its own listener.',
    parse: origin,
    sensitive: 'url',
  }),
  consoleAllowedNetworks: setting({
    env: 'CONSOLE_ALLOWED_NETWORKS',
    default: undefined,
    doc:
      "Addresses and CIDRs (`10.0.0.0/8,192.168.1.7`) that may reach the console, matched against the client's " +
      "address after `TRUST_PROXY`; anyone else gets the API's 404. Unset: every address.",
    parse: (raw: string) => parseNetworkList(raw),
  }),
  portalSignup: setting({
    env: 'PORTAL_SIGNUP',
    default: 'open',
    doc:
      '`open`: anyone may sign up in the portal. `closed`: the sign-up page says so, and operators create accounts ' +
      'in the console, which mails their owners a link to choose a password.',
    parse: oneOf(['open', 'closed'] as const),
  }),
  portalSudoSeconds: setting({
    env: 'PORTAL_SUDO_SECONDS',
    default: '900',
    doc:
      'How long a portal session may make sensitive changes (keys, webhook endpoints, address, password, second ' +
      'factors, deletion) after its person last confirmed it was them with a passkey, a code or the password.',
    parse: positiveInt,
  }),
  mailUrl: setting({
    env: 'MAIL_URL',
    default: undefined,
    doc:
      "How the portal's mail goes out: `smtp://user:pass@host:port`, `smtps://…`, or `file:DIR` (one `.eml` file " +
      'per message). Unset: `file:./data/outbox` outside production.',
    parse: mailUrl,
    sensitive: 'url',
  }),
  portalMaxKeys: setting({
    env: 'PORTAL_MAX_KEYS',
    default: '25',
    doc:
      'Active (not revoked, not expired) keys an account may have; the portal and `keys create` refuse more (the ' +
      'CLI unless `--force`).',
    parse: positiveInt,
  }),
  passwordHashCost: setting({
    env: 'PASSWORD_HASH_COST',
    default: String(PASSWORD_HASH_COST),
    doc:
      'scrypt cost of new portal and console password hashes, as log2 of N (15: N = 32768, 32 MiB and about 0.1 s ' +
      'of a core), 4 to 17. Lower than 15 is refused in production (it is for tests). Each hash keeps its own ' +
      'parameters, so a change never invalidates a password.',
    parse: (raw: string) => {
      const cost = positiveInt(raw)
      if (cost < 4 || cost > 17) throw new Error("must be from 4 to 17 (log2 of scrypt's N)")
      return cost
    },
  }),
  auditRetentionDays: setting({
    env: 'AUDIT_RETENTION_DAYS',
    default: '365',
    doc:
      'Days an audit log entry is kept; the running service deletes older ones (at start and every hour). Nothing ' +
      'else deletes or changes an entry.',
    parse: positiveInt,
  }),
  mailFrom: setting({
    env: 'MAIL_FROM',
    default: 'Petstore <no-reply@petstore.example>',
    doc: "Sender (`From`) of the portal's mail.",
    parse: nonEmpty,
  }),
  logLevel: setting({
    env: 'LOG_LEVEL',
    default: 'info',
    doc: 'pino log level (`silent` turns logging off).',
    parse: oneOf(LOG_LEVELS),
  }),
  logFormat: setting({
    env: 'LOG_FORMAT',
    default: 'json',
    doc:
      '`json`: one JSON object a line on stdout (pino). `pretty`: coloured, readable lines (pino-pretty), refused ' +
      'in production.',
    parse: oneOf(['json', 'pretty'] as const),
  }),
  messagesLogText: setting({
    env: 'MESSAGES_LOG_TEXT',
    default: 'off',
    doc:
      "`on`: the `log` sink writes each message's text. `off`: only its id and length (customer content stays out " +
      'of the log).',
    parse: (raw: string) => oneOf(['on', 'off'] as const)(raw) === 'on',
  }),
}

type Settings = typeof settings
type Parsed = { [K in keyof Settings]: ReturnType<Settings[K]['parse']> }
/** Settings without a default may be absent. */
type Optional =
  | 'webhookUrl'
  | 'webhookSecret'
  | 'redisUrl'
  | 'metricsToken'
  | 'corsOrigins'
  | 'mailUrl'
  | 'consolePort'
  | 'consoleAllowedNetworks'
  | 'secretsKey'
  | 'deliveryAllowedNetworks'
/** `portal` is resolved from PORTAL, the environment and MAIL_URL; `console` from it and CONSOLE (see loadConfig). */
export type Config = Omit<Parsed, Optional | 'portal' | 'console' | 'webhooks'> & {
  [K in Optional]: Parsed[K] | undefined
} & {
  portal: boolean
  console: boolean
  webhooks: boolean
}

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Reads every setting from `env`; throws one ConfigError naming every bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, overrides: Partial<Config> = {}): Config {
  const problems: string[] = []
  const config: Record<string, unknown> = {}
  for (const [key, s] of Object.entries(settings) as [string, Setting<unknown>][]) {
    const raw = env[s.env] === undefined || env[s.env] === '' ? s.default : env[s.env]
    if (raw === undefined) {
      config[key] = undefined
      continue
    }
    try {
      config[key] = s.parse(raw)
    } catch (error) {
      const problem = (error as Error).message
      problems.push(s.sensitive ? `${s.env}: ${problem}` : `${s.env}=${JSON.stringify(raw)}: ${problem}`)
    }
  }
  const resolved = config as Omit<Config, 'portal' | 'console' | 'webhooks'> & {
    portal: 'on' | 'off' | undefined
    console: 'on' | 'off' | undefined
    webhooks: 'on' | 'off' | undefined
  }
  if (resolved.mailUrl === undefined && resolved.environment !== 'production') resolved.mailUrl = 'file:./data/outbox'
  if (
    problems.length === 0 &&
    resolved.portal === 'on' &&
    resolved.environment === 'production' &&
    !sendsRealMail(resolved.mailUrl)
  ) {
    problems.push(
      'PORTAL=on in production needs MAIL_URL set to an smtp:// or smtps:// URL (the portal mails verification and ' +
        'reset links)',
    )
  }
  const portal =
    resolved.portal === undefined
      ? resolved.environment !== 'production' || sendsRealMail(resolved.mailUrl)
      : resolved.portal === 'on'
  if (
    problems.length === 0 &&
    portal &&
    resolved.environment === 'production' &&
    resolved.publicUrl === undefined &&
    overrides.publicUrl === undefined
  ) {
    // The portal mails links; in production they must never be built from anything a request carries.
    problems.push(
      `the portal is on in production (PORTAL=${resolved.portal ?? 'unset, on because MAIL_URL is SMTP'}) and needs ` +
        `PETSTORE_PUBLIC_URL, the origin its mailed links and cookies are for`,
    )
  }
  // The console runs where the portal runs unless CONSOLE says otherwise: `on` runs it alone too (a private console).
  const consoleOn = resolved.console === undefined ? portal : resolved.console === 'on'
  // Webhooks run where their secrets can be sealed with a key of the operator's: in production only with one.
  const webhooks =
    resolved.webhooks === undefined
      ? resolved.environment !== 'production' || resolved.secretsKey !== undefined
      : resolved.webhooks === 'on'
  const result: Config = { ...resolved, portal, console: consoleOn, webhooks, ...overrides }
  problems.push(...consoleProblems(result, resolved, env))
  if (problems.length === 0) result.publicUrl ??= listenerOrigin(result.host, result.port)
  if (problems.length === 0 && result.consolePublicUrl === undefined)
    result.consolePublicUrl =
      result.consolePort === undefined ? result.publicUrl : listenerOrigin(result.consoleHost, result.consolePort)
  // A sunset alone may be any instant, past ones included: the deprecation date then defaults to the earlier of
  // its default and the sunset. Only a deprecation date that was set, and is after the sunset, is a mistake.
  const deprecationSet = !!env[settings.getPetDeprecatedAt.env] || overrides.getPetDeprecatedAt !== undefined
  if (problems.length === 0 && !deprecationSet && result.getPetDeprecatedAt > result.getPetSunset)
    result.getPetDeprecatedAt = result.getPetSunset
  if (problems.length === 0 && result.getPetDeprecatedAt > result.getPetSunset) {
    problems.push(
      `PETSTORE_GETPET_DEPRECATED_AT (${result.getPetDeprecatedAt.toISOString()}) must not be after ` +
        `PETSTORE_GETPET_SUNSET (${result.getPetSunset.toISOString()}) (RFC 8594)`,
    )
  }
  if (problems.length === 0 && result.messagesSink === 'webhook' && (!result.webhookUrl || !result.webhookSecret)) {
    problems.push('MESSAGES_SINK=webhook needs MESSAGES_WEBHOOK_URL and MESSAGES_WEBHOOK_SECRET')
  }
  if (
    problems.length === 0 &&
    resolved.webhooks === 'on' &&
    result.environment === 'production' &&
    !result.secretsKey
  ) {
    problems.push(
      "WEBHOOKS=on in production needs PETSTORE_SECRETS_KEY, the key the endpoints' signing secrets are " +
        'encrypted with (`openssl rand -base64 32`; keep it apart from the database backups)',
    )
  }
  if (problems.length === 0 && result.workers > 1 && !result.redisUrl) {
    problems.push(
      'PETSTORE_WORKERS > 1 needs REDIS_URL: with in-memory counters each worker would allow the whole quota',
    )
  }
  if (problems.length === 0 && result.logFormat === 'pretty' && result.environment === 'production') {
    problems.push('LOG_FORMAT=pretty is for development: production logs are JSON lines (LOG_FORMAT=json)')
  }
  if (problems.length === 0 && result.passwordHashCost < PASSWORD_HASH_COST && result.environment === 'production') {
    problems.push(
      `PASSWORD_HASH_COST=${result.passwordHashCost} is for tests: production hashes ` +
        `passwords at ${PASSWORD_HASH_COST} (N = 2^${PASSWORD_HASH_COST}) or more`,
    )
  }
  if (problems.length === 0 && result.port === result.messagesPort) problems.push('PORT and MESSAGES_PORT must differ')
  if (problems.length === 0 && [result.port, result.messagesPort].includes(result.consolePort ?? 0))
    problems.push('CONSOLE_PORT must differ from PORT and MESSAGES_PORT')
  if (problems.length > 0) throw new ConfigError(problems)
  return result
}

/** What the console's settings cannot be together (none when the console is off and none of them is set). */
function consoleProblems(
  config: Config,
  resolved: { console: 'on' | 'off' | undefined; publicUrl?: string },
  env: NodeJS.ProcessEnv,
): string[] {
  const own = ['CONSOLE_PORT', 'CONSOLE_PUBLIC_URL', 'CONSOLE_ALLOWED_NETWORKS'].filter((name) => !!env[name])
  if (!config.console) {
    return own.length === 0
      ? []
      : [`${own.join(', ')} set, but the console is off (CONSOLE=${resolved.console ?? 'unset and the portal off'})`]
  }
  // Production: set-up links and the console's cookies must never be built from what a request carries.
  const origin = config.consolePublicUrl ?? config.consolePort ?? resolved.publicUrl ?? config.publicUrl
  if (config.environment === 'production' && origin === undefined)
    return ['the console is on in production and needs CONSOLE_PUBLIC_URL or PETSTORE_PUBLIC_URL (or CONSOLE_PORT)']
  return []
}
