// /console/requests: the plan requests integrators sent from the portal's usage page, the waiting ones a page at a
// time (PENDING_PAGE_SIZE, with their total, so nothing hides behind a flood). Every operator sees the list;
// an admin approves (the account's plan changes, enterprise with the quotas given) or declines (with a reason),
// each through a confirmation page, and the integrator is mailed the decision. Every handler of a control checks
// the role on the server first (c.require), so a support operator's replayed POST is 403 and changes nothing; the
// plugin checked the CSRF token before. A request decided meanwhile by someone else is refused with 409.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { PlanRequestError } from '../../modules/plan-requests/plan-requests.service.js'
import type { PlanRequestListing } from '../../modules/plan-requests/plan-requests.repository.js'
import { pageResponses } from '../kit/page-schemas.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'
import type { OperatorConsole } from './console.context.js'
import { consolePage, isAdmin } from './layout.js'
import { approvePage, declinePage, requestsPage } from './requests.pages.js'
import { ApproveBody, DeclineBody, RequestParams, RequestsQuery } from './requests.schemas.js'

const hide = true
/** How many recent decisions the list shows. */
const RECENT_DECISIONS = 50
/** Waiting requests a page (oldest first; `Next page` starts after the last one shown, `?after=ID`). */
const PENDING_PAGE_SIZE = 50
/** What a request id may look like (they are preq_ and 20 hex digits): anything else is no page link of ours. */
const REQUEST_ID = /^[A-Za-z0-9_]{1,100}$/

const decisionResponses = pageResponses({ 409: 'Already decided by someone else: nothing was changed' })
const positive = (raw: string | undefined): number | undefined => {
  const text = (raw ?? '').trim()
  return /^\d{1,15}$/.test(text) && Number(text) >= 1 ? Number(text) : undefined
}

export async function requestsRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { planRequests } = c

  /** The request, as the confirmation pages show it; 404 when unknown, 409 when already decided. */
  async function pendingRequest(id: string): Promise<PlanRequestListing> {
    const request = await planRequests.getListing(id)
    if (!request) throw new PageError(404, 'No such request', `There is no plan request ${id}.`)
    if (request.state !== 'pending')
      throw refusal(
        new PlanRequestError(
          'decided',
          `This request was already ${request.state}${request.decidedBy ? ` by ${request.decidedBy}` : ''}; nothing ` +
            `was changed.`,
        ),
      )
    return request
  }
  /** A refused decision as an error page (an input problem re-renders its form instead). */
  const refusal = (error: PlanRequestError) => {
    if (error.kind === 'not_found') return new PageError(404, 'No such request', error.message)
    if (error.kind === 'decided') return new PageError(409, 'Already decided', error.message)
    return new PageError(400, 'Not possible', error.message)
  }
  const page = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    title: string,
    content: Parameters<typeof consolePage>[2],
  ) => sendPage(reply, status, consolePage(c.context(request, reply), title, content))

  r.get(
    '/requests',
    { schema: { hide, querystring: RequestsQuery, response: pageResponses({ 200: 'Plan requests' }) } },
    async (request, reply) => {
      c.require(request, 'support')
      const ctx = c.context(request, reply)
      const after = request.query.after?.trim() || undefined
      const invalid = () =>
        new PageError(
          400,
          'Invalid page link',
          'The page link is not valid: it names no plan request. Start again from the first page: /console/requests.',
        )
      if (after !== undefined && !REQUEST_ID.test(after)) throw invalid()
      const [pending, decided] = await Promise.all([
        planRequests.pendingPage(PENDING_PAGE_SIZE, after),
        planRequests.list('decided', RECENT_DECISIONS),
      ])
      if (!pending) throw invalid()
      const now = c.clock.now()
      return sendPage(
        reply,
        200,
        consolePage(
          ctx,
          'Plan requests',
          requestsPage({
            pending,
            paged: after !== undefined,
            decided,
            admin: isAdmin(ctx),
            now,
            done: request.query.done,
          }),
        ),
      )
    },
  )

  r.get(
    '/requests/:id/approve',
    {
      schema: {
        hide,
        params: RequestParams,
        response: pageResponses({ 200: 'Approve: the confirmation step', 409: 'Already decided' }),
      },
    },
    async (request, reply) => {
      c.require(request, 'admin')
      const ctx = c.context(request, reply)
      return sendPage(
        reply,
        200,
        consolePage(ctx, 'Approve the plan request', approvePage(ctx.csrf, await pendingRequest(request.params.id))),
      )
    },
  )
  r.post(
    '/requests/:id/approve',
    { schema: { hide, params: RequestParams, body: ApproveBody, response: decisionResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const listed = await pendingRequest(request.params.id)
      const { per_minute: perMinuteText, per_day: perDayText } = request.body
      // Quotas only for enterprise; whatever comes with another plan is ignored (the form has no such fields).
      const figures =
        listed.plan === 'enterprise' ? { perMinute: positive(perMinuteText), perDay: positive(perDayText) } : {}
      try {
        await planRequests.approve({ id: listed.id, actor: c.actor(request), ...figures })
      } catch (error) {
        if (!(error instanceof PlanRequestError)) throw error
        if (error.kind !== 'input') throw refusal(error)
        return page(
          request,
          reply,
          400,
          'Approve the plan request',
          approvePage(c.context(request, reply).csrf, listed, {
            perMinute: perMinuteText,
            perDay: perDayText,
            error: error.message,
          }),
        )
      }
      return redirect(reply, '/console/requests?done=approved')
    },
  )

  r.get(
    '/requests/:id/decline',
    {
      schema: {
        hide,
        params: RequestParams,
        response: pageResponses({ 200: 'Decline: the confirmation step', 409: 'Already decided' }),
      },
    },
    async (request, reply) => {
      c.require(request, 'admin')
      const ctx = c.context(request, reply)
      return sendPage(
        reply,
        200,
        consolePage(ctx, 'Decline the plan request', declinePage(ctx.csrf, await pendingRequest(request.params.id))),
      )
    },
  )
  r.post(
    '/requests/:id/decline',
    { schema: { hide, params: RequestParams, body: DeclineBody, response: decisionResponses } },
    async (request, reply) => {
      c.require(request, 'admin')
      const listed = await pendingRequest(request.params.id)
      const reason = request.body.reason ?? ''
      try {
        await planRequests.decline({ id: listed.id, reason, actor: c.actor(request) })
      } catch (error) {
        if (!(error instanceof PlanRequestError)) throw error
        if (error.kind !== 'input') throw refusal(error)
        return page(
          request,
          reply,
          400,
          'Decline the plan request',
          declinePage(c.context(request, reply).csrf, listed, { reason, error: error.message }),
        )
      }
      return redirect(reply, '/console/requests?done=declined')
    },
  )
}
