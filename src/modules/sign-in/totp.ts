// Time-based one-time passwords (RFC 6238), for operators (the console) and integrators (the portal), as every
// authenticator app reads them: SHA-1, 6 digits, 30-second
// steps. A code of the current step or of the step on either side (clock drift between phone and server) is
// accepted; which step it matched is returned, so the caller can record it and refuse the same code again.
import { Secret, TOTP } from 'otpauth'

const PERIOD_S = 30
const DIGITS = 6
const ALGORITHM = 'SHA1'
/** Steps either side of the current one that are still accepted. */
const DRIFT_STEPS = 1
/** How the app names the entry: the console's and the portal's codes are apart in the person's list. */
type TotpIssuer = 'Petstore console' | 'Petstore'

/** A new secret: 160 bits (RFC 4226's recommended length), base32 as authenticator apps take it. */
export const newTotpSecret = (): string => new Secret({ size: 20 }).base32

const totpOf = (secret: string, label = 'operator', issuer: TotpIssuer = 'Petstore console') =>
  new TOTP({
    issuer,
    label,
    secret: Secret.fromBase32(secret),
    algorithm: ALGORITHM,
    digits: DIGITS,
    period: PERIOD_S,
  })

/** The `otpauth://totp/…` URI an authenticator app reads from the QR code (or typed in). */
export const totpUri = (secret: string, email: string, issuer: TotpIssuer = 'Petstore console'): string =>
  totpOf(secret, email, issuer).toString()

/** The 30-second step an instant (epoch ms) falls in. */
export const totpStep = (at: number): number => Math.floor(at / 1000 / PERIOD_S)

/** The code of `secret` at an instant (for tests, and nothing else: the server only verifies). */
export const totpCode = (secret: string, at: number): string => totpOf(secret).generate({ timestamp: at })

/** Whether `code` is a well-formed code (6 digits, spaces allowed as apps show them `123 456`). */
export const normalizeTotpCode = (code: string): string | undefined => {
  const digits = code.replace(/\s+/g, '')
  return /^\d{6}$/.test(digits) ? digits : undefined
}

/** The step whose code `code` is (current ±1 step at `at`), or undefined. */
export function matchingStep(secret: string, code: string, at: number): number | undefined {
  const token = normalizeTotpCode(code)
  if (token === undefined) return undefined
  const delta = totpOf(secret).validate({ token, timestamp: at, window: DRIFT_STEPS })
  return delta === null ? undefined : totpStep(at) + delta
}
