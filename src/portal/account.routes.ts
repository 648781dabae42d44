// Sign up, verify the address, log in and out, reset a forgotten password. What must not leak: whether an
// address has an account (sign-up and reset answer the same either way; log-in failures are one message).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { publicOrigin } from '../http/origin.js'
import { checkEmailPage, linkUnusable, loginForm, newPasswordForm, resetRequestedPage, resetRequestForm, signupForm, tokenForm } from './account.pages.js'
import { html } from './html.js'
import { page } from './layout.js'
import { alreadyRegisteredMessage, resetMessage, RESET_TTL_MS, verifyMessage, VERIFY_TTL_MS } from './mail-messages.js'
import { hashPassword, passwordProblem, verifyAgainstNobody, verifyPassword } from './passwords.js'
import { redirect, sendPage } from './reply.js'
import type { Portal } from './portal.plugin.js'
import { CredentialsBody, EmailBody, NewPasswordBody, NoQuery, pageResponses, TokenBody, TokenQuery } from './portal.schemas.js'
import { createLoginThrottle } from './throttle.js'

// The error only: a message holds a link with a token, which must not reach the log.
/** What an unusable verification link offers instead: a logged-in page sends the link again. */
const verifyAgain = html`<a href="/portal/login">Log in</a> to send a new link.`

const mailFailed = (request: FastifyRequest) => (error: unknown) => request.log.error({ err: error }, 'portal mail not sent')

function emailProblem(email: string): string | undefined {
  const trimmed = email.trim()
  if (trimmed.length > 254 || !/^[^\s@]+@[^\s@]+$/.test(trimmed)) return 'Enter an email address, like name@example.com.'
  return undefined
}

