// Secrets the service must use again (webhook signing secrets), kept encrypted with AES-256-GCM under a key from
// the configuration (PETSTORE_SECRETS_KEY), so a copy of the database alone does not hold usable secrets. Each
// value is bound to where it is stored (the `context`, e.g. an endpoint's id): a ciphertext copied onto another
// row does not decrypt there. Several keys may be configured: the first encrypts, every one decrypts, so an
// operator can rotate the key and re-encrypt at leisure.
import { createCipheriv, createDecipheriv, hash, randomBytes } from 'node:crypto'

export interface SecretBox {
  seal(plaintext: string, context: string): string
  /** Throws SecretBoxError when the value was sealed under no configured key, for another context, or altered. */
  open(sealed: string, context: string): string
}

export class SecretBoxError extends Error {
  override name = 'SecretBoxError'
}

/** The development key, used outside production when PETSTORE_SECRETS_KEY is unset: public, so protecting nothing. */
export const DEVELOPMENT_SECRETS_KEY = hash('sha256', 'petstore development secrets key', 'base64')

/** A key setting's keys: comma-separated, each 32 bytes as base64 (44 characters) or hex (64). */
export function parseSecretsKeys(raw: string): Buffer[] {
  const keys = raw.split(',').map((entry) => {
    const text = entry.trim()
    const key = /^[0-9a-fA-F]{64}$/.test(text)
      ? Buffer.from(text, 'hex')
      : /^[A-Za-z0-9+/]{43}=$/.test(text)
        ? Buffer.from(text, 'base64')
        : undefined
    if (key?.length !== 32)
      throw new Error('must be 32 random bytes as base64 or hex (`openssl rand -base64 32`), comma-separated to rotate')
    return key
  })
  return keys
}

const keyId = (key: Buffer) => hash('sha256', key, 'hex').slice(0, 8)

export function createSecretBox(keys: readonly Buffer[]): SecretBox {
  const [current] = keys
  if (current === undefined) throw new Error('a secret box needs at least one key')
  const byId = new Map(keys.map((key) => [keyId(key), key]))
  const currentId = keyId(current)
  return {
    seal(plaintext, context) {
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', current, iv)
      cipher.setAAD(Buffer.from(context))
      const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
      const parts = [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url'))
      return `v1.${currentId}.${parts.join('.')}`
    },
    open(sealed, context) {
      const [version, id, iv, body, tag] = sealed.split('.')
      const key = id === undefined ? undefined : byId.get(id)
      if (version !== 'v1' || key === undefined || iv === undefined || body === undefined || tag === undefined)
        throw new SecretBoxError('sealed under a key that is not configured (PETSTORE_SECRETS_KEY)')
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'))
        decipher.setAAD(Buffer.from(context))
        decipher.setAuthTag(Buffer.from(tag, 'base64url'))
        return Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8')
      } catch {
        throw new SecretBoxError('the sealed value does not open under its key (altered, or stored for another row)')
      }
    },
  }
}
