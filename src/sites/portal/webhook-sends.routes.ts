// What the endpoint's page sends (webhooks.routes.ts registers these): a test event, one event again ("Send
// again" in the delivery log), every event that failed since a time. Each only makes deliveries due: the delivery
// worker sends them, and the log shows the attempts. Each answers 303 to the endpoint's page, which says what was
// done.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { PageError, redirect } from '../kit/reply.js'
import { asPage, ownEndpoint } from './webhook-errors.js'
import type { Portal, PortalWebhooks } from './portal.context.js'
import { CsrfOnlyBody, NoQuery, pageResponses } from './portal.schemas.js'
import { RECOVER_CHOICES } from './webhook-log.pages.js'
import { EndpointParams, EventParams, RecoverBody } from './webhooks.schemas.js'

const hide = true
const responses = pageResponses({ 409: 'The endpoint is disabled: it is sent nothing' })

export async function webhookSendsRoutes(app: FastifyInstance, portal: Portal, webhooks: PortalWebhooks) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { endpoints, deliveryLog } = webhooks
  /** The endpoint's page, at its delivery log, saying what was done. */
  const done = (id: string, what: string) => `/portal/webhooks/${id}?done=${what}#deliveries`

  r.post(
    '/webhooks/:endpointId/test',
    { schema: { hide, params: EndpointParams, querystring: NoQuery, body: CsrfOnlyBody, response: responses } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const { endpointId } = request.params
      await asPage(endpoints.sendTest(user.account_id, endpointId))
      return redirect(reply, done(endpointId, 'test'))
    },
  )

  r.post(
    '/webhooks/:endpointId/events/:eventId/resend',
    { schema: { hide, params: EventParams, querystring: NoQuery, body: CsrfOnlyBody, response: responses } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const { endpointId, eventId } = request.params
      await asPage(deliveryLog.resend({ accountId: user.account_id, endpointId, eventId }))
      return redirect(reply, done(endpointId, 'resent'))
    },
  )

  r.post(
    '/webhooks/:endpointId/recover',
    { schema: { hide, params: EndpointParams, querystring: NoQuery, body: RecoverBody, response: responses } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const { endpointId } = request.params
      // Another account's endpoint is a 404 whatever the form holds.
      await ownEndpoint(webhooks, user.account_id, endpointId)
      if (!RECOVER_CHOICES.some((c) => c.value === request.body.since))
        throw new PageError(400, 'Resend failed events', 'Choose from the list how far back to look.')
      const since = new Date(portal.clock.now() - Number(request.body.since) * 1000)
      const count = await asPage(deliveryLog.recover({ accountId: user.account_id, endpointId, since }))
      return redirect(reply, done(endpointId, `recovered&count=${count}`))
    },
  )
}
