// The CLI's way to the running service's counters and bans (they live in its memory, or in Redis).
import { loadOrCreateSecret } from '../db/settings.js'
import { ADMIN_TOKEN_SETTING } from '../limits/admin.routes.js'
import { UsageError, type CommandContext } from './run.js'

function serviceUrl(ctx: CommandContext, override: string | undefined): string {
  if (override) return override.replace(/\/+$/, '')
  const host = ['0.0.0.0', '::', ''].includes(ctx.config.host) ? '127.0.0.1' : ctx.config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${ctx.config.port}`
}

/** Calls an admin endpoint of the service that serves this database; one-line errors when it cannot. */
export async function callAdmin(ctx: CommandContext, input: { method: 'GET' | 'POST'; path: string; url?: string }): Promise<unknown> {
  const base = serviceUrl(ctx, input.url)
  const token = await loadOrCreateSecret(ctx.handle.db, ADMIN_TOKEN_SETTING)
  let response: Response
  try {
    response = await fetch(`${base}/admin${input.path}`, { method: input.method, headers: { authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(5000) })
  } catch {
    throw new UsageError(`cannot reach the service at ${base} (rate-limit counters and bans live in the running service; start it, or pass --url)`)
  }
  const body = (await response.json().catch(() => ({}))) as { message?: string }
  if (!response.ok) throw new UsageError(`the service at ${base} answered ${response.status}: ${body.message ?? 'no message'}`)
  return body
}
