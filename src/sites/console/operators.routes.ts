// /console/operators (admins only: a support operator gets 403 on every route and the navigation has no link):
// list, Create operator (the setup link, from PETSTORE_PUBLIC_URL, shown once on the answer), Change role, and
// Disable through its confirmation page. Every handler checks the role on the server first (c.require); the plugin
// checked the CSRF token before. The repository writes each change's audit entry with the operator as its actor,
// and refuses an admin disabling itself or demoting itself as the last active admin (the CLI shares those rules).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { isOperatorRole, OPERATOR_ROLES, OperatorError, type Operator } from '../../modules/operators/operator.js'
import { SETUP_LINK_TTL_MS } from '../../modules/operators/operators.repository.js'
import { pageResponses } from '../kit/page-schemas.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'
import type { OperatorConsole } from './console.context.js'
import { consolePage } from './layout.js'
import { disablePage, operatorsPage, type OperatorsView } from './operators.pages.js'
import { CreateOperatorBody, DisableBody, OperatorParams, OperatorsQuery, RoleBody } from './operators.schemas.js'

const hide = true
const TITLE = 'Operators'
const back = (reply: FastifyReply, done: string) => redirect(reply, `/console/operators?done=${done}`)

/** A refused change as an error page: 404 for an unknown operator, 400 with the reason otherwise. */
function refusal(error: OperatorError): PageError {
  if (error.code === 'not_found') return new PageError(404, 'No such operator', 'There is no such operator.')
  if (error.code === 'disabled')
    return new PageError(400, 'Not changed', 'That operator is disabled: their role cannot change.')
  return new PageError(400, 'Not changed', error.message)
}

export async function operatorsRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  async function listPage(
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    view: Omit<OperatorsView, 'operators' | 'me' | 'csrf'>,
  ) {
    const me = c.require(request, 'admin')
    const ctx = c.context(request, reply)
    return sendPage(
      reply,
      status,
      consolePage(ctx, TITLE, operatorsPage({ ...view, operators: await c.operators.list(), me, csrf: ctx.csrf })),
    )
  }
  async function operator(id: string): Promise<Operator> {
    const found = await c.operators.get(id)
    if (!found) throw new PageError(404, 'No such operator', 'There is no such operator.')
    return found
  }

  r.get(
    '/operators',
    { schema: { hide, querystring: OperatorsQuery, response: pageResponses({ 200: 'Operators' }) } },
    async (request, reply) => {
      c.require(request, 'admin')
      return listPage(request, reply, 200, { done: request.query.done })
    },
  )

  r.post(
    '/operators',
    {
      schema: {
        hide,
        body: CreateOperatorBody,
        response: pageResponses({ 200: "Operators, with the new operator's setup link shown once" }),
      },
    },
    async (request, reply) => {
      c.require(request, 'admin')
      const email = (request.body.email ?? '').trim()
      const role = request.body.role ?? ''
      const again = (error: string) => listPage(request, reply, 400, { form: { email, role, error } })
      if (email === '') return again("Enter the new operator's email address.")
      if (!isOperatorRole(role)) return again(`Choose a role: ${OPERATOR_ROLES.join(' or ')}.`)
      try {
        const { operator: created, setupToken } = await c.operators.create({ email, role, actor: c.actor(request) })
        // The link is on this answer only (never in a redirect's URL, the log or the database: it is stored hashed).
        const link = c.link(`/console/setup/${setupToken}`)
        const expiresAt = new Date(Date.parse(created.createdAt) + SETUP_LINK_TTL_MS).toISOString()
        reply.header('cache-control', 'no-store')
        return listPage(request, reply, 200, { created: { operator: created, link, expiresAt } })
      } catch (error) {
        if (!(error instanceof OperatorError) || (error.code !== 'invalid_email' && error.code !== 'email_taken'))
          throw error
        return again(
          error.code === 'email_taken'
            ? `An operator with the email ${email} exists already (disabled operators keep theirs).`
            : error.message,
        )
      }
    },
  )

  r.post(
    '/operators/:id/role',
    { schema: { hide, params: OperatorParams, body: RoleBody, response: pageResponses({}) } },
    async (request, reply) => {
      c.require(request, 'admin')
      const role = request.body.role ?? ''
      const before = await operator(request.params.id)
      if (!isOperatorRole(role))
        throw new PageError(400, 'Not changed', `Choose a role: ${OPERATOR_ROLES.join(' or ')}.`)
      if (before.role === role && before.disabledAt === null) return back(reply, 'unchanged')
      try {
        await c.operators.setRole(before.id, role, c.actor(request))
      } catch (error) {
        if (error instanceof OperatorError) throw refusal(error)
        throw error
      }
      return back(reply, 'role')
    },
  )

  r.get(
    '/operators/:id/disable',
    { schema: { hide, params: OperatorParams, response: pageResponses({ 200: 'Disable: the confirmation step' }) } },
    async (request, reply) => {
      const me = c.require(request, 'admin')
      const target = await operator(request.params.id)
      if (target.id === me.id)
        throw new PageError(400, 'Not possible', 'You cannot disable yourself: ask another admin (or use the CLI).')
      const ctx = c.context(request, reply)
      return sendPage(reply, 200, consolePage(ctx, 'Disable an operator', disablePage(ctx.csrf, target)))
    },
  )
  r.post(
    '/operators/:id/disable',
    { schema: { hide, params: OperatorParams, body: DisableBody, response: pageResponses({}) } },
    async (request, reply) => {
      c.require(request, 'admin')
      const target = await operator(request.params.id)
      if (target.disabledAt !== null) return back(reply, 'unchanged')
      try {
        await c.operators.disable(target.id, c.actor(request))
      } catch (error) {
        if (error instanceof OperatorError) throw refusal(error)
        throw error
      }
      return back(reply, 'disabled')
    },
  )
}
