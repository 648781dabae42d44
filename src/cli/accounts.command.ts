import { Argument, Command, InvalidArgumentError, Option } from 'commander'
import { ACCOUNT_NAME_MAX, plainTextProblem } from '../modules/accounts/key-input.js'
import { PLANS } from '../modules/accounts/plans.js'
import type { Account } from '../modules/accounts/accounts.repository.js'
import { cliActor } from './actor.js'
import { callAdmin, serviceUrlOption } from './admin-client.js'
import { output, positiveInteger, withDatabase } from './run.js'
import { ownerEmails } from '../modules/integrators/account-owners.js'

interface QuotaOptions {
  perMinute?: number
  perDay?: number
  json?: boolean
}

function describe(a: Account & { email?: string }): string {
  const quota = a.perMinute === null ? '' : ` (${a.perMinute}/min, ${a.perDay}/day)`
  const state = a.deletedAt ? `  deleted ${a.deletedAt}` : a.suspendedAt ? `  suspended ${a.suspendedAt}` : ''
  const portal = a.email ? `  portal ${a.email}` : ''
  return `${a.id}  ${a.name}  plan ${a.plan}${quota}  created ${a.createdAt}${state}${portal}`
}

/**
 * The rule the API applies to a name (a pet's): 1 to 100 characters, not only white space; plain text, as key names.
 */
function accountName(raw: string): string {
  if (!/\S/.test(raw) || raw.length > ACCOUNT_NAME_MAX)
    throw new InvalidArgumentError(`It must be 1 to ${ACCOUNT_NAME_MAX} characters, not only white space.`)
  const problem = plainTextProblem(raw)
  if (problem) throw new InvalidArgumentError(`It ${problem}.`)
  return raw
}

function quotaOptions(cmd: Command): Command {
  return cmd
    .option('--per-minute <n>', 'requests per minute (enterprise only)', positiveInteger)
    .option('--per-day <n>', 'requests per day (enterprise only)', positiveInteger)
    .option('--json', 'print one JSON object')
}

export function accountsCommand(): Command {
  const accounts = new Command('accounts').description('create, list and change accounts')

  quotaOptions(
    accounts
      .command('create')
      .description('create an account')
      .requiredOption('--name <name>', 'account name (1 to 100 characters, not only white space)', accountName)
      .addOption(new Option('--plan <plan>', 'the plan').choices(PLANS).default('free')),
  ).action((opts: QuotaOptions & { name: string; plan: string }) =>
    withDatabase(
      async ({ accounts }) => {
        const account = await accounts.createAccount({
          name: opts.name,
          plan: opts.plan,
          perMinute: opts.perMinute,
          perDay: opts.perDay,
          actor: cliActor(),
        })
        output(!!opts.json, account, () => `created account ${describe(account)}`)
        // The first account of a new installation may come before anything else: it may start the database.
      },
      { create: true },
    ),
  )

  accounts
    .command('list')
    .description('list all accounts')
    .option('--json', 'print one JSON object')
    .action((opts: { json?: boolean }) =>
      withDatabase(async ({ accounts, handle }) => {
        // Accounts made by the portal's sign-up show their user's address.
        const emails = await ownerEmails(handle.db)
        const list = (await accounts.listAccounts()).map((a) =>
          emails.has(a.id) ? { ...a, email: emails.get(a.id) } : a,
        )
        output(!!opts.json, { accounts: list }, () =>
          list.length === 0 ? 'no accounts' : list.map(describe).join('\n'),
        )
      }),
    )

  quotaOptions(
    accounts
      .command('set-plan')
      .description('change the plan of an account')
      .argument('<id>')
      .addArgument(new Argument('<plan>').choices(PLANS)),
  ).action((id: string, plan: string, opts: QuotaOptions) =>
    withDatabase(async ({ accounts }) => {
      const account = await accounts.setPlan({
        id,
        plan,
        perMinute: opts.perMinute,
        perDay: opts.perDay,
        actor: cliActor(),
      })
      output(!!opts.json, account, () => `updated account ${describe(account)}`)
    }),
  )

  accounts
    .command('usage')
    .description("show an account's current minute and day counts and any bans (asks the running service)")
    .argument('<id>')
    .addOption(serviceUrlOption())
    .option('--json', 'print one JSON object')
    .action((id: string, opts: { url?: string; json?: boolean }) =>
      withDatabase(async (ctx) => {
        await ctx.accounts.getAccount(id)
        const usage = (await callAdmin(ctx, {
          method: 'GET',
          path: `/accounts/${encodeURIComponent(id)}/usage`,
          url: opts.url,
        })) as Usage
        output(!!opts.json, usage, () =>
          [
            `${usage.accountId}  plan ${usage.plan}`,
            ...usage.windows.map(
              (w) => `  ${w.name}: ${w.used}/${w.limit} used, ${w.remaining} left, resets ${w.resetsAt}`,
            ),
            ...(usage.bans.length === 0
              ? ['  no bans']
              : usage.bans.map((b) => `  key ${b.keyId} banned until ${b.until}`)),
          ].join('\n'),
        )
      }),
    )

  return accounts
}

interface Usage {
  accountId: string
  plan: string
  windows: { name: string; limit: number; used: number; remaining: number; resetsAt: string }[]
  bans: { keyId: string; until: string }[]
}
