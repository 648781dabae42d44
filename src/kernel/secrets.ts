// Random secrets the service hands out (API keys, session ids, emailed tokens) and the hash it stores instead of them.
import { hash, randomBytes } from 'node:crypto'

/** 32 bytes from the CSPRNG, base64url (43 characters). */
export const randomSecret = (): string => randomBytes(32).toString('base64url')

/**
 * What the database keeps of a secret: its SHA-256 (the secret is random, so a fast hash is enough to look it up
 * by). The one-shot hash: every authenticated request runs it, and it skips creating a Hash object.
 */
export const secretHash = (secret: string): string => hash('sha256', secret, 'hex')
