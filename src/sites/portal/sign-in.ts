// How a log-in ends, whichever way it went (a password alone, a password and a code, a passkey): the step cookie
// ended, a new session, the new-browser mail; and what follows a right password (the second step when the account
// has two-factor log-in on).
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import { STEP_TTL_MS } from '../../modules/two-factor/login-steps.repository.js'
import { redirect, sendPage } from '../kit/reply.js'
import { page } from './layout.js'
import { secondStepPage } from './login-step.pages.js'
import { newBrowserCheck } from './new-browser.js'
import type { Portal } from './portal.context.js'

const TITLE = 'Two-factor log-in'

export function signInFlow(portal: Portal) {
  const { twoFactor, sessions } = portal
  const secure = portal.config.publicUrl.startsWith('https:')
  const cookie = `${secure ? '__Host-' : ''}portal_login_step`
  const cookieOptions = { path: '/', httpOnly: true, sameSite: 'lax' as const, secure }
  const newBrowser = newBrowserCheck(portal, portal.knownDevices)

  const stepPage = (
    request: FastifyRequest,
    reply: FastifyReply,
    input: { next: string; passkey: boolean; status: number; error?: string },
  ) => {
    const ctx = portal.context(request, reply)
    return sendPage(reply, input.status, page(ctx, TITLE, secondStepPage({ csrf: ctx.csrf, ...input })))
  }

  return {
    cookie,
    stepPage,

    /** The step's user, if this browser's step is live. */
    async stepUser(request: FastifyRequest): Promise<PortalUser | undefined> {
      const step = await twoFactor.steps.userOf(request.cookies[cookie])
      const user = step && (await portal.repo.findUser(step.userId))
      // A password changed (or reset) since the password step voids it.
      return user && String(user.password_changed_at ?? '') === step.passwordChangedAt ? user : undefined
    },

    /** Ends this browser's step; false when another request ended it first. */
    endStep: async (request: FastifyRequest): Promise<boolean> => {
      const step = request.cookies[cookie]
      return step !== undefined && (await twoFactor.steps.finish(step))
    },

    stepGone(request: FastifyRequest, reply: FastifyReply) {
      reply.clearCookie(cookie, cookieOptions)
      const error = 'This log-in has expired (10 minutes), or its password has changed since. Log in again.'
      return stepPage(request, reply, { next: '/portal/keys', passkey: false, status: 400, error })
    },

    /** `accountId`: the account the new session works in (an invitation just accepted), else the user's first. */
    async signIn(request: FastifyRequest, reply: FastifyReply, user: PortalUser, to: string, accountId?: string) {
      const step = request.cookies[cookie]
      if (step !== undefined) {
        await twoFactor.steps.finish(step)
        reply.clearCookie(cookie, cookieOptions)
      }
      portal.metrics.logins.inc()
      const sessionId = await sessions.start(request, reply, request.visitor, user)
      if (accountId) await portal.repo.setSessionAccount(sessionId, accountId)
      await newBrowser(request, reply, user)
      return redirect(reply, to)
    },

    /** After a right password: the second step, or the session at once when the account has no second factor. */
    async afterPassword(request: FastifyRequest, reply: FastifyReply, user: PortalUser, to: string) {
      const status = await twoFactor.status(user.id)
      if (!status.enabled) return this.signIn(request, reply, user, to)
      reply.setCookie(cookie, await twoFactor.steps.start(user), { ...cookieOptions, maxAge: STEP_TTL_MS / 1000 })
      return stepPage(request, reply, { next: to, passkey: status.passkeys.length > 0, status: 200 })
    },
  }
}
