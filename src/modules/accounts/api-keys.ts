// API key secrets: 32 bytes from the CSPRNG, base64url, behind a prefix naming the environment.
// Only the SHA-256 of the whole secret is stored: the key is random, so a fast hash is safe to look up by.
import { randomBytes } from 'node:crypto'
import { secretHash } from '../../kernel/secrets.js'
import type { Environment } from '../../kernel/config.js'

export type KeyEnvironment = 'live' | 'test'

export function keyEnvironment(environment: Environment): KeyEnvironment {
  return environment === 'production' ? 'live' : 'test'
}

export function keyPrefix(env: KeyEnvironment): string {
  return `ps_${env}_`
}

export function generateApiKey(env: KeyEnvironment): string {
  return keyPrefix(env) + randomBytes(32).toString('base64url')
}

/** What is stored of a key: its SHA-256, as of every secret the service hands out. */
export const hashApiKey = secretHash

/** What a listing shows of a key: enough to recognise it, far too little to use it. */
export function displayPrefix(key: string): string {
  return key.slice(0, keyPrefix('test').length + 4)
}

/** Opaque, prefixed ids (`acct_…`, `key_…`): recognisable in logs and never guessable in sequence. */
export function newId(kind: 'acct' | 'key' | 'user'): string {
  return `${kind}_${randomBytes(10).toString('hex')}`
}
