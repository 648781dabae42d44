// The second step of log-in, and passkeys that sign in alone. After a right password, an account with two-factor
// log-in gets a step (modules/two-factor/login-steps.repository.ts: a random id in an HttpOnly cookie, 10 minutes,
// void once the password changes) and this page: a code of its app, a recovery code, or one of its passkeys. Wrong
// codes are throttled per user and per address (code-throttle.ts); the 10th in 15 minutes locks the step for 15
// minutes and mails the owner. A passkey (user verification required) signs in from the log-in page too.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { integratorActor } from '../../modules/integrators/actor.js'
import { formBody, pageQuery, pageResponses } from '../kit/page-schemas.js'
import { html } from '../kit/html.js'
import { sendPage } from '../kit/reply.js'
import { safeNext } from '../kit/safe-next.js'
import { notice, page } from './layout.js'
import { PORTAL_BOUNDS, type Portal } from './portal.context.js'
import { codeProblem, passkeyAnswer, securityMail } from './second-step.js'
import { signInFlow } from './sign-in.js'

const next = Type.Optional(Type.String({ maxLength: 1000 }))
const CodeBody = formBody({ code: Type.String({ maxLength: 64 }), next })
const PasskeyBody = formBody({ response: Type.String({ maxLength: 8000 }), next })
const OptionsBody = formBody({ purpose: Type.Union([Type.Literal('sign_in'), Type.Literal('confirm')]) })

export async function loginStepRoutes(app: FastifyInstance, portal: Portal) {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { twoFactor } = portal
  const flow = signInFlow(portal)
  const hide = true

  r.post(
    '/login/code',
    {
      schema: {
        hide,
        querystring: pageQuery({}),
        body: CodeBody,
        response: pageResponses({ 400: 'Wrong code, or the step expired', 429: 'Too many wrong codes' }),
      },
    },
    async (request, reply) => {
      const to = safeNext(request.body.next, PORTAL_BOUNDS)
      const user = await flow.stepUser(request)
      if (!user) return flow.stepGone(request, reply)
      const result = await twoFactor.checkCode(user, request.body.code, request.ip, integratorActor(user, request.ip))
      securityMail(portal, request, user, result)
      const problem = codeProblem(result)
      if (problem) {
        const status = result.outcome === 'locked' || result.outcome === 'address' ? 429 : 400
        const passkey = (await twoFactor.status(user.id)).passkeys.length > 0
        return flow.stepPage(request, reply, { next: to, passkey, status, error: problem })
      }
      // Two requests with the same step and code: only the one that ends the step signs in.
      if (!(await flow.endStep(request))) return flow.stepGone(request, reply)
      return flow.signIn(request, reply, user, to)
    },
  )

  r.post(
    '/passkey/options',
    { schema: { hide, querystring: pageQuery({}), body: OptionsBody, response: pageResponses({ 200: 'Options' }) } },
    async (request, reply) => {
      const { user, sessionId, binding } = request.visitor
      const confirming = request.body.purpose === 'confirm'
      const bound = confirming ? sessionId : binding
      if (bound === undefined || (confirming && !user))
        return reply
          .code(403)
          .type('application/json')
          .send(JSON.stringify({ error: 'sign in again' }))
      const options = await twoFactor.assertionOptions(bound, request.body.purpose, confirming ? user!.id : null)
      return reply.header('cache-control', 'no-store').type('application/json').send(JSON.stringify(options))
    },
  )

  r.post(
    '/login/passkey',
    {
      schema: {
        hide,
        querystring: pageQuery({}),
        body: PasskeyBody,
        response: pageResponses({ 400: 'The passkey did not sign in' }),
      },
    },
    async (request, reply) => {
      const to = safeNext(request.body.next, PORTAL_BOUNDS)
      const answer = await passkeyAnswer(portal, request, 'sign_in', request.body.response)
      if (answer.user) return flow.signIn(request, reply, answer.user, to)
      const ctx = portal.context(request, reply)
      const body = html`${notice('error', answer.problem)}<p><a href="/portal/login">Back to log-in</a></p>`
      return sendPage(reply, 400, page(ctx, 'Log in', body))
    },
  )
}
