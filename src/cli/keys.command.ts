import { Command } from 'commander'
import { KeyLimitError, type ApiKeyInfo } from '../accounts/accounts.repository.js'
import { endsAt, shownState } from '../accounts/key-display.js'
import { keyEnvironment } from '../accounts/api-keys.js'
import { callAdmin } from './admin-client.js'
import { output, UsageError, withDatabase } from './run.js'

function describe(k: ApiKeyInfo): string {
  const name = k.name === null ? '' : `  "${k.name}"`
  // A rolled key reads as one (ROLLED, its real end), never "expires never" while it will stop working.
  const ended = k.revokedAt ? `  revoked ${k.revokedAt}` : k.graceEndsAt ? `  rolled (grace until ${k.graceEndsAt})` : ''
  return [
    `${k.id}${name}  ${k.prefix}…  ${k.environment}  ${shownState(k).toUpperCase()}`,
    `created ${k.createdAt}`,
    `last used ${k.lastUsedAt ?? 'never'}`,
    `expires ${endsAt(k) ?? 'never'}${ended}`,
  ].join('  ')
}

/** `--grace SECONDS`: a whole number; the range is the library's rule (0 to 7 days). */
function seconds(raw: string): number {
  if (!/^\d+$/.test(raw)) throw new UsageError(`--grace must be a whole number of seconds, got "${raw}"`)
  return Number(raw)
}

export function keysCommand(): Command {
  const keys = new Command('keys').description('create, list, roll and revoke API keys')

  keys
    .command('create')
    .description('create an API key; its secret is printed once, here, and never again')
    .requiredOption('--account <id>', 'account id')
    .option('--name <name>', 'a name to tell the key apart (at most 100 characters)')
    .option('--expires <instant>', 'refuse the key from this ISO 8601 instant on, e.g. 2027-06-30T00:00:00Z')
    .option('--force', 'create it even when the account has PORTAL_MAX_KEYS active keys already')
    .option('--json', 'print one JSON object')
    .action((opts: { account: string; name?: string; expires?: string; force?: boolean; json?: boolean }) =>
      withDatabase(async ({ accounts, config }) => {
        // The portal's cap on active keys, unless the operator says otherwise.
        const maxActive = opts.force ? undefined : config.portalMaxKeys
        const created = await accounts
          .createApiKey({ accountId: opts.account, environment: keyEnvironment(config.environment), name: opts.name, expiresAt: opts.expires, maxActive })
          .catch((error: unknown) => {
            if (!(error instanceof KeyLimitError)) throw error
            throw new UsageError(
              `account ${opts.account} has ${error.active} active keys, the most PORTAL_MAX_KEYS (${error.max}) allows; revoke one with \`petstore keys revoke KEY_ID\` (\`petstore keys list --account ${opts.account}\` shows them), or pass --force`,
            )
          })
        output(!!opts.json, created, () => `created key ${created.id} for ${created.accountId}. Its secret (shown only now):\n${created.key}`)
      }),
    )

  keys
    .command('list')
    .description("list an account's keys (never their secrets)")
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print one JSON object')
    .action((opts: { account: string; json?: boolean }) =>
      withDatabase(async ({ accounts }) => {
        const list = await accounts.listApiKeys(opts.account)
        output(!!opts.json, { keys: list }, () => (list.length === 0 ? 'no keys' : list.map(describe).join('\n')))
      }),
    )

  keys
    .command('roll')
    .description('issue a new secret for a key; the old one keeps working for the grace period, then is refused')
    .argument('<keyId>')
    .requiredOption('--grace <seconds>', 'how long the old secret keeps working: 0 to 604800 (7 days)', seconds)
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { grace: number; json?: boolean }) =>
      withDatabase(async ({ accounts }) => {
        const rolled = await accounts.rollApiKey({ keyId, graceSeconds: opts.grace })
        output(!!opts.json, rolled, () =>
          [
            `rolled ${rolled.previous.id}: it is refused from ${rolled.previous.graceEndsAt} on`,
            `new key ${rolled.created.id}. Its secret (shown only now):`,
            rolled.created.key,
          ].join('\n'),
        )
      }),
    )

  keys
    .command('revoke')
    .description('revoke a key: it is refused from the next request on')
    .argument('<keyId>')
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { json?: boolean }) =>
      withDatabase(async ({ accounts }) => {
        const key = await accounts.revokeApiKey(keyId)
        output(!!opts.json, key, () => `revoked ${describe(key)}`)
      }),
    )

  keys
    .command('unban')
    .description('lift a temporary ban of a key (asks the running service)')
    .argument('<keyId>')
    .option('--url <url>', 'the service to ask (default http://HOST:PORT)')
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { url?: string; json?: boolean }) =>
      withDatabase(async (ctx) => {
        await ctx.accounts.getApiKey(keyId)
        const result = (await callAdmin(ctx, { method: 'POST', path: `/keys/${encodeURIComponent(keyId)}/unban`, url: opts.url })) as { wasBanned: boolean }
        output(!!opts.json, result, () => (result.wasBanned ? `lifted the ban of ${keyId}` : `${keyId} was not banned`))
      }),
    )

  return keys
}
