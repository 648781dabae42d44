// POST /portal/plan-requests: the signed-in integrator asks for a higher plan (usage page's "Request a higher
// plan"). Sent: back to the usage page, which says the request waits for an operator. Refused, each on the usage
// page with the reason and what was typed: an address not verified yet (403, with how to verify), a plan not above
// the current one, a plan already asked for or three requests waiting, a note too long or not plain text (400), more
// than PLAN_REQUESTS_PER_HOUR requests from this client address (429 with Retry-After: plan-request-throttle.ts).
// The console's /console/requests decides (src/console/requests.routes.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { PLAN_REQUESTS_PER_HOUR } from '../../modules/plan-requests/plan-request-throttle.js'
import { PlanRequestError } from '../../modules/plan-requests/plan-requests.service.js'
import { redirect } from '../kit/reply.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import { PORTAL_BOUNDS, type Portal } from './portal.context.js'
import { NoQuery, pageResponses, PlanRequestBody } from './portal.schemas.js'
import { loginFor } from '../kit/safe-next.js'
import { usageAnswer } from './usage.routes.js'

/** The per-address throttle's refusal, out of the service's transaction (which it rolls back). */
class Throttled extends Error {
  constructor(readonly retryAfter: number) {
    super('too many plan requests from this client address')
  }
}

const responses = pageResponses({
  400: 'The usage page, with why the request was refused',
  403: 'The usage page: the address must be verified first (or the form came without its token)',
  429: 'The usage page: too many plan requests from this client address; Retry-After says when to try again',
})

export async function planRequestsRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  r.post(
    '/plan-requests',
    { schema: { hide: true, querystring: NoQuery, body: PlanRequestBody, response: responses } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, loginFor('/portal/usage', PORTAL_BOUNDS))
      const { plan, note } = request.body
      const refuse = (status: number, error: string) =>
        usageAnswer(portal, request, reply, { user, status, extra: { error, values: { plan, note } } })
      if (user.verified_at === null)
        return refuse(
          403,
          'Verify your email address before asking for a higher plan: open the link we sent you, or have it sent ' +
            'again below.',
        )
      // Counted only once the request passed every other check (the service asks last, before storing it).
      const admit = async () => {
        const retryAfter = await portal.planRequestThrottle.take(request.ip)
        if (retryAfter !== undefined) throw new Throttled(retryAfter)
      }
      try {
        await portal.planRequests.create({
          accountId: user.account_id,
          plan,
          note,
          actor: integratorActor(user, request.ip),
          admit,
        })
      } catch (error) {
        if (error instanceof Throttled) {
          reply.header('retry-after', String(error.retryAfter))
          return refuse(
            429,
            `Too many plan requests from your network: at most ${PLAN_REQUESTS_PER_HOUR} an hour. Try ` +
              `again in ${Math.ceil(error.retryAfter / 60)} minutes.`,
          )
        }
        if (!(error instanceof PlanRequestError)) throw error
        return refuse(400, error.message)
      }
      return redirect(reply, '/portal/usage?requested=1#higher-plan')
    },
  )
}
