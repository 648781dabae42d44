import { Command } from 'commander'
import { KeyLimitError } from '../modules/accounts/accounts.repository.js'
import { keyEnvironment } from '../modules/accounts/api-keys.js'
import { SCOPES, type Scope } from '../modules/accounts/key-scopes.js'
import { cliActor } from './actor.js'
import { callAdmin, serviceUrlOption } from './admin-client.js'
import { describe, expiry, instant, scopeList, seconds } from './key-options.js'
import { output, RunError, withDatabase } from './run.js'

export function keysCommand(): Command {
  const keys = new Command('keys').description(
    'create, list, roll and revoke API keys, and change their expiry or narrow their scopes',
  )

  keys
    .command('create')
    .description('create an API key; its secret is printed once, here, and never again')
    .requiredOption('--account <id>', 'account id')
    .option('--name <name>', 'a name to tell the key apart (at most 100 characters)')
    .option('--expires <instant>', 'refuse the key from this ISO 8601 instant on, e.g. 2027-06-30T00:00:00Z', instant)
    .option(
      '--scopes <list>',
      `what the key may do, comma-separated, from: ${SCOPES.join(', ')} (default: all of them)`,
      scopeList,
    )
    .option('--force', 'create it even when the account has PORTAL_MAX_KEYS active keys already')
    .option('--json', 'print one JSON object')
    .action(
      (opts: { account: string; name?: string; expires?: string; scopes?: Scope[]; force?: boolean; json?: boolean }) =>
        withDatabase(async ({ accounts, config }) => {
          // The portal's cap on active keys, unless the operator says otherwise.
          const maxActive = opts.force ? undefined : config.portalMaxKeys
          const created = await accounts
            .createApiKey({
              accountId: opts.account,
              environment: keyEnvironment(config.environment),
              name: opts.name,
              expiresAt: opts.expires,
              scopes: opts.scopes,
              maxActive,
              actor: cliActor(),
            })
            .catch((error: unknown) => {
              if (!(error instanceof KeyLimitError)) throw error
              throw new RunError(
                `account ${opts.account} has ${error.active} active keys, the most ` +
                  `PORTAL_MAX_KEYS (${error.max}) allows; revoke one with \`petstore keys revoke KEY_ID\` ` +
                  `(\`petstore keys list --account ${opts.account}\` shows them), or pass --force`,
              )
            })
          output(
            !!opts.json,
            created,
            () => `created key ${created.id} for ${created.accountId}. Its secret (shown only now):\n${created.key}`,
          )
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
        // A suspended account's working keys read SUSPENDED: none of them is accepted until it is reactivated.
        const suspended = (await accounts.getAccount(opts.account)).suspendedAt !== null
        output(!!opts.json, { keys: list }, () =>
          list.length === 0 ? 'no keys' : list.map((k) => describe(k, { suspended })).join('\n'),
        )
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
        const rolled = await accounts.rollApiKey({ keyId, graceSeconds: opts.grace, actor: cliActor() })
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
    .command('set-expiry')
    .description(
      'give an active key a new expiry instant, or none ("never"); the change reaches every instance at once',
    )
    .argument('<keyId>')
    .requiredOption(
      '--expires <instant>',
      'an ISO 8601 instant in the future, e.g. 2027-06-30T00:00:00Z, or "never"',
      expiry,
    )
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { expires: string; json?: boolean }) =>
      withDatabase(async ({ accounts }) => {
        const expiresAt = opts.expires === 'never' ? null : opts.expires
        const key = await accounts.setKeyExpiry({ keyId, expiresAt, actor: cliActor() })
        output(!!opts.json, key, () => `set the expiry of ${describe(key)}`)
      }),
    )

  keys
    .command('restrict')
    .description(
      'narrow what an active key may do (never widen: a wider key is a new key); reaches every instance at once',
    )
    .argument('<keyId>')
    .requiredOption(
      '--scopes <list>',
      `the scopes it keeps, comma-separated: some of those it has (${SCOPES.join(', ')})`,
      scopeList,
    )
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { scopes: Scope[]; json?: boolean }) =>
      withDatabase(async ({ accounts }) => {
        // A scope the key does not have is the library's ScopeWideningError, a usage error (exit 2) saying to make a
        // new key.
        const key = await accounts.restrictApiKeyScopes({ keyId, scopes: opts.scopes, actor: cliActor() })
        output(!!opts.json, key, () => `restricted ${describe(key)}`)
      }),
    )

  keys
    .command('revoke')
    .description('revoke a key: it is refused from the next request on')
    .argument('<keyId>')
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { json?: boolean }) =>
      withDatabase(async ({ accounts }) => {
        const key = await accounts.revokeApiKey(keyId, { actor: cliActor() })
        output(!!opts.json, key, () => `revoked ${describe(key)}`)
      }),
    )

  keys
    .command('unban')
    .description('lift a temporary ban of a key (asks the running service)')
    .argument('<keyId>')
    .addOption(serviceUrlOption())
    .option('--json', 'print one JSON object')
    .action((keyId: string, opts: { url?: string; json?: boolean }) =>
      withDatabase(async (ctx) => {
        await ctx.accounts.getApiKey(keyId)
        const result = (await callAdmin(ctx, {
          method: 'POST',
          path: `/keys/${encodeURIComponent(keyId)}/unban`,
          url: opts.url,
        })) as { wasBanned: boolean }
        output(!!opts.json, result, () => (result.wasBanned ? `lifted the ban of ${keyId}` : `${keyId} was not banned`))
      }),
    )

  return keys
}
