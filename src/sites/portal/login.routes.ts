// Log in and out. Failures are one message whether or not the address has an account, and are throttled per
// email and client address and per client address (throttle.ts). After logging in, the visitor returns to the
// page that sent them here, if it is a page of the portal (safe-next.ts). A sign-in from a browser the account has
// not been used from is mailed to its user (new-browser.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { loginForm } from './account.pages.js'
import { emailKeyOf } from '../../kernel/email-address.js'
import { page } from './layout.js'
import { html } from '../kit/html.js'
import { hasPassword, verifyAgainstNobody, verifyPassword } from '../../kernel/passwords.js'
import { redirect, sendPage } from '../kit/reply.js'
import { PORTAL_BOUNDS, type Portal } from './portal.context.js'
import { LoginBody, LoginQuery, NoQuery, pageResponses } from './portal.schemas.js'
import { safeNext } from '../kit/safe-next.js'
import { createLoginThrottle } from './throttle.js'
import { signInFlow } from './sign-in.js'
import { passkeySignIn } from './login-step.pages.js'

export async function loginRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { repo, sessions } = portal
  const throttle = createLoginThrottle({ repo, clock: portal.clock })
  const flow = signInFlow(portal)
  const hide = true

  r.get(
    '/login',
    { schema: { hide, querystring: LoginQuery, response: pageResponses({ 200: 'The log-in form' }) } },
    async (request, reply) => {
      const next = safeNext(request.query.next, PORTAL_BOUNDS)
      if (request.visitor.user) return redirect(reply, next)
      const ctx = portal.context(request, reply)
      const form = loginForm(ctx.csrf, { next, signupClosed: ctx.signupClosed })
      return sendPage(reply, 200, page(ctx, 'Log in', html`${form}${passkeySignIn(ctx.csrf, next)}`))
    },
  )

  r.post(
    '/login',
    {
      schema: {
        hide,
        querystring: NoQuery,
        body: LoginBody,
        response: pageResponses({ 429: 'Too many failed log-ins' }),
      },
    },
    async (request, reply) => {
      const { email, password } = request.body
      const next = safeNext(request.body.next, PORTAL_BOUNDS)
      const user = await repo.findUserByEmail(email)
      const who = { email: emailKeyOf(email), address: request.ip }
      const attempt = await throttle.attempt({ ...who, passwordChangedAt: user?.password_changed_at })
      // A user whose owner has not chosen a password yet (made by an operator) answers as nobody does, in as long.
      const ok =
        user && hasPassword(user.password_hash)
          ? await verifyPassword(password, user.password_hash)
          : await verifyAgainstNobody(password, portal.config.passwordHashCost)
      if (!user || !ok) {
        portal.metrics.loginFailures.inc()
        const ctx = portal.context(request, reply)
        const error = 'Email or password is incorrect.'
        const form = loginForm(ctx.csrf, { email, next, error, signupClosed: ctx.signupClosed })
        return sendPage(reply, 400, page(ctx, 'Log in', html`${form}${passkeySignIn(ctx.csrf, next)}`))
      }
      await attempt.succeeded()
      return flow.afterPassword(request, reply, user, next)
    },
  )

  r.post('/logout', { schema: { hide, querystring: NoQuery, response: pageResponses({}) } }, async (request, reply) => {
    await sessions.end(reply, request.visitor)
    return redirect(reply, '/portal/login')
  })
}
