// What the two-factor service answers with, shared by the service and the sites.
import type { PasskeyRow } from './factors.repository.js'

/** The portal user as the two-factor service needs them. */
export interface FactorUser {
  id: string
  account_id: string
  email: string
}

export interface TwoFactorStatus {
  /** An authenticator app is set up (confirmed by a code). */
  app: boolean
  passkeys: PasskeyRow[]
  recoveryCodesLeft: number
  /** Log-in with a password asks for a second factor: the app or a passkey is set up. */
  enabled: boolean
}

export type CodeCheck =
  | { outcome: 'app' }
  | { outcome: 'recovery_code'; left: number }
  /** Wrong; `lockedUntil` when this code locked the user's second-factor step (mail the owner). */
  | { outcome: 'wrong'; lockedUntil?: number }
  /** Not checked: the user's step is locked, or this address sent too many wrong codes. */
  | { outcome: 'locked' | 'address'; until: number }

export type PasskeyCheck =
  | { outcome: 'valid'; userId: string; passkey: PasskeyRow }
  | { outcome: 'invalid' }
  | { outcome: 'cloned'; userId: string; passkey: PasskeyRow }
