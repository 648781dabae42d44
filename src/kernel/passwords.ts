// Portal passwords: 15–128 characters (NIST SP 800-63B rev. 4 for a password used alone), no composition
// rules, refused when on a list of common passwords or easy to guess (password-rules.ts); stored as scrypt
// (node:crypto) with its parameters, so they can be raised later without invalidating stored hashes.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { createRequire } from 'node:module'
import { PASSWORD_HASH_COST } from './config.js'
import {
  emailProblem,
  productNameProblem,
  repetitionProblem,
  sequenceProblem,
  strengthEstimator,
  type StrengthEstimator,
} from './password-rules.js'

export const PASSWORD_MIN = 15
export const PASSWORD_MAX = 128

// N = 2^15, r = 8, p = 1: 32 MiB and about 0.1 s of one core per hash, on libuv's thread pool (a busy 2-core
// machine measured 0.3 s). OWASP's figure is higher (N = 2^17); the parameters are stored with each hash, so a
// deployment can raise them (PASSWORD_HASH_COST, log2 of N) and old hashes still verify. Lower is for tests only
// (config.ts refuses it in production): the suite signs up and logs in hundreds of times.
const R = 8
const P = 1
const KEY_LENGTH = 32

let common: Set<string> | undefined
/** zxcvbn-ts's list of ~49,000 common passwords (from leaked-password corpora), loaded on first use. */
function commonPasswords(): Set<string> {
  common ??= new Set(
    (createRequire(import.meta.url)('@zxcvbn-ts/language-common') as typeof import('@zxcvbn-ts/language-common'))
      .dictionary['passwords-common'],
  )
  return common
}

let estimator: StrengthEstimator | undefined
/** zxcvbn-ts, built on first use (its dictionaries take ~0.3 s to load) and kept for the process. */
function strength(): StrengthEstimator {
  estimator ??= strengthEstimator()
  return estimator
}

/**
 * Why a new password is refused, or undefined when it is acceptable; the message names the rule. `email` is the
 * address the password is for (the one typed at sign-up, the user's at a reset or change). Length counts
 * characters, not bytes. Cheap rules first, so zxcvbn (a few ms) judges only what they let through.
 */
export function passwordProblem(password: string, context: { email?: string } = {}): string | undefined {
  const length = [...password].length
  if (length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters (a few words make a good one).`
  if (length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`
  if (commonPasswords().has(password.toLowerCase()))
    return 'This password is on a list of commonly used passwords; choose another.'
  const email = context.email?.trim()
  return (
    repetitionProblem(password) ??
    sequenceProblem(password) ??
    emailProblem(password, email) ??
    productNameProblem(password) ??
    strength()(password, email)
  )
}

function derive(password: string, salt: Buffer, cost: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(
      password.normalize('NFKC'),
      salt,
      KEY_LENGTH,
      { ...cost, maxmem: 128 * cost.N! * cost.r! * 2 },
      (error, key) => (error ? reject(error) : resolve(key)),
    ),
  )
}

/**
 * What a portal user made by an operator (PORTAL_SIGNUP=closed) holds until its owner chooses a password through the
 * mailed link: no password matches it, and a log-in spends the time of a real check anyway (hasPassword).
 */
export const UNSET_PASSWORD = 'unset'
export const hasPassword = (stored: string): boolean => stored !== UNSET_PASSWORD

/** A new hash at `cost` (log2 of scrypt's N; the app passes config.passwordHashCost), carrying its parameters. */
export async function hashPassword(password: string, cost = PASSWORD_HASH_COST): Promise<string> {
  const salt = randomBytes(16)
  const N = 2 ** cost
  const key = await derive(password, salt, { N, r: R, p: P })
  return ['scrypt', N, R, P, salt.toString('base64url'), key.toString('base64url')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, N, r, p, salt, expected] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !expected) return false
  const key = await derive(password, Buffer.from(salt, 'base64url'), { N: Number(N), r: Number(r), p: Number(p) })
  const want = Buffer.from(expected, 'base64url')
  return key.length === want.length && timingSafeEqual(key, want)
}

const dummies = new Map<number, Promise<string>>()
/**
 * Spends the time of a real check when there is no user, so a log-in's timing does not tell whether one exists: a
 * hash at the cost new hashes get (`cost`, as hashPassword's).
 */
export async function verifyAgainstNobody(password: string, cost = PASSWORD_HASH_COST): Promise<false> {
  let dummy = dummies.get(cost)
  if (!dummy) {
    dummy = hashPassword('no user has this password, it only spends time', cost)
    dummies.set(cost, dummy)
  }
  await verifyPassword(password, await dummy)
  return false
}
