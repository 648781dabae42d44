// GET /console/accounts/:id: one account as an operator sees it (account.pages.ts). Any signed-in operator may
// read it; which controls show depends on the role.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { pageResponses } from '../kit/page-schemas.js'
import { sendPage } from '../kit/reply.js'
import { accountOr404, bansOf, canMail } from './account-lookups.js'
import { accountPage, isDone } from './account.pages.js'
import { span, webhooksSection } from './account-webhooks.pages.js'
import { membersSection, twoFactorOf } from './account-members.pages.js'
import { AccountPageQuery, AccountParams } from './account.schemas.js'
import type { OperatorConsole } from './console.context.js'
import { consolePage } from './layout.js'
import { FOUND_BY, type FoundBy } from './search.repository.js'

/** The known reasons in `?found=` (anything else is ignored: a link may carry anything). */
const foundBy = (raw: string | undefined): FoundBy[] =>
  (raw ?? '').split(',').filter((k): k is FoundBy => Object.hasOwn(FOUND_BY, k))

/** How many audit entries the page shows (the rest: /console/audit?account=ID). */
const ACCOUNT_AUDIT_ENTRIES = 20

export async function accountRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.get(
    '/accounts/:id',
    {
      schema: {
        hide: true,
        params: AccountParams,
        querystring: AccountPageQuery,
        response: pageResponses({ 200: 'The account' }),
      },
    },
    async (request, reply) => {
      c.require(request, 'support')
      const ctx = c.context(request, reply)
      const account = await accountOr404(c, request.params.id)
      const now = c.clock.now()
      const scope = { accountId: account.id, now }
      const [user, keys, current, perMinute, perDay, events, members, invitations] = await Promise.all([
        c.verification.userOf(account.id),
        c.accounts.listApiKeys(account.id),
        c.usage.current(account.id, now),
        c.usage.perMinute(scope),
        c.usage.perDay(scope),
        c.audit.list({ accountId: account.id, limit: ACCOUNT_AUDIT_ENTRIES }),
        c.teams.members(account.id),
        c.teams.pendingInvitations(account.id),
      ])
      // Its portal user's second factors: the page shows what is set up and how many, nothing of the factors.
      const twoFactor = user && (await c.twoFactor.status(user.id))
      const bans = await bansOf(
        c,
        keys.map((k) => k.id),
        now,
      )
      // WEBHOOKS=on: the account's endpoints and how each is doing.
      const [endpoints, health] = c.webhooks
        ? await Promise.all([c.webhooks.endpoints.list(account.id), c.webhooks.deliveryLog.health(account.id)])
        : []
      const done = isDone(request.query.done) ? request.query.done : undefined
      const found = foundBy(request.query.found)
      const content = accountPage(ctx, {
        account,
        user,
        twoFactor,
        keys,
        bans,
        windows: current.windows,
        perMinute,
        perDay,
        events,
        canMail: canMail(c),
        done,
        found,
        members: membersSection(account, members, invitations, await twoFactorOf(c, members)),
        webhooks:
          endpoints &&
          health &&
          webhooksSection(ctx, { account, endpoints, health, disableAfter: span(c.config.endpointDisableAfterMs) }),
      })
      return sendPage(
        reply,
        200,
        consolePage(
          ctx,
          account.deletedAt === null ? `Account ${account.name}` : `Deleted account ${account.id}`,
          content,
        ),
      )
    },
  )
}
