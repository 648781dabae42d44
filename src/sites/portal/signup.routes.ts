// Sign up and verify the address. What must not leak: whether an address has an account. The answer is the same
// page after the same work (the password is hashed either way); what differs happens off the request path, in a
// mail job: a new account and its link, a replaced unverified sign-up and a fresh link, or an "already registered"
// note. Verifying ends every other session of the account: whoever signed up in someone else's name is out.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { checkEmailPage, linkUnusable, signupClosedPage, signupForm, tokenForm } from './account.pages.js'
import { parseEmailAddress } from '../../kernel/email-address.js'
import { html } from '../kit/html.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import { page } from './layout.js'
import { alreadyRegisteredMessage } from './mail-messages.js'
import type { MailMessage } from '../../mail/mail.js'
import { hashPassword, passwordProblem } from '../../kernel/passwords.js'
import { redirect, sendPage } from '../kit/reply.js'
import type { Portal } from './portal.context.js'
import { CredentialsBody, NoQuery, pageResponses, TokenBody, TokenParams, TokenQuery } from './portal.schemas.js'
import { reasonOf } from '../../kernel/reason.js'

/** What an unusable verification link offers instead: a logged-in page sends the link again. */
const verifyAgain = html`<a href="/portal/login">Log in</a> to send a new link.`

// The error only: a message holds a link with a token, which must not reach the log.
/**
 * One line per mail not sent, with the reason and no stack: the mail server's outage is logged once
 * (ops/outage-log.ts).
 */
export const mailFailed = (request: FastifyRequest) => (error: unknown) =>
  request.log.warn({ reason: reasonOf(error) }, 'portal mail not sent')

export async function signupRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { repo, mailer, sessions, verification } = portal
  const hide = true

  /** Runs off the request path: decides what this sign-up does to the address's account and what is mailed. */
  async function signUp(email: string, passwordHash: string, address: string): Promise<MailMessage | undefined> {
    const existing = await repo.findUserByEmail(email)
    if (!existing) {
      const user = await repo.createUser({ email, passwordHash, address })
      if (user) portal.metrics.signups.inc()
      if (user) return verification.freshLinkMessage(user)
      return undefined // another sign-up took the address this instant: its mail is on its way
    }
    if (existing.verified_at === null && (await repo.replaceUnverified(existing.id, passwordHash, address))) {
      // A fresh link voids the older ones; within a minute of the last one, that one (still fresh) stays the link.
      return verification.freshLinkMessage(existing)
    }
    return alreadyRegisteredMessage(existing.email, portal.link('/portal/login'), portal.link('/portal/reset-request'))
  }

  r.get(
    '/signup',
    { schema: { hide, querystring: NoQuery, response: pageResponses({ 200: 'The sign-up form' }) } },
    async (request, reply) => {
      const ctx = portal.context(request, reply)
      if (ctx.signupClosed) return sendPage(reply, 200, page(ctx, 'Sign-up is closed', signupClosedPage()))
      return sendPage(reply, 200, page(ctx, 'Create your account', signupForm(ctx.csrf)))
    },
  )

  r.post(
    '/signup',
    {
      schema: {
        hide,
        querystring: NoQuery,
        body: CredentialsBody,
        response: pageResponses({ 200: 'Check your email', 403: 'Sign-up is closed (PORTAL_SIGNUP)' }),
      },
    },
    async (request, reply) => {
      const { email: typed, password } = request.body
      const ctx = portal.context(request, reply)
      // Refused before anything is read or hashed: nothing is made, nothing is mailed.
      if (ctx.signupClosed) return sendPage(reply, 403, page(ctx, 'Sign-up is closed', signupClosedPage()))
      const parsed = parseEmailAddress(typed)
      const problem = 'problem' in parsed ? parsed.problem : passwordProblem(password, { email: parsed.email })
      if (problem || 'problem' in parsed)
        return sendPage(
          reply,
          400,
          page(ctx, 'Create your account', signupForm(ctx.csrf, { email: typed, error: problem })),
        )
      const passwordHash = await hashPassword(password, portal.config.passwordHashCost)
      mailer.sendLater(() => signUp(parsed.email, passwordHash, request.ip), mailFailed(request))
      return sendPage(reply, 200, page(ctx, 'Check your email', checkEmailPage(parsed.email)))
    },
  )

  async function confirmPage(request: FastifyRequest, reply: FastifyReply, token: string) {
    const ctx = portal.context(request, reply)
    if (!(await repo.tokenUsable(token, 'verify')))
      return sendPage(reply, 400, page(ctx, 'Verify your email address', linkUnusable(verifyAgain)))
    return sendPage(
      reply,
      200,
      page(
        ctx,
        'Verify your email address',
        tokenForm(
          ctx.csrf,
          '/portal/verify',
          token,
          'Verify email address',
          'One more step: confirm that this address is yours.',
        ),
      ),
    )
  }
  // The mailed link (token in the path); opening it changes nothing until the form is sent (mail scanners open links).
  r.get(
    '/verify/:token',
    {
      schema: {
        hide,
        params: TokenParams,
        querystring: NoQuery,
        response: pageResponses({ 200: 'Confirm the verification' }),
      },
    },
    async (request, reply) => confirmPage(request, reply, request.params.token),
  )
  // Links mailed before tokens moved into the path (`?token=`) keep working for their 24 hours.
  r.get(
    '/verify',
    { schema: { hide, querystring: TokenQuery, response: pageResponses({ 200: 'Confirm the verification' }) } },
    async (request, reply) => confirmPage(request, reply, request.query.token ?? ''),
  )

  r.post(
    '/verify',
    {
      schema: {
        hide,
        querystring: NoQuery,
        body: TokenBody,
        response: pageResponses({ 200: 'The address is verified' }),
      },
    },
    async (request, reply) => {
      const ctx = portal.context(request, reply)
      // One transaction: the link used up, the address verified, every other pending link of the user voided.
      const userId = await repo.verifyAddress(request.body.token, request.ip)
      if (!userId) return sendPage(reply, 400, page(ctx, 'Verify your email address', linkUnusable(verifyAgain)))
      await sessions.endOthers(userId, request.visitor)
      const signedIn = request.visitor.user?.id === userId
      const next = signedIn
        ? html`<a href="/portal/keys">Create your first key</a>`
        : html`<a href="/portal/login">Log in</a> to create your first key`
      const after = signedIn ? ctx : { ...ctx, email: undefined }
      return sendPage(
        reply,
        200,
        page(
          after,
          'Address verified',
          html`<p>Thank you: your address is verified. ${next}.</p>
<p class="muted">Every other session of this account was logged out. Use the password you chose when you last signed \
up.</p>`,
        ),
      )
    },
  )

  r.post(
    '/verify/resend',
    { schema: { hide, querystring: NoQuery, response: pageResponses({}) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      if (!user.verified_at) {
        const message = await verification.freshLinkMessage(user)
        if (message) {
          await mailer.send(message)
          // As the console's `Resend verification` is: the account's activity shows who asked for another link.
          const accountId = user.account_id
          await portal.audit.record(integratorActor(user, request.ip), {
            action: 'account.verification_resent',
            accountId,
            target: { kind: 'account', id: accountId },
            changes: { email: user.email },
          })
        }
      }
      return redirect(reply, '/portal/keys?sent=1')
    },
  )
}
