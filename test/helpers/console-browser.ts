// The operator console in Chromium, as an operator meets it: an app listening on a real port over a database the
// real CLI can reach too (a SQLite file, or a PostgreSQL schema with Redis), an operator created by
// `petstore operators create`, set up on the setup page (the TOTP secret read from the page as text, codes computed
// with otpauth as an authenticator app does), and logged in through the log-in form. The app's clock is a manual
// clock started at the real time (the CLI's setup link lives 24 real hours); tests move it 30 s to get a fresh code.
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import * as OTPAuth from 'otpauth'
import type { Browser, BrowserContext, Page } from 'playwright-core'
import { keyEnvironment } from '../../src/modules/accounts/api-keys.js'
import { createManualClock } from '../../src/kernel/clock.js'
import { loadConfig } from '../../src/kernel/config.js'
import { openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrate.js'
import type { RateLimitStore } from '../../src/modules/limits/rate-limit.store.js'
import { buildMessagesApp } from '../../src/main/messages-app.js'
import { testActor } from './actors.js'
import { backend, migratedPostgresSchema, redisStore } from './backend.js'
import { screenshot, seriousViolations } from './browser.js'
import { runCli, type CliResult } from './cli.js'
import { OPERATOR_PASSWORD } from './console.js'
import { testPasswordCost, type Harness } from './harness.js'
import { newOutbox, removeOutbox } from './portal.js'
import { freePort } from './serve.js'
import { appWithServices } from './app-with-services.js'

type After = { after: (fn: () => Promise<void>) => void }

interface ConsoleBrowserHarness extends Harness {
  outbox: string
  /** The database the app and the CLI share (a file path, or a PostgreSQL URL with its own schema). */
  databaseUrl: string
  /** Runs the real CLI on this database, with PETSTORE_PUBLIC_URL = the listener (links point here). */
  cli: (args: string[]) => Promise<CliResult>
  /** A `--json` CLI command that must succeed: the object it printed. */
  cliJson: <T = Record<string, any>>(args: string[]) => Promise<T>
}

export async function consoleBrowserHarness(
  t: After,
  env: Record<string, string> = {},
): Promise<ConsoleBrowserHarness> {
  // Registered first, so it runs before the schema is dropped and the folders removed (hooks run in order).
  const closers: Array<() => Promise<void>> = []
  t.after(async () => {
    for (const close of closers) await close()
  })
  const outbox = await newOutbox()
  const dir = await mkdtemp(join(tmpdir(), 'petstore-console-'))
  let databaseUrl: string
  let rateLimitStore: RateLimitStore | undefined
  let redisUrl: string | undefined
  if (backend === 'postgres') {
    databaseUrl = await migratedPostgresSchema(t)
    rateLimitStore = await redisStore(t)
    redisUrl = process.env.TEST_REDIS_URL
  } else {
    databaseUrl = join(dir, 'petstore.db')
  }
  const handle = backend === 'postgres' ? openDatabase(databaseUrl, { poolSize: 4 }) : openDatabase(databaseUrl)
  await migrateToLatest(handle.db)
  const port = await freePort()
  const config = loadConfig(
    { LOG_LEVEL: 'silent', ...testPasswordCost({ env }), PORT: String(port), MAIL_URL: `file:${outbox}`, ...env },
    { databaseUrl, ...(redisUrl ? { redisUrl } : {}) },
  )
  const clock = createManualClock(Date.now())
  const { app, services } = await appWithServices({
    config,
    db: handle.db,
    pool: handle.pool,
    reads: handle.reads,
    engine: handle.engine,
    clock,
    rateLimitStore,
    logger: false,
  })
  await app.listen({ host: '127.0.0.1', port })
  const baseUrl = `http://127.0.0.1:${port}`
  closers.push(
    () => app.close(),
    () => services.close(),
    async () => rateLimitStore?.close(),
    () => handle.close(),
    () => removeOutbox(outbox),
    () => rm(dir, { recursive: true, force: true }),
  )
  const cliEnv = { DATABASE_URL: databaseUrl, PETSTORE_PUBLIC_URL: baseUrl, MAIL_URL: `file:${outbox}` }
  const cli = (args: string[]) => runCli(args, cliEnv)
  return {
    app,
    services,
    handle,
    config,
    clock,
    baseUrl,
    outbox,
    databaseUrl,
    cli,
    async cliJson<T>(args: string[]) {
      const r = await cli([...args, '--json'])
      assert.equal(r.code, 0, `petstore ${args.join(' ')} failed: ${r.stderr}`)
      return JSON.parse(r.stdout) as T
    },
    async newAccount(input = {}) {
      const account = await services.accounts.createAccount({
        actor: testActor,
        name: input.name ?? 'test',
        plan: input.plan ?? 'free',
        perMinute: input.perMinute,
        perDay: input.perDay,
      })
      const key = await services.accounts.createApiKey({
        actor: testActor,
        accountId: account.id,
        environment: keyEnvironment(config.environment),
      })
      return { accountId: account.id, keyId: key.id, key: key.key }
    },
  }
}

/** The messages interface on the same database (its own services: it reads every key from the database). */
export async function messagesApp(t: After, h: ConsoleBrowserHarness): Promise<FastifyInstance> {
  const app = await buildMessagesApp({ config: h.config, db: h.handle.db, clock: h.clock, logger: false })
  t.after(() => app.close())
  return app
}

/** What an authenticator app shows for `secret` at `at` (RFC 6238: SHA-1, 6 digits, 30 s). */
export function totp(secret: string, at: number): string {
  return new OTPAuth.TOTP({
    secret: OTPAuth.Secret.fromBase32(secret),
    algorithm: 'SHA1',
    digits: 6,
    period: 30,
  }).generate({ timestamp: at })
}

/** axe-core finds no serious or critical violation; then the screenshot `name` (when PORTAL_SCREENSHOTS is set). */
export async function accessible(page: Page, name: string): Promise<void> {
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`)
  await screenshot(page, name)
}

interface BrowserOperator {
  id: string
  email: string
  password: string
  secret: string
  recoveryCodes: string[]
  context: BrowserContext
  page: Page
}

/** `petstore operators create --email E --role R --json`: the operator and its setup link. */
export async function operatorByCli(h: ConsoleBrowserHarness, email: string, role: 'admin' | 'support') {
  const created = await h.cliJson<{ id: string; email: string; role: string; setUp: boolean; setupLink: string }>([
    'operators',
    'create',
    '--email',
    email,
    '--role',
    role,
  ])
  assert.equal(created.role, role)
  assert.equal(created.setUp, false)
  assert.ok(created.setupLink.startsWith(`${h.baseUrl}/console/setup/`), created.setupLink)
  return created
}

/**
 * Opens the setup link (a password form, no secret on it), sets the password, reads the secret made for this browser
 * (as text, and in the otpauth:// link, which must agree), runs `check` on each form (axe, screenshots) and confirms
 * with the current code; the recovery codes shown.
 */
export async function setUpInBrowser(
  page: Page,
  h: ConsoleBrowserHarness,
  link: string,
  password: string,
  check?: (page: Page, form: 'password' | 'authenticator') => Promise<void>,
) {
  await page.goto(link)
  await page.getByRole('heading', { name: 'Set up your operator account' }).waitFor()
  assert.equal(await page.locator('code.secret').count(), 0, 'the link alone shows no secret')
  await check?.(page, 'password')
  await page.getByLabel('Password', { exact: true }).fill(password)
  await page.getByRole('button', { name: 'Continue' }).click()
  await page.locator('code.secret').waitFor()
  const secret = (await page.locator('code.secret').textContent())!.trim()
  const uri = OTPAuth.URI.parse((await page.locator('code.otpauth-uri').textContent())!.trim())
  assert.ok(uri instanceof OTPAuth.TOTP, 'a TOTP link')
  assert.deepEqual([uri.secret.base32, uri.algorithm, uri.digits, uri.period], [secret, 'SHA1', 6, 30])
  await page.getByRole('img', { name: 'QR code of the authenticator link' }).waitFor()
  await check?.(page, 'authenticator')
  await page.getByLabel('Code', { exact: true }).fill(totp(secret, h.clock.now()))
  await page.getByRole('button', { name: 'Set up' }).click()
  await page.getByRole('heading', { name: 'Save your recovery codes' }).waitFor()
  const recoveryCodes = (await page.getByRole('list', { name: 'Recovery codes' }).locator('li').allInnerTexts()).map(
    (c) => c.trim(),
  )
  assert.equal(recoveryCodes.length, 10)
  return { secret, recoveryCodes }
}

/** Fills the log-in form and sends it (with the mouse); the caller waits for what should follow. */
export async function submitLogIn(
  page: Page,
  h: ConsoleBrowserHarness,
  who: { email: string; password: string },
  code: string,
): Promise<void> {
  await page.goto(`${h.baseUrl}/console/login`)
  await page.getByLabel('Email', { exact: true }).fill(who.email)
  await page.getByLabel('Password', { exact: true }).fill(who.password)
  await page.getByLabel('Code', { exact: true }).fill(code)
  await page.getByRole('button', { name: 'Log in' }).click()
}

/**
 * An operator of `role`, created by the CLI, set up and logged in within its own browser context (the clock moved
 * to the next 30 s step, as a person would wait for a fresh code after setup).
 */
export async function operatorInBrowser(
  browser: Browser,
  h: ConsoleBrowserHarness,
  role: 'admin' | 'support',
  email = `${role}@ops.example`,
): Promise<BrowserOperator> {
  const created = await operatorByCli(h, email, role)
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
  const page = await context.newPage()
  const { secret, recoveryCodes } = await setUpInBrowser(page, h, created.setupLink, OPERATOR_PASSWORD)
  h.clock.advance(30_000)
  await submitLogIn(page, h, { email, password: OPERATOR_PASSWORD }, totp(secret, h.clock.now()))
  await page.getByRole('heading', { name: 'Overview' }).waitFor()
  return { id: created.id, email, password: OPERATOR_PASSWORD, secret, recoveryCodes, context, page }
}

/** Tabs through the page until `target` has the focus (at most `max` presses), asserting it gets there. */
export async function tabTo(page: Page, target: ReturnType<Page['getByRole']>, max = 60): Promise<void> {
  for (let i = 0; i < max; i++) {
    if (
      await target.evaluate(
        (el: { ownerDocument: { activeElement: unknown } }) => el === el.ownerDocument.activeElement,
      )
    )
      return
    await page.keyboard.press('Tab')
  }
  assert.fail(`the keyboard never reached the control after ${max} Tab presses`)
}
