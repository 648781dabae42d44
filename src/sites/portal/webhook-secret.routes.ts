// An endpoint's confirmation steps and what they do (webhooks.routes.ts registers these): Rotate secret (a new
// secret, the old one signing too for the grace chosen) and Delete; and the page a new secret is shown on, once,
// after the endpoint was added or its secret rotated: the secret comes with this browser's sealed cookie
// (secret-flash.ts) or not at all, so a reload, another browser or another account sees no secret.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { integratorActor } from '../../modules/integrators/actor.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'
import { page } from './layout.js'
import type { Portal, PortalWebhooks } from './portal.context.js'
import { CsrfOnlyBody, NoQuery, pageResponses } from './portal.schemas.js'
import type { createSecretFlash } from './secret-flash.js'
import { asPage, ownEndpoint } from './webhook-errors.js'
import { deleteConfirm, ROTATE_GRACE_CHOICES, rotateConfirm, secretPage, secretPath } from './webhook-endpoint.pages.js'
import { EndpointParams, RotateBody } from './webhooks.schemas.js'

const hide = true

export async function webhookSecretRoutes(
  app: FastifyInstance,
  {
    portal,
    webhooks,
    flash,
  }: { portal: Portal; webhooks: PortalWebhooks; flash: ReturnType<typeof createSecretFlash> },
): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { endpoints } = webhooks
  const own = (accountId: string, id: string) => ownEndpoint(webhooks, accountId, id)

  // The confirmation steps of Rotate secret and Delete: a page with the form that acts.
  for (const [action, title, render] of [
    ['rotate', 'Rotate signing secret', rotateConfirm],
    ['delete', 'Delete endpoint', deleteConfirm],
  ] as const) {
    r.get(
      `/webhooks/:endpointId/${action}`,
      {
        schema: {
          hide,
          params: EndpointParams,
          querystring: NoQuery,
          response: pageResponses({ 200: `Confirm: ${title}` }),
        },
      },
      async (request, reply) => {
        const user = request.visitor.user
        if (!user) return redirect(reply, '/portal/login')
        const endpoint = await own(user.account_id, request.params.endpointId)
        const ctx = portal.context(request, reply)
        return sendPage(reply, 200, page(ctx, title, render(ctx.csrf, endpoint)))
      },
    )
  }

  r.post(
    '/webhooks/:endpointId/rotate',
    {
      schema: { hide, params: EndpointParams, querystring: NoQuery, body: RotateBody, response: pageResponses({}) },
      config: { sudo: "rotate an endpoint's signing secret" },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const { id } = await own(user.account_id, request.params.endpointId)
      if (!ROTATE_GRACE_CHOICES.some((c) => c.value === request.body.grace))
        throw new PageError(400, 'Rotate signing secret', 'Choose how long the old secret keeps working from the list.')
      const graceSeconds = Number(request.body.grace)
      const rotated = await asPage(
        endpoints.rotateSecret(user.account_id, id, { graceSeconds }, integratorActor(user, request.ip)),
      )
      flash.give(reply, { sessionId: request.visitor.sessionId!, keyId: id, secret: rotated.secret })
      return redirect(reply, secretPath(id))
    },
  )

  r.post(
    '/webhooks/:endpointId/delete',
    { schema: { hide, params: EndpointParams, querystring: NoQuery, body: CsrfOnlyBody, response: pageResponses({}) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const id = request.params.endpointId
      await asPage(endpoints.delete(user.account_id, id, integratorActor(user, request.ip)))
      return redirect(reply, '/portal/webhooks?done=deleted')
    },
  )

  // The new secret's page: the secret if this browser brought it (once), else that it was shown.
  r.get(
    '/webhooks/:endpointId/secret',
    {
      schema: {
        hide,
        params: EndpointParams,
        querystring: NoQuery,
        response: pageResponses({ 200: "The endpoint's new signing secret (shown once)" }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const endpoint = await own(user.account_id, request.params.endpointId)
      const ctx = portal.context(request, reply)
      const secret = flash.take(request, reply, { sessionId: request.visitor.sessionId!, keyId: endpoint.id })
      return sendPage(reply, 200, page(ctx, 'Signing secret', secretPage(endpoint, secret)))
    },
  )
}
