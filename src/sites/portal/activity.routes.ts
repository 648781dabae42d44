// /portal/activity: the signed-in integrator's own account's audit entries (changes to the account and its keys,
// plan requests, operators' changes), newest first, 50 a page. Only entries filed under its own account id are
// read, so no page can show another account's. `before` pages back (the last entry's sequence number).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { redirect, sendPage } from '../kit/reply.js'
import { activityPage } from './activity.pages.js'
import { page } from './layout.js'
import { PORTAL_BOUNDS, type Portal } from './portal.context.js'
import { ActivityQuery, pageResponses } from './portal.schemas.js'
import { loginFor } from '../kit/safe-next.js'

export const ACTIVITY_PAGE_SIZE = 50

/** A sequence number from the query; anything else shows the newest entries. */
const seqOf = (raw: string | undefined): bigint | undefined =>
  raw !== undefined && /^[1-9]\d{0,17}$/.test(raw) ? BigInt(raw) : undefined

export async function activityRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get(
    '/activity',
    { schema: { hide: true, querystring: ActivityQuery, response: pageResponses({ 200: 'Activity' }) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, loginFor('/portal/activity', PORTAL_BOUNDS))
      const ctx = portal.context(request, reply)
      const beforeSeq = seqOf(request.query.before)
      const [found, keys] = await Promise.all([
        portal.audit.list({ accountId: user.account_id, beforeSeq, limit: ACTIVITY_PAGE_SIZE + 1 }),
        portal.accounts.listApiKeys(user.account_id),
      ])
      const entries = found.slice(0, ACTIVITY_PAGE_SIZE)
      const older = found.length > ACTIVITY_PAGE_SIZE ? entries.at(-1)!.seq : undefined
      const names = new Map(keys.map((k) => [k.id, { name: k.name, prefix: k.prefix }]))
      const content = activityPage({
        entries,
        accountId: user.account_id,
        keys: names,
        older,
        first: beforeSeq === undefined,
      })
      return sendPage(reply, 200, page(ctx, 'Activity', content))
    },
  )
}
