// Random secrets the portal hands out (session ids, emailed tokens) and the hash it stores instead of them.
import { randomBytes } from 'node:crypto'
import { hashApiKey } from '../modules/accounts/api-keys.js'

/** 32 bytes from the CSPRNG, base64url (43 characters). */
export const randomSecret = (): string => randomBytes(32).toString('base64url')

/**
 * What the database keeps of a secret: its SHA-256, the same one-shot hash as an API key's (the secret is random,
 * so a fast hash is enough).
 */
export const secretHash: (secret: string) => string = hashApiKey
