// What the second-factor step of log-in and the sudo confirmation share: reading a passkey's answer, the words for a
// code's outcome, and the security mail either may send (a recovery code used, the step locked, a copied passkey).
import type { FastifyRequest } from 'fastify'
import type { AuthenticationResponseJSON } from '@simplewebauthn/server'
import { integratorActor } from '../../modules/integrators/actor.js'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import type { CodeCheck } from '../../modules/two-factor/two-factor.types.js'
import { type SecurityEvent, securityMessage } from './security-mail.js'
import type { Portal } from './portal.context.js'
import { mailFailed } from './signup.routes.js'

/** An instant as the mail and the pages write it: `2026-11-28 21:40 UTC`. */
const minuteText = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`

export function mailSecurity(portal: Portal, request: FastifyRequest, user: PortalUser, event: SecurityEvent): void {
  const links = { account: portal.link('/portal/account'), reset: portal.link('/portal/reset-request') }
  const message = securityMessage(user.email, event, minuteText(portal.clock.now()), links)
  portal.mailer.sendLater(message, mailFailed(request))
}

/** The mail a code's outcome calls for, if any. */
export function securityMail(portal: Portal, request: FastifyRequest, user: PortalUser, result: CodeCheck): void {
  if (result.outcome === 'recovery_code')
    mailSecurity(portal, request, user, { kind: 'recovery_code_used', left: result.left })
  if (result.outcome === 'wrong' && result.lockedUntil !== undefined)
    mailSecurity(portal, request, user, { kind: 'locked', until: minuteText(result.lockedUntil) })
}

/** Why a code did not confirm anything (undefined: it did). */
export function codeProblem(result: CodeCheck): string | undefined {
  switch (result.outcome) {
    case 'app':
    case 'recovery_code':
      return undefined
    case 'wrong':
      return result.lockedUntil === undefined
        ? 'That code is not right (or was already used). Try the next code your app shows.'
        : `Too many wrong codes: two-factor log-in is locked until ${minuteText(result.lockedUntil)}. We mailed you.`
    case 'locked':
      return `Too many wrong codes: two-factor log-in is locked until ${minuteText(result.until)}.`
    case 'address':
      return `Too many wrong codes from your address: try again after ${minuteText(result.until)}.`
  }
}

/**
 * The user whose passkey answered this browser's challenge, or why not. A copied passkey (its counter went back) is
 * refused, recorded and mailed.
 */
export async function passkeyAnswer(
  portal: Portal,
  request: FastifyRequest,
  purpose: 'sign_in' | 'confirm',
  text: string,
): Promise<{ user?: PortalUser; problem?: string }> {
  let response: AuthenticationResponseJSON
  try {
    response = JSON.parse(text) as AuthenticationResponseJSON
    if (typeof response !== 'object' || response === null) throw new Error('not an object')
  } catch {
    return { problem: 'The passkey answer could not be read. Try again.' }
  }
  const check = await portal.twoFactor.checkPasskey(request.visitor.binding, purpose, response)
  if (check.outcome === 'invalid')
    return {
      problem: 'That passkey could not be checked: it may be for another account, or the request expired. Try again.',
    }
  const user = await portal.repo.findUser(check.userId)
  if (!user) return { problem: 'That passkey could not be checked. Try again.' }
  if (check.outcome === 'cloned') {
    await portal.twoFactor.recordClone(user, check.passkey, integratorActor(user, request.ip))
    mailSecurity(portal, request, user, { kind: 'passkey_cloned', name: check.passkey.name })
    return { problem: 'That passkey was refused: it looks copied to another device. We mailed the account owner.' }
  }
  return { user }
}