export async function accountRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { repo, mailer, sessions } = portal
  const throttle = createLoginThrottle({ repo, clock: portal.clock })
  const link = (request: FastifyRequest, path: string) => `${publicOrigin(request, portal.config.publicUrl)}${path}`
  const hide = true

  r.get('/signup', { schema: { hide, querystring: NoQuery, response: pageResponses({ 200: 'The sign-up form' }) } }, async (request, reply) => {
    const ctx = portal.context(request, reply)
    return sendPage(reply, 200, page(ctx, 'Create your account', signupForm(ctx.csrf)))
  })

  r.post('/signup', { schema: { hide, querystring: NoQuery, body: CredentialsBody, response: pageResponses({ 200: 'Check your email' }) } }, async (request, reply) => {
    const { email, password } = request.body
    const ctx = portal.context(request, reply)
    const problem = emailProblem(email) ?? passwordProblem(password)
    if (problem) return sendPage(reply, 400, page(ctx, 'Create your account', signupForm(ctx.csrf, { email, error: problem })))
    // Hashed in both cases, so an existing address does not answer faster.
    const passwordHash = await hashPassword(password)
    const existing = await repo.findUserByEmail(email)
    const user = existing ? undefined : await repo.createUser({ email, passwordHash })
    if (user) {
      const token = await repo.issueToken(user.id, 'verify', VERIFY_TTL_MS)
      if (token) mailer.sendLater(verifyMessage(user.email, link(request, `/portal/verify?token=${token}`)), mailFailed(request))
    } else {
      const to = existing?.email ?? email.trim()
      mailer.sendLater(alreadyRegisteredMessage(to, link(request, '/portal/login'), link(request, '/portal/reset-request')), mailFailed(request))
    }
    return sendPage(reply, 200, page(ctx, 'Check your email', checkEmailPage(email.trim())))
  })

  r.get('/verify', { schema: { hide, querystring: TokenQuery, response: pageResponses({ 200: 'Confirm the verification' }) } }, async (request, reply) => {
    const ctx = portal.context(request, reply)
    const token = request.query.token ?? ''
    if (!(await repo.tokenUsable(token, 'verify'))) return sendPage(reply, 400, page(ctx, 'Verify your email address', linkUnusable(verifyAgain)))
    return sendPage(reply, 200, page(ctx, 'Verify your email address', tokenForm(ctx.csrf, '/portal/verify', token, 'Verify email address', 'One more step: confirm that this address is yours.')))
  })

  r.post('/verify', { schema: { hide, querystring: NoQuery, body: TokenBody, response: pageResponses({ 200: 'The address is verified' }) } }, async (request, reply) => {
    const ctx = portal.context(request, reply)
    const userId = await repo.consumeToken(request.body.token, 'verify')
    if (!userId) return sendPage(reply, 400, page(ctx, 'Verify your email address', linkUnusable(verifyAgain)))
    await repo.markVerified(userId)
    const next = request.visitor.user ? html`<a href="/portal/keys">Create your first key</a>` : html`<a href="/portal/login">Log in</a> to create your first key`
    return sendPage(reply, 200, page(ctx, 'Address verified', html`<p>Thank you: your address is verified. ${next}.</p>`))
  })

  r.post('/verify/resend', { schema: { hide, querystring: NoQuery, response: pageResponses({}) } }, async (request, reply) => {
    const user = request.visitor.user
    if (!user) return redirect(reply, '/portal/login')
    if (!user.verified_at) {
      const token = await repo.issueToken(user.id, 'verify', VERIFY_TTL_MS)
      if (token) await mailer.send(verifyMessage(user.email, link(request, `/portal/verify?token=${token}`)))
    }
    return redirect(reply, '/portal/keys?sent=1')
  })

  r.get('/login', { schema: { hide, querystring: NoQuery, response: pageResponses({ 200: 'The log-in form' }) } }, async (request, reply) => {
    if (request.visitor.user) return redirect(reply, '/portal/keys')
    const ctx = portal.context(request, reply)
    return sendPage(reply, 200, page(ctx, 'Log in', loginForm(ctx.csrf)))
  })

  r.post('/login', { schema: { hide, querystring: NoQuery, body: CredentialsBody, response: pageResponses({ 429: 'Too many failed log-ins' }) } }, async (request, reply) => {
    const { email, password } = request.body
    const who = { email, address: request.ip }
    await throttle.check(who)
    const user = await repo.findUserByEmail(email)
    const ok = user ? await verifyPassword(password, user.password_hash) : await verifyAgainstNobody(password)
    if (!user || !ok) {
      await throttle.failed(who)
      const ctx = portal.context(request, reply)
      return sendPage(reply, 400, page(ctx, 'Log in', loginForm(ctx.csrf, { email, error: 'Email or password is incorrect.' })))
    }
    await sessions.start(request, reply, request.visitor, user)
    return redirect(reply, '/portal/keys')
  })

  r.post('/logout', { schema: { hide, querystring: NoQuery, response: pageResponses({}) } }, async (request, reply) => {
    await sessions.end(request, reply, request.visitor)
    return redirect(reply, '/portal/login')
  })

  r.get('/reset-request', { schema: { hide, querystring: NoQuery, response: pageResponses({ 200: 'Ask for a reset link' }) } }, async (request, reply) => {
    const ctx = portal.context(request, reply)
    return sendPage(reply, 200, page(ctx, 'Reset your password', resetRequestForm(ctx.csrf)))
  })

  r.post('/reset-request', { schema: { hide, querystring: NoQuery, body: EmailBody, response: pageResponses({ 200: 'A link was sent if the account exists' }) } }, async (request, reply) => {
    const ctx = portal.context(request, reply)
    const { email } = request.body
    const problem = emailProblem(email)
    if (problem) return sendPage(reply, 400, page(ctx, 'Reset your password', resetRequestForm(ctx.csrf, { email, error: problem })))
    const user = await repo.findUserByEmail(email)
    if (user) {
      // At most one link a minute (issueToken): the answer is the same either way.
      const token = await repo.issueToken(user.id, 'reset', RESET_TTL_MS)
      if (token) mailer.sendLater(resetMessage(user.email, link(request, `/portal/reset?token=${token}`)), mailFailed(request))
    }
    return sendPage(reply, 200, page(ctx, 'Check your email', resetRequestedPage(email.trim())))
  })

  const askAgain = html`<a href="/portal/reset-request">Ask for a new link</a>.`
  r.get('/reset', { schema: { hide, querystring: TokenQuery, response: pageResponses({ 200: 'Choose a new password' }) } }, async (request, reply) => {
    const ctx = portal.context(request, reply)
    const token = request.query.token ?? ''
    if (!(await repo.tokenUsable(token, 'reset'))) return sendPage(reply, 400, page(ctx, 'Choose a new password', linkUnusable(askAgain)))
    return sendPage(reply, 200, page(ctx, 'Choose a new password', newPasswordForm(ctx.csrf, token)))
  })

  r.post('/reset', { schema: { hide, querystring: NoQuery, body: NewPasswordBody, response: pageResponses({ 200: 'Password changed' }) } }, async (request, reply) => {
    const { token, password } = request.body
    const ctx = portal.context(request, reply)
    // A refused password does not use the link up.
    const problem = passwordProblem(password)
    if (problem) return sendPage(reply, 400, page(ctx, 'Choose a new password', newPasswordForm(ctx.csrf, token, problem)))
    const passwordHash = await hashPassword(password)
    const userId = await repo.consumeToken(token, 'reset')
    if (!userId) return sendPage(reply, 400, page(ctx, 'Choose a new password', linkUnusable(askAgain)))
    // Every session of the user ends, this browser's too; the link proved the address, so it is verified.
    await repo.setPassword(userId, passwordHash)
    await repo.markVerified(userId)
    await sessions.end(request, reply, request.visitor)
    const after = { ...ctx, email: undefined }
    return sendPage(reply, 200, page(after, 'Password changed', html`<p>Your password was changed and every session was logged out. <a href="/portal/login">Log in</a> with the new one.</p>`))
  })
}
