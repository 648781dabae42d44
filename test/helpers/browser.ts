// Debian's chromium driven by playwright-core (which downloads no browser). A missing chromium fails the
// test with the install command: CI installs it (`.ci/run`), and a browser test must never skip silently.
import assert from 'node:assert/strict'
import { existsSync, mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { chromium, type Browser, type Page } from 'playwright-core'
import { emailKeyOf } from '../../src/kernel/email-address.js'
import type { Harness } from './harness.js'
import { linkIn, mails } from './portal.js'

const CHROMIUM = '/usr/bin/chromium'
const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/**
 * `extraArgs`: more switches, e.g. `--host-resolver-rules=MAP sdk.test 127.0.0.1` for a host name of the test's
 * own.
 */
export async function launchChromium(
  t: { after: (fn: () => Promise<void>) => void },
  extraArgs: string[] = [],
): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(
      `${CHROMIUM} is missing: install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does)`,
    )
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: [...ARGS, ...extraArgs] })
  t.after(() => browser.close())
  return browser
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

/** axe-core's serious and critical violations on the page (run through the DevTools protocol, past our CSP). */
export async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(await axeSource)
  const violations = await page.evaluate(async () => {
    const result = await (
      globalThis as unknown as {
        axe: {
          run: () => Promise<{
            violations: { id: string; impact: string; help: string; nodes: { target: string[] }[] }[]
          }>
        }
      }
    ).axe.run()
    return result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    }))
  })
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.targets.join(', ')}`)
}

/** Screenshots for the README, written only when PORTAL_SCREENSHOTS names a folder (so CI leaves the tree clean). */
export async function screenshot(page: Page, name: string): Promise<void> {
  const dir = process.env.PORTAL_SCREENSHOTS
  if (!dir) return
  mkdirSync(dir, { recursive: true })
  await page.screenshot({ path: join(dir, `${name}.png`), fullPage: true })
}

/** The widths the portal's pages are checked at: a desktop window and a phone. */
export const VIEWPORTS = [
  { suffix: 'desktop', width: 1100, height: 800 },
  { suffix: 'phone', width: 375, height: 800 },
] as const

/**
 * At both widths: nothing scrolls sideways, axe is clean, a screenshot each (`name-desktop`, `name-phone`). Ends at
 * desktop width.
 */
export async function checkBothWidths(page: Page, name: string): Promise<void> {
  for (const viewport of VIEWPORTS) {
    await page.setViewportSize({ width: viewport.width, height: viewport.height })
    const where = `${name} at ${viewport.width} px`
    await screenshot(page, `${name}-${viewport.suffix}`)
    const width = (await page.evaluate('document.documentElement.scrollWidth')) as number
    assert.ok(width <= viewport.width, `${where}: nothing scrolls sideways (scrollWidth ${width})`)
    assert.deepEqual(await seriousViolations(page), [], `axe on ${where}`)
  }
  await page.setViewportSize(VIEWPORTS[0])
}

/**
 * Signs up in the page, opens the mailed verification link (its path, on this listener) and confirms it, then logs
 * in if verifying did not leave the browser signed in. Returns the account id the sign-up made.
 */
export async function signUpInBrowser(
  page: Page,
  h: Pick<Harness, 'baseUrl' | 'app' | 'services' | 'handle'>,
  outbox: string,
  email: string,
  password: string,
): Promise<string> {
  const base = h.baseUrl
  await page.goto(`${base}/portal/signup`)
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill(password)
  await page.getByRole('button', { name: 'Create account' }).click()
  await page.getByRole('heading', { name: 'Check your email' }).waitFor()
  const link = new URL(
    linkIn((await mails(h, outbox)).findLast((m) => m.includes('/portal/verify'))!, '/portal/verify'),
  )
  await page.goto(base + link.pathname + link.search)
  await page.getByRole('button', { name: 'Verify email address' }).click()
  await page.getByRole('heading', { name: 'Address verified' }).waitFor()
  if (!(await page.getByRole('button', { name: 'Log out' }).isVisible())) {
    await page.goto(`${base}/portal/login`)
    await page.getByLabel('Email').fill(email)
    await page.getByLabel('Password').fill(password)
    await page.getByRole('button', { name: 'Log in' }).click()
    await page.getByRole('button', { name: 'Log out' }).waitFor()
  }
  const row = await h.handle.db
    .selectFrom('portal_users')
    .select('account_id')
    .where('email_key', '=', emailKeyOf(email))
    .executeTakeFirstOrThrow()
  return row.account_id
}

/** What goes wrong in a page while a test drives it (an uncaught error, a CSP refusal): assert it stays empty. */
export function pageProblems(page: Page): string[] {
  const problems: string[] = []
  page.on('pageerror', (error) => void problems.push(`uncaught: ${error.message}`))
  page.on(
    'console',
    (message) => void (/Content Security Policy/i.test(message.text()) && problems.push(message.text())),
  )
  return problems
}
