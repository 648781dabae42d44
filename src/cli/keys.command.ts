import { Command } from 'commander'
import type { ApiKeyInfo } from '../accounts/accounts.repository.js'
import { keyEnvironment } from '../accounts/api-keys.js'
import { callAdmin } from './admin-client.js'
import { output, withDatabase } from './run.js'

function describe(k: ApiKeyInfo): string {
  return `${k.id}  ${k.prefix}…  ${k.environment}  created ${k.createdAt}${k.revokedAt ? `  REVOKED ${k.revokedAt}` : ''}`
}

export function keysCommand(): Command {
  const keys = new Command('keys').description('create, list and revoke API keys')

  keys
    .command('create')
    .description('create an API key; its secret is printed once, here, and never again')
    .requiredOption('--account <id>', 'account id')
    .option('--json', 'print one JSON object')
    .action((opts: { account: string; json?: boolean }) =>
      withDatabase(async ({ accounts, config }) => {
        const created = await accounts.createApiKey({ accountId: opts.account, environment: keyEnvironment(config.environment) })
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
