// Disable a webhook endpoint of an account (admin; WEBHOOKS=on): GET shows its confirmation page, POST disables it
// (reason `operator`, with its audit entry) and answers 303 back to the account page with a notice. As the other
// admin actions (account-actions.routes.ts): the role is checked first (403 for support, before anything is looked
// up), the plugin checked the CSRF token, and a deleted account is a 400. An endpoint id the account does not have
// (another account's included) is the 404 page.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import type { Account } from '../../modules/accounts/accounts.repository.js'
import { WebhookNotFound } from '../../modules/webhooks/webhooks.errors.js'
import { pageResponses } from '../kit/page-schemas.js'
import { PageError } from '../kit/reply.js'
import { liveAccount } from './account-lookups.js'
import { backToAccount, confirmPage } from './account-replies.js'
import { disableEndpointPage, span } from './account-webhooks.pages.js'
import { ConfirmBody } from './account.schemas.js'
import type { ConsoleWebhooks, OperatorConsole } from './console.context.js'

const hide = true
const id = Type.String({ maxLength: 200 })
const EndpointParams = Type.Object({ id, endpointId: id })

/** The service's "no such endpoint in this account" as the console's 404 page; anything else as it is. */
async function orNotFound<T>(account: Account, endpointId: string, work: Promise<T>): Promise<T> {
  try {
    return await work
  } catch (error) {
    if (error instanceof WebhookNotFound)
      throw new PageError(
        404,
        'No such endpoint',
        `The account ${account.id} has no webhook endpoint with the id ${endpointId}. Nothing was changed.`,
      )
    throw error
  }
}

export async function accountWebhooksRoutes(
  app: FastifyInstance,
  c: OperatorConsole,
  webhooks: ConsoleWebhooks,
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const disableAfter = span(c.config.endpointDisableAfterMs)

  r.get(
    '/accounts/:id/webhooks/:endpointId/disable',
    { schema: { hide, params: EndpointParams, response: pageResponses({ 200: 'The confirmation step' }) } },
    async (request, reply) => {
      c.require(request, 'admin')
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      const { endpointId } = request.params
      const endpoint = await orNotFound(account, endpointId, webhooks.endpoints.get(account.id, endpointId))
      const health = (await webhooks.deliveryLog.health(account.id)).get(endpoint.id)
      const content = disableEndpointPage(ctx.csrf, { account, endpoint, health, disableAfter })
      return confirmPage(reply, ctx, 'Disable a webhook endpoint', 200, content)
    },
  )

  r.post(
    '/accounts/:id/webhooks/:endpointId/disable',
    { schema: { hide, params: EndpointParams, body: ConfirmBody, response: pageResponses({}) } },
    async (request, reply) => {
      c.require(request, 'admin')
      const account = await liveAccount(c, request.params.id)
      const { endpointId } = request.params
      const disabled = await orNotFound(
        account,
        endpointId,
        webhooks.endpoints.disableByOperator(account.id, endpointId, c.actor(request)),
      )
      return backToAccount(reply, account, disabled ? 'webhook-disabled' : 'webhook-unchanged')
    },
  )
}
