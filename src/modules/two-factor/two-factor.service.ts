// Integrators' second factors: the rules (what counts as a factor, when recovery codes are made and voided, what a
// code or a passkey proves) and the audit entry of every change, written in the change's transaction. The sites
// turn the outcomes into pages and mail; nothing here knows HTTP.
import type { Kysely } from 'kysely'
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'
import type { Clock } from '../../kernel/clock.js'
import type { Database } from '../../db/schema.js'
import type { SecretBox } from '../../kernel/secret-box.js'
import type { AuditAction, AuditActor } from '../audit/audit-event.js'
import { accountChange } from '../audit/audit.repository.js'
import { newRecoveryCodes, recoveryCodeHash, looksLikeRecoveryCode } from '../sign-in/recovery-codes.js'
import { matchingStep, newTotpSecret, normalizeTotpCode, totpStep, totpUri } from '../sign-in/totp.js'
import { codeThrottle } from './code-throttle.js'
import { factorsRepository, type PasskeyRow } from './factors.repository.js'
import { loginSteps } from './login-steps.repository.js'
import { type ChallengePurpose, webauthnChallenges } from './webauthn-challenges.repository.js'
import {
  authenticationOptions,
  challengeOf,
  checkedAssertion,
  registrationOptions,
  relyingPartyOf,
  verifiedRegistration,
} from './webauthn.js'
import type { TwoFactorStatus, CodeCheck, PasskeyCheck, FactorUser } from './two-factor.types.js'

const NAME_MAX = 60

