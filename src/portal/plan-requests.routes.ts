// POST /portal/plan-requests: the signed-in integrator asks for a higher plan (usage page's "Request a higher
// plan"). Sent: back to the usage page, which says the request waits for an operator. Refused (a plan not above
// the current one, a second request while one waits, a note too long or not plain text): the usage page again,
// with the reason and what was typed. The console's /console/requests decides (src/console/requests.routes.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { PlanRequestError } from '../plan-requests/plan-requests.service.js'
import { redirect } from '../web/reply.js'
import { integratorActor } from './actor.js'
import type { Portal } from './portal.plugin.js'
import { NoQuery, pageResponses, PlanRequestBody } from './portal.schemas.js'
import { loginFor } from './safe-next.js'
import { usageAnswer } from './usage.routes.js'

export async function planRequestsRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.post('/plan-requests', { schema: { hide: true, querystring: NoQuery, body: PlanRequestBody, response: pageResponses({ 400: 'The usage page, with why the request was refused' }) } }, async (request, reply) => {
    const user = request.visitor.user
    if (!user) return redirect(reply, loginFor('/portal/usage'))
    const { plan, note } = request.body
    try {
      await portal.planRequests.create({ accountId: user.account_id, plan, note, actor: integratorActor(user, request.ip) })
    } catch (error) {
      if (!(error instanceof PlanRequestError)) throw error
      return usageAnswer(portal, request, reply, { user, status: 400, extra: { error: error.message, values: { plan, note } } })
    }
    return redirect(reply, '/portal/usage?requested=1#higher-plan')
  })
}
