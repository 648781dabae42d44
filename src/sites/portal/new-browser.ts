// Mail about a sign-in from a browser the account has not been used from before (issue 37). Each browser gets a
// long-lived random cookie (HttpOnly, SameSite=Lax; Secure and `__Host-` when PETSTORE_PUBLIC_URL is https, as the
// session's), and a sign-in whose cookie is not listed for its user (modules/integrators/known-devices.ts) is mailed:
// when, which browser (named as the sessions table names it, from a fixed list: the header cannot write the mail),
// from which address, and what to do if it was not them. The cookie is a random value, never a fingerprint; one
// that is not of our shape is replaced. Only a verified address is mailed.
import { randomBytes } from 'node:crypto'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { KnownDevices } from '../../modules/integrators/known-devices.js'
import { mailFailed } from './signup.routes.js'
import { newSignInMessage } from './mail-messages.js'
import type { Portal } from './portal.context.js'
import { browserSummary, readableAddress } from './user-agent.js'

/** 400 days: the longest a browser keeps a cookie. */
const MAX_AGE_SECONDS = 400 * 86_400
const OURS = /^[A-Za-z0-9_-]{43}$/

/** What log-in calls once the user has signed in (after the session has started). */
export function newBrowserCheck(portal: Pick<Portal, 'config' | 'clock' | 'mailer' | 'link'>, devices: KnownDevices) {
  const secure = portal.config.publicUrl.startsWith('https:')
  const name = `${secure ? '__Host-' : ''}portal_browser`
  return async (
    request: FastifyRequest,
    reply: FastifyReply,
    user: { id: string; email: string; verified_at: string | null },
  ) => {
    const given = request.cookies[name]
    const cookie = given !== undefined && OURS.test(given) ? given : randomBytes(32).toString('base64url')
    if (cookie !== given) {
      reply.setCookie(name, cookie, { path: '/', httpOnly: true, sameSite: 'lax', secure, maxAge: MAX_AGE_SECONDS })
    }
    // An address not verified yet may not be the signer-up's (pre-hijacking): it is not mailed, and the browser is not
    // noted either, so the first sign-in after verification is mailed as any new browser's would be.
    if (user.verified_at === null) return
    if (await devices.signedInFrom(user.id, cookie)) return
    const at = `${new Date(portal.clock.now()).toISOString().slice(0, 16).replace('T', ' ')} UTC`
    const message = newSignInMessage(user.email, {
      at,
      browser: browserSummary(request.headers['user-agent']),
      address: readableAddress(request.ip),
      accountLink: portal.link('/portal/account'),
      resetLink: portal.link('/portal/reset-request'),
    })
    portal.mailer.sendLater(message, mailFailed(request))
  }
}
