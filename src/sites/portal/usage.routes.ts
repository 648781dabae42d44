// /portal/usage: the plan and its limits beside the current minute and day counts, and charts and tables of the
// last hour (per minute) and the last 30 days (per day) by outcome (success, client error, refused by the limit,
// server error), for the whole account or one of its keys; and the request for a higher plan (plan-requests.routes.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { html } from '../kit/html.js'
import { page } from './layout.js'
import { usageCharts } from '../kit/usage-charts.js'
import { when } from './keys.pages.js'
import { redirect, sendPage } from '../kit/reply.js'
import { planRequestBlock, type PlanRequestBlock } from './plan-request.pages.js'
import type { Portal } from './portal.context.js'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import { pageResponses, UsageQuery } from './portal.schemas.js'

const number = (n: number) => n.toLocaleString('en-US')

/** What the usage page shows besides the figures: the plan request block's state (see plan-request.pages.ts). */
type UsageExtra = Omit<PlanRequestBlock, 'csrf' | 'currentPlan' | 'verified' | 'pending' | 'latest' | 'mayRequest'>

/** The usage page of the signed-in user's account (`keyId`: one of its keys, else the whole account). */
export async function usageAnswer(
  portal: Portal,
  request: FastifyRequest,
  reply: FastifyReply,
  input: { user: PortalUser; status: number; keyId?: string; extra?: UsageExtra },
) {
  const { user } = input
  const ctx = portal.context(request, reply)
  const now = portal.clock.now()
  const keys = await portal.accounts.listApiKeys(user.account_id)
  // An unknown or foreign key id shows the whole account rather than someone else's figures.
  const key = keys.find((k) => k.id === input.keyId)
  const scope = { accountId: user.account_id, keyId: key?.id, now }
  const [perMinute, perDay, current, pending, latest] = await Promise.all([
    portal.usage.perMinute(scope),
    portal.usage.perDay(scope),
    portal.usage.current(user.account_id, now),
    portal.planRequests.allPendingOf(user.account_id),
    portal.planRequests.latestOf(user.account_id),
  ])

  const figures = current.windows.map(
    (
      w,
    ) => html`<div class="figure"><div class="muted">${w.name === 'minute' ? 'This minute' : 'Today (UTC)'}</div><div \
class="value">${number(w.used)} <span class="muted">of ${number(w.limit)}</span></div>
<div class="muted">${number(w.remaining)} left, resets ${when(w.resetsAt)}</div></div>`,
  )
  const picker = html`<form method="get" action="/portal/usage" class="inline-form"><div><label for="key">Show</label>\
<select id="key" name="key">
<option value="">All keys of the account</option>${keys.map(
    (k) => html`<option \
value="${k.id}"${k.id === key?.id ? html` selected` : ''}>${k.name ?? 'Unnamed key'} (${k.prefix}…)</option>`,
  )}</select></div>
<button type="submit" class="secondary">Show</button></form>`
  const subject = key ? `key ${key.name ?? key.prefix}` : 'all keys'
  const content = html`<h2>Plan</h2>
<div class="figures"><div class="figure"><div class="muted">Plan</div><div class="value">${current.plan}</div><div \
class="muted">${current.windows.map((w) => `${number(w.limit)} per ${w.name}`).join(', ')}</div></div>${figures}</div>
<p class="muted">The current counts are for the whole account: the quota is shared by all its keys.</p>
${planRequestBlock({
  csrf: ctx.csrf,
  currentPlan: current.plan,
  verified: user.verified_at !== null,
  pending,
  latest,
  mayRequest: ctx.can.requestPlan,
  ...input.extra,
})}
<h2>Requests</h2>${picker}
${usageCharts({ perMinute, perDay, subject })}`
  return sendPage(reply, input.status, page(ctx, 'Usage', content))
}

export async function usageRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get(
    '/usage',
    { schema: { hide: true, querystring: UsageQuery, response: pageResponses({ 200: 'Usage and plan' }) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      return usageAnswer(portal, request, reply, {
        user,
        status: 200,
        keyId: request.query.key,
        extra: { sent: request.query.requested === '1' },
      })
    },
  )
}
