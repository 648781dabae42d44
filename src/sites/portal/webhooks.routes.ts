// /portal/webhooks (issue 36): the account's webhook endpoints, through the same service as the API (one set of
// rules for URLs, descriptions, event types and the cap on endpoints): the list and the form that adds one, each
// endpoint's page (with its delivery log), editing, disabling and enabling. Adding an endpoint answers 303 to the
// page that shows the new secret once (Post/Redirect/Get): it crosses the redirect in a sealed cookie only the
// browser holds (secret-flash.ts), never in a URL or a log line. Another account's endpoint reads as a missing one:
// the 404 page. Rotate, Delete and the secret's page: webhook-secret.routes.ts; sending events (a test, one again,
// every failed one since a time): webhook-sends.routes.ts.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import type { Endpoint } from '../../modules/webhooks/endpoint.js'
import { MAX_ENDPOINTS } from '../../modules/webhooks/endpoints.service.js'
import { EndpointLimitReached, EndpointRefused } from '../../modules/webhooks/webhooks.errors.js'
import { redirect, sendPage } from '../kit/reply.js'
import { page } from './layout.js'
import type { Portal, PortalWebhooks } from './portal.context.js'
import { CsrfOnlyBody, NoQuery, pageResponses } from './portal.schemas.js'
import { createSecretFlash } from './secret-flash.js'
import { deliveryLog } from './webhook-log.pages.js'
import { doneNotice, endpointPage, secretPath } from './webhook-endpoint.pages.js'
import { type EndpointInput, type FormErrors, inputOf, webhooksPage } from './webhooks.pages.js'
import { EndpointBody, EndpointParams, EndpointQuery, WebhooksQuery } from './webhooks.schemas.js'
import { asPage, ownEndpoint } from './webhook-errors.js'
import { webhookSecretRoutes } from './webhook-secret.routes.js'
import { webhookSendsRoutes } from './webhook-sends.routes.js'

const LOG_PAGE_SIZE = 20
const TITLE = 'Webhooks'
const ENDPOINT_TITLE = 'Webhook endpoint'
const CHOOSE_TYPES = 'Choose at least one event type, or "All events".'
const hide = true

/** A sequence number or a count from the query; anything else is ignored. */
const numberOf = (raw: string | undefined): bigint | undefined =>
  raw !== undefined && /^(?:0|[1-9]\d{0,17})$/.test(raw) ? BigInt(raw) : undefined

/** A span of milliseconds in whole days or hours (WEBHOOK_DISABLE_AFTER is either). */
function span(ms: number): string {
  const [n, unit] = ms % 86_400_000 === 0 ? [ms / 86_400_000, 'day'] : [Math.round(ms / 3_600_000), 'hour']
  return `${n} ${unit}${n === 1 ? '' : 's'}`
}

/** What an endpoint form sent, as the form shows it again; `events` other than `chosen` is every event. */
function inputFrom(body: { url: string; description: string; events: string; eventTypes?: string | string[] }) {
  const types = body.eventTypes === undefined ? [] : [body.eventTypes].flat()
  return { url: body.url.trim(), description: body.description, all: body.events !== 'chosen', types }
}

const fields = (values: EndpointInput) => ({
  url: values.url,
  description: values.description,
  eventTypes: values.all ? ['*'] : [...values.types],
})

/** The service's refusal of a form, by field, in a sentence; undefined for any other error. */
function refusal(error: unknown): FormErrors | undefined {
  const sentence = (message: string) => `${message.charAt(0).toUpperCase()}${message.slice(1)}.`
  if (error instanceof EndpointRefused)
    return { [error.field === 'graceSeconds' ? 'form' : error.field]: sentence(error.message) }
  if (error instanceof EndpointLimitReached) return { form: sentence(error.message) }
  return undefined
}

