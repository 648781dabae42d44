// The CLI's way to the running service's counters and bans (they live in its memory, or in Redis).
import { InvalidArgumentError, Option } from 'commander'
import { loadOrCreateSecret } from '../db/settings.js'
import { ADMIN_TOKEN_SETTING, CLI_USER_HEADER } from '../modules/limits/admin-channel.js'
import { cliActor } from './actor.js'
import { RunError, type CommandContext } from './run.js'

function serviceUrl(ctx: CommandContext, override: string | undefined): string {
  if (override) return override.replace(/\/+$/, '')
  const host = ['0.0.0.0', '::', ''].includes(ctx.config.host) ? '127.0.0.1' : ctx.config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${ctx.config.port}`
}

/** `--url`: an http(s) URL, checked when the command line is read. */
export function serviceUrlOption(): Option {
  return new Option('--url <url>', 'the service to ask (default http://HOST:PORT)').argParser((raw: string) => {
    if (!URL.canParse(raw) || !/^https?:$/.test(new URL(raw).protocol))
      throw new InvalidArgumentError('It must be an http:// or https:// URL.')
    return raw
  })
}

/** Calls an admin endpoint of the service that serves this database; one-line errors when it cannot. */
export async function callAdmin(
  ctx: CommandContext,
  input: { method: 'GET' | 'POST'; path: string; url?: string },
): Promise<unknown> {
  const base = serviceUrl(ctx, input.url)
  const token = await loadOrCreateSecret(ctx.handle.db, ADMIN_TOKEN_SETTING)
  let response: Response
  try {
    const actor = cliActor()
    // Who asks, for the audit entry of a change (a ban lifted); the token is what authenticates.
    const headers = {
      authorization: `Bearer ${token}`,
      [CLI_USER_HEADER]: encodeURIComponent(actor.kind === 'cli' ? actor.user : 'unknown'),
    }
    response = await fetch(`${base}/admin${input.path}`, {
      method: input.method,
      headers,
      signal: AbortSignal.timeout(5000),
    })
  } catch {
    throw new RunError(
      `cannot reach the service at ${base} (rate-limit counters and bans live in the running service; start it, or ` +
        `pass --url)`,
    )
  }
  const body = (await response.json().catch(() => ({}))) as { message?: string }
  if (!response.ok)
    throw new RunError(`the service at ${base} answered ${response.status}: ${body.message ?? 'no message'}`)
  return body
}