export function createTwoFactor({
  db,
  clock,
  secrets,
  publicUrl,
}: {
  db: Kysely<Database>
  clock: Clock
  /** Seals the authenticator apps' secrets; undefined (production without PETSTORE_SECRETS_KEY): no app enrolment. */
  secrets: SecretBox | undefined
  publicUrl: string
}) {
  const repo = factorsRepository(db)
  const throttle = codeThrottle({ db, clock })
  const challenges = webauthnChallenges({ db, clock })
  const steps = loginSteps({ db, clock })
  const rp = relyingPartyOf(publicUrl)
  const context = (userId: string) => `portal-totp:${userId}`

  const change = <T>(
    user: FactorUser,
    actor: AuditActor,
    action: AuditAction,
    changes: Record<string, unknown>,
    work: (trx: ReturnType<typeof factorsRepository>) => Promise<T>,
  ): Promise<T> =>
    accountChange(
      db,
      () => clock.now(),
      { accountId: user.account_id, actor, action, changes },
      (trx) => work(factorsRepository(trx)),
    )

  async function status(userId: string): Promise<TwoFactorStatus> {
    const [totp, passkeys, recoveryCodesLeft] = [
      await repo.totpOf(userId),
      await repo.passkeysOf(userId),
      await repo.recoveryCodesLeft(userId),
    ]
    const app = totp?.confirmed === true
    return { app, passkeys, recoveryCodesLeft, enabled: app || passkeys.length > 0 }
  }

  /** Recovery codes for a user getting their first factor (undefined if they had one already). */
  const firstFactorCodes = async (trx: ReturnType<typeof factorsRepository>, had: boolean, userId: string) => {
    if (had) return undefined
    const codes = newRecoveryCodes()
    await trx.replaceRecoveryCodes(
      userId,
      codes.map((c) => recoveryCodeHash(c)!),
    )
    return codes
  }

  return {
    rp,
    steps,
    appAvailable: secrets !== undefined,
    status,

    /** A new authenticator-app secret awaiting its first code (a confirmed app stays until removed). */
    async startApp(user: FactorUser): Promise<{ secret: string; uri: string } | undefined> {
      if (!secrets) return undefined
      const existing = await repo.totpOf(user.id)
      if (existing?.confirmed) return undefined
      const secret = newTotpSecret()
      await repo.setPendingTotp(user.id, secrets.seal(secret, context(user.id)))
      return { secret, uri: totpUri(secret, user.email, 'Petstore') }
    },

    /** The pending secret again (the enrolment page reloaded, or a wrong first code). */
    async pendingApp(user: FactorUser): Promise<{ secret: string; uri: string } | undefined> {
      const existing = await repo.totpOf(user.id)
      if (!secrets || !existing || existing.confirmed) return undefined
      const secret = secrets.open(existing.sealed, context(user.id))
      return { secret, uri: totpUri(secret, user.email, 'Petstore') }
    },

    async confirmApp(
      user: FactorUser,
      code: string,
      actor: AuditActor,
    ): Promise<{ outcome: 'confirmed'; recoveryCodes?: string[] } | { outcome: 'wrong' | 'none' }> {
      const pending = await this.pendingApp(user)
      if (!pending) return { outcome: 'none' }
      const step = matchingStep(pending.secret, code, clock.now())
      if (step === undefined) return { outcome: 'wrong' }
      const had = (await status(user.id)).enabled
      return change(user, actor, 'account.totp_added', {}, async (trx) => {
        if (!(await trx.confirmTotp(user.id, clock.now(), step))) return { outcome: 'none' as const }
        const recoveryCodes = await firstFactorCodes(trx, had, user.id)
        return { outcome: 'confirmed' as const, recoveryCodes }
      })
    },

    /** Removes the app; the last factor gone turns two-factor log-in off (recovery codes void). */
    async removeApp(user: FactorUser, actor: AuditActor): Promise<{ removed: boolean; stillEnabled: boolean }> {
      const passkeys = (await repo.passkeysOf(user.id)).length
      return change(user, actor, 'account.totp_removed', { twoFactorOff: passkeys === 0 }, async (trx) => {
        const removed = await trx.removeTotp(user.id)
        if (passkeys === 0) await trx.clearRecoveryCodes(user.id)
        return { removed, stillEnabled: passkeys > 0 }
      })
    },

    async registrationOptions(user: FactorUser, binding: string): Promise<PublicKeyCredentialCreationOptionsJSON> {
      const options = await registrationOptions(rp, user, await repo.passkeysOf(user.id))
      await challenges.store(options.challenge, binding, 'register', user.id)
      return options
    },

    async addPasskey(
      user: FactorUser,
      binding: string | undefined,
      response: RegistrationResponseJSON,
      name: string,
      actor: AuditActor,
    ): Promise<{ outcome: 'added'; recoveryCodes?: string[] } | { outcome: 'invalid' | 'exists' }> {
      const challenge = challengeOf(response)
      const taken = challenge === undefined ? undefined : await challenges.take(challenge, binding, 'register')
      if (!taken || taken.userId !== user.id) return { outcome: 'invalid' }
      const credential = await verifiedRegistration(rp, response, challenge!)
      if (!credential) return { outcome: 'invalid' }
      if (await repo.passkey(credential.id)) return { outcome: 'exists' }
      const had = (await status(user.id)).enabled
      const label = name.trim().slice(0, NAME_MAX) || 'Passkey'
      return change(user, actor, 'account.passkey_added', { name: label }, async (trx) => {
        await trx.addPasskey({ ...credential, userId: user.id, name: label, createdAt: clock.now() })
        const recoveryCodes = await firstFactorCodes(trx, had, user.id)
        return { outcome: 'added' as const, recoveryCodes }
      })
    },

    async removePasskey(
      user: FactorUser,
      id: string,
      actor: AuditActor,
    ): Promise<{ removed?: PasskeyRow; stillEnabled: boolean }> {
      const before = await status(user.id)
      const mine = before.passkeys.find((p) => p.id === id)
      if (!mine) return { stillEnabled: before.enabled }
      const stillEnabled = before.app || before.passkeys.length > 1
      return change(
        user,
        actor,
        'account.passkey_removed',
        { name: mine.name, twoFactorOff: !stillEnabled },
        async (trx) => {
          const removed = await trx.removePasskey(user.id, id)
          if (!stillEnabled) await trx.clearRecoveryCodes(user.id)
          return { removed, stillEnabled }
        },
      )
    },

    /** A new set of recovery codes (the old one void); undefined when two-factor log-in is off. */
    async regenerateRecoveryCodes(user: FactorUser, actor: AuditActor): Promise<string[] | undefined> {
      if (!(await status(user.id)).enabled) return undefined
      const codes = newRecoveryCodes()
      await change(user, actor, 'account.recovery_codes_regenerated', {}, (trx) =>
        trx.replaceRecoveryCodes(
          user.id,
          codes.map((c) => recoveryCodeHash(c)!),
        ),
      )
      return codes
    },

    /** Options for a passkey ceremony that proves who is there (signing in, or confirming in sudo mode). */
    async assertionOptions(
      binding: string,
      purpose: Exclude<ChallengePurpose, 'register'>,
      userId: string | null,
    ): Promise<PublicKeyCredentialRequestOptionsJSON> {
      const options = await authenticationOptions(rp)
      if (userId !== null) {
        const mine = await repo.passkeysOf(userId)
        options.allowCredentials = mine.map((p) => ({
          id: p.id,
          type: 'public-key',
          transports: p.transports as never,
        }))
      }
      await challenges.store(options.challenge, binding, purpose, userId)
      return options
    },

    /** Whose passkey answered this browser's challenge: the passkey's user, or why not. */
    async checkPasskey(
      binding: string | undefined,
      purpose: Exclude<ChallengePurpose, 'register'>,
      response: AuthenticationResponseJSON,
    ): Promise<PasskeyCheck> {
      const challenge = challengeOf(response)
      const taken = challenge === undefined ? undefined : await challenges.take(challenge, binding, purpose)
      if (!taken || typeof response.id !== 'string') return { outcome: 'invalid' }
      const passkey = await repo.passkey(response.id)
      if (!passkey || (taken.userId !== null && taken.userId !== passkey.userId)) return { outcome: 'invalid' }
      const check = await checkedAssertion(rp, response, challenge!, passkey)
      if (check.outcome === 'cloned') return { outcome: 'cloned', userId: passkey.userId, passkey }
      if (check.outcome === 'invalid') return { outcome: 'invalid' }
      const used = await repo.usedPasskey(passkey.id, passkey.counter, check.newCounter, clock.now())
      return used ? { outcome: 'valid', userId: passkey.userId, passkey } : { outcome: 'invalid' }
    },

    /**
     * A code typed at the second-factor step or to confirm an action: the app's next code, or an unused recovery
     * code (used up by it), within the throttle (code-throttle.ts).
     */
    async checkCode(user: FactorUser, code: string, address: string, actor: AuditActor): Promise<CodeCheck> {
      const attempt = await throttle.attempt(user.id, address)
      if (!attempt.allowed) return { outcome: attempt.reason, until: attempt.until }
      const now = clock.now()
      if (normalizeTotpCode(code) !== undefined) {
        const app = await repo.totpOf(user.id)
        const step =
          app?.confirmed && secrets ? matchingStep(secrets.open(app.sealed, context(user.id)), code, now) : undefined
        if (step !== undefined && (await repo.acceptTotpStep(user.id, step))) {
          await attempt.succeeded()
          return { outcome: 'app' }
        }
      } else if (looksLikeRecoveryCode(code)) {
        const used = await change(user, actor, 'account.recovery_code_used', {}, async (trx) => {
          if (!(await trx.useRecoveryCode(user.id, code, now))) throw new NotUsed()
          return trx.recoveryCodesLeft(user.id)
        }).catch((error: unknown) => {
          if (error instanceof NotUsed) return undefined
          throw error
        })
        if (used !== undefined) {
          await attempt.succeeded()
          return { outcome: 'recovery_code', left: used }
        }
      }
      const { lockedUntil } = await attempt.failed()
      if (lockedUntil !== undefined)
        await change(
          user,
          actor,
          'account.second_factor_locked',
          { until: new Date(lockedUntil).toISOString() },
          async () => {},
        )
      return { outcome: 'wrong', lockedUntil }
    },

    lockedUntil: (userId: string) => throttle.lockedUntil(userId),

    /** A cloned authenticator was refused: the audit entry (the site mails the owner). */
    recordClone: (user: FactorUser, passkey: PasskeyRow, actor: AuditActor) =>
      change(user, actor, 'account.passkey_clone_refused', { name: passkey.name }, async () => {}),

    /**
     * An operator's reset, after verifying the person out of band (`reason`: how, for the audit log): every factor
     * and code gone, log-in by password.
     */
    async resetAll(user: FactorUser, actor: AuditActor, reason?: string): Promise<void> {
      const changes = reason === undefined ? {} : { reason }
      await change(user, actor, 'account.second_factors_reset', changes, (trx) => trx.clearAll(user.id))
    },

    /** The TOTP step of now (tests and the enrolment page's hint use it). */
    stepNow: () => totpStep(clock.now()),
  }
}

/** A recovery code that was not the user's (rolls its audit entry back). */
class NotUsed extends Error {}

export type TwoFactor = ReturnType<typeof createTwoFactor>