export async function webhooksRoutes(app: FastifyInstance, portal: Portal, webhooks: PortalWebhooks): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { endpoints } = webhooks
  const disableAfter = span(portal.config.endpointDisableAfterMs)
  const flash = createSecretFlash({
    secret: portal.flashSecret,
    publicUrl: portal.config.publicUrl,
    clock: portal.clock,
    pathOf: secretPath,
  })
  const own = (user: PortalUser, id: string) => ownEndpoint(webhooks, user.account_id, id)
  const actor = (user: PortalUser, request: FastifyRequest) => integratorActor(user, request.ip)

  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    user: PortalUser,
    status: number,
    form: { values?: EndpointInput; errors?: FormErrors; deleted?: boolean } = {},
  ) {
    const ctx = portal.context(request, reply)
    const content = webhooksPage({
      csrf: ctx.csrf,
      endpoints: await endpoints.list(user.account_id),
      maxEndpoints: MAX_ENDPOINTS,
      disableAfter,
      deleted: form.deleted ?? false,
      values: form.values,
      errors: form.errors,
      manage: ctx.can.manageWebhooks,
    })
    return sendPage(reply, status, page(ctx, TITLE, content))
  }

  async function showEndpoint(
    request: FastifyRequest,
    reply: FastifyReply,
    user: PortalUser,
    endpoint: Endpoint,
    view: {
      status: number
      before?: bigint
      done?: string
      count?: bigint
      values?: EndpointInput
      errors?: FormErrors
    },
  ) {
    const ctx = portal.context(request, reply)
    const found = await asPage(
      webhooks.deliveryLog.attempts({
        accountId: user.account_id,
        endpointId: endpoint.id,
        beforeSeq: view.before,
        limit: LOG_PAGE_SIZE,
      }),
    )
    const log = deliveryLog({
      csrf: ctx.csrf,
      endpointId: endpoint.id,
      enabled: endpoint.enabled,
      attempts: found.attempts,
      first: view.before === undefined,
      older: found.hasMore ? found.attempts.at(-1)?.seq : undefined,
      manage: ctx.can.manageWebhooks,
    })
    const content = endpointPage({
      csrf: ctx.csrf,
      endpoint,
      disableAfter,
      done: doneNotice(view.done, view.count === undefined ? undefined : Number(view.count)),
      log,
      values: view.values ?? inputOf(endpoint),
      errors: view.errors,
      manage: ctx.can.manageWebhooks,
    })
    return sendPage(reply, view.status, page(ctx, ENDPOINT_TITLE, content))
  }

  r.get(
    '/webhooks',
    { schema: { hide, querystring: WebhooksQuery, response: pageResponses({ 200: 'The endpoints' }) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      return listPage(request, reply, user, 200, { deleted: request.query.done === 'deleted' })
    },
  )

  r.post(
    '/webhooks',
    {
      schema: { hide, querystring: NoQuery, body: EndpointBody, response: pageResponses({}) },
      config: { sudo: 'add a webhook endpoint' },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const values = inputFrom(request.body)
      const again = (errors: FormErrors) => listPage(request, reply, user, 400, { values, errors })
      if (!values.all && values.types.length === 0) return again({ eventTypes: CHOOSE_TYPES })
      try {
        const made = await endpoints.create(user.account_id, fields(values), actor(user, request))
        flash.give(reply, { sessionId: request.visitor.sessionId!, keyId: made.endpoint.id, secret: made.secret })
        return redirect(reply, secretPath(made.endpoint.id))
      } catch (error) {
        const errors = refusal(error)
        if (errors) return again(errors)
        throw error
      }
    },
  )

  r.get(
    '/webhooks/:endpointId',
    {
      schema: {
        hide,
        params: EndpointParams,
        querystring: EndpointQuery,
        response: pageResponses({ 200: 'Endpoint' }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const endpoint = await own(user, request.params.endpointId)
      const { before, done, count } = request.query
      return showEndpoint(request, reply, user, endpoint, {
        status: 200,
        before: numberOf(before) || undefined,
        done,
        count: numberOf(count),
      })
    },
  )

  // Edit: what the form sent replaces the URL, the description and the event types.
  r.post(
    '/webhooks/:endpointId',
    { schema: { hide, params: EndpointParams, querystring: NoQuery, body: EndpointBody, response: pageResponses({}) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const endpoint = await own(user, request.params.endpointId)
      const values = inputFrom(request.body)
      const again = (errors: FormErrors) =>
        showEndpoint(request, reply, user, endpoint, { status: 400, values, errors })
      if (!values.all && values.types.length === 0) return again({ eventTypes: CHOOSE_TYPES })
      try {
        await asPage(endpoints.update(user.account_id, endpoint.id, fields(values), actor(user, request)))
      } catch (error) {
        const errors = refusal(error)
        if (errors) return again(errors)
        throw error
      }
      return redirect(reply, `/portal/webhooks/${endpoint.id}?done=saved`)
    },
  )

  for (const [action, enabled] of [
    ['enable', true],
    ['disable', false],
  ] as const) {
    r.post(
      `/webhooks/:endpointId/${action}`,
      {
        schema: { hide, params: EndpointParams, querystring: NoQuery, body: CsrfOnlyBody, response: pageResponses({}) },
      },
      async (request, reply) => {
        const user = request.visitor.user
        if (!user) return redirect(reply, '/portal/login')
        const id = request.params.endpointId
        await asPage(endpoints.update(user.account_id, id, { enabled }, actor(user, request)))
        return redirect(reply, `/portal/webhooks/${id}?done=${action}d`)
      },
    )
  }

  await webhookSecretRoutes(app, { portal, webhooks, flash })
  await webhookSendsRoutes(app, portal, webhooks)
}
