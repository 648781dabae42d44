// The two account actions support may use as well as admin: Lift ban (a key banned for too many refused requests is
// admitted again) and Resend verification (a fresh link to the portal user's address, as the portal's sign-up mails
// it: accounts/verification.ts). Registered by account-actions.routes.ts; the same rules: role first, CSRF checked
// by the plugin, a confirmation page, 303 back with a notice.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { Account } from '../../modules/accounts/accounts.repository.js'
import { liftBan } from '../../modules/limits/ban-lifting.js'
import { pageResponses } from '../kit/page-schemas.js'
import { PageError } from '../kit/reply.js'
import { liftBanPage, resendPage } from './account-actions.pages.js'
import { bansOf, keyOf, liveAccount, ownerMailer } from './account-lookups.js'
import { backToAccount, confirmPage } from './account-replies.js'
import { AccountKeyParams, AccountParams, ConfirmBody } from './account.schemas.js'
import type { OperatorConsole } from './console.context.js'

const hide = true
const confirmResponses = pageResponses({ 200: 'The confirmation step' })
const actionResponses = pageResponses({})

export async function supportActionsRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  // Lift ban (support and admin).
  r.get(
    '/accounts/:id/keys/:keyId/unban',
    { schema: { hide, params: AccountKeyParams, response: confirmResponses } },
    async (request, reply) => {
      c.require(request, 'support')
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      const key = await keyOf(c, account, request.params.keyId)
      const until = (await bansOf(c, [key.id], c.clock.now())).get(key.id)
      return confirmPage(reply, ctx, 'Lift a ban', 200, liftBanPage(ctx.csrf, account, key, until))
    },
  )
  r.post(
    '/accounts/:id/keys/:keyId/unban',
    { schema: { hide, params: AccountKeyParams, body: ConfirmBody, response: actionResponses } },
    async (request, reply) => {
      c.require(request, 'support')
      const account = await liveAccount(c, request.params.id)
      const key = await keyOf(c, account, request.params.keyId)
      const { wasBanned } = await liftBan({
        store: c.limiter.store,
        audit: c.audit,
        keyId: key.id,
        accountId: account.id,
        actor: c.actor(request),
      })
      return backToAccount(reply, account, wasBanned ? 'ban-lifted' : 'not-banned')
    },
  )

  // Resend verification (support and admin): the portal user's address, if it has one and it is not verified.
  async function unverifiedUser(account: Account) {
    const user = await c.verification.userOf(account.id)
    if (!user)
      throw new PageError(
        400,
        'No address to verify',
        `The account ${account.id} has no portal user (it was made with the CLI): there is no address to verify.`,
      )
    if (user.invited)
      throw new PageError(
        400,
        'No password chosen yet',
        `The owner of ${account.id} has not chosen a password yet: send the password link again instead.`,
      )
    if (user.verifiedAt !== null)
      throw new PageError(
        400,
        'Already verified',
        `The address of the account ${account.id} is already verified: nothing was sent.`,
      )
    return user
  }
  r.get(
    '/accounts/:id/verification',
    { schema: { hide, params: AccountParams, response: confirmResponses } },
    async (request, reply) => {
      c.require(request, 'support')
      ownerMailer(c)
      const ctx = c.context(request, reply)
      const account = await liveAccount(c, request.params.id)
      const user = await unverifiedUser(account)
      return confirmPage(reply, ctx, 'Resend verification', 200, resendPage(ctx.csrf, account, user))
    },
  )
  r.post(
    '/accounts/:id/verification',
    { schema: { hide, params: AccountParams, body: ConfirmBody, response: actionResponses } },
    async (request, reply) => {
      c.require(request, 'support')
      const actor = c.actor(request)
      const mailer = ownerMailer(c)
      const account = await liveAccount(c, request.params.id)
      const user = await unverifiedUser(account)
      const message = await c.verification.freshLinkMessage(user)
      if (!message) return backToAccount(reply, account, 'verification-recent')
      await mailer.send(message)
      // The address is the account's own (no secret); the link's token is never recorded.
      await c.audit.record(actor, {
        action: 'account.verification_resent',
        accountId: account.id,
        target: { kind: 'account', id: account.id },
        changes: { email: user.email },
      })
      return backToAccount(reply, account, 'verification')
    },
  )
}
