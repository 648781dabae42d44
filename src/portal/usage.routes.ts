// /portal/usage: the plan and its limits beside the current minute and day counts, and charts and tables of the
// last hour (per minute) and the last 30 days (per day) by outcome (success, client error, refused by the limit,
// server error), for the whole account or one of its keys.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { barChart, type UsagePoint } from './charts.js'
import { html } from './html.js'
import { page } from './layout.js'
import { when } from './keys.pages.js'
import { redirect, sendPage } from './reply.js'
import type { Portal } from './portal.plugin.js'
import { pageResponses, UsageQuery } from './portal.schemas.js'

/** The usage service (src/usage/) as the portal reads it. */
export interface UsageReader {
  perMinute(input: { accountId: string; keyId?: string; now: number }): Promise<UsagePoint[]>
  perDay(input: { accountId: string; keyId?: string; now: number }): Promise<UsagePoint[]>
  current(accountId: string, now: number): Promise<{ plan: string; windows: Array<{ name: 'minute' | 'day'; limit: number; used: number; remaining: number; resetsAt: string }> }>
}

const number = (n: number) => n.toLocaleString('en-US')

export async function usageRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get('/usage', { schema: { hide: true, querystring: UsageQuery, response: pageResponses({ 200: 'Usage and plan' }) } }, async (request, reply) => {
    const user = request.visitor.user
    if (!user) return redirect(reply, '/portal/login')
    const ctx = portal.context(request, reply)
    const now = portal.clock.now()
    const keys = await portal.accounts.listApiKeys(user.account_id)
    // An unknown or foreign key id shows the whole account rather than someone else's figures.
    const key = keys.find((k) => k.id === request.query.key)
    const scope = { accountId: user.account_id, keyId: key?.id, now }
    const [perMinute, perDay, current] = await Promise.all([portal.usage.perMinute(scope), portal.usage.perDay(scope), portal.usage.current(user.account_id, now)])

    const figures = current.windows.map(
      (w) => html`<div class="figure"><div class="muted">${w.name === 'minute' ? 'This minute' : 'Today (UTC)'}</div><div class="value">${number(w.used)} <span class="muted">of ${number(w.limit)}</span></div>
<div class="muted">${number(w.remaining)} left, resets ${when(w.resetsAt)}</div></div>`,
    )
    const picker = html`<form method="get" action="/portal/usage" class="inline-form"><div><label for="key">Show</label><select id="key" name="key">
<option value="">All keys of the account</option>${keys.map((k) => html`<option value="${k.id}"${k.id === key?.id ? html` selected` : ''}>${k.name ?? 'Unnamed key'} (${k.prefix}…)</option>`)}</select></div>
<button type="submit" class="secondary">Show</button></form>`
    const subject = key ? `key ${key.name ?? key.prefix}` : 'all keys'
    const content = html`<h2>Plan</h2>
<div class="figures"><div class="figure"><div class="muted">Plan</div><div class="value">${current.plan}</div><div class="muted">${current.windows.map((w) => `${number(w.limit)} per ${w.name}`).join(', ')}</div></div>${figures}</div>
<p class="muted">The current counts are for the whole account: the quota is shared by all its keys.</p>
<h2>Requests</h2>${picker}
${barChart({ id: 'minute', name: 'Requests per minute', caption: `Requests per minute, last hour, ${subject}`, points: perMinute, label: (at) => at.slice(11, 16) })}
${barChart({ id: 'day', name: 'Requests per day', caption: `Requests per day, last 30 days, ${subject}`, points: perDay, label: (at) => at.slice(5, 10) })}`
    return sendPage(reply, 200, page(ctx, 'Usage', content))
  })
}
