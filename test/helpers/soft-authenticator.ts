// A software passkey for tests over HTTP (no browser): a P-256 key pair that answers the portal's WebAuthn options
// as an authenticator would (attestation "none", user present and verified), with a signature counter the test
// can turn back (a cloned authenticator) and a client origin it can change (a page of another site).
import { createHash, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto'

/** The little CBOR WebAuthn needs: unsigned and negative integers, byte and text strings, maps. */
function cbor(value: unknown): Buffer {
  const head = (major: number, n: number) =>
    n < 24
      ? Buffer.from([(major << 5) | n])
      : n < 256
        ? Buffer.from([(major << 5) | 24, n])
        : Buffer.from([(major << 5) | 25, n >> 8, n & 255])
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value)
  if (Buffer.isBuffer(value)) return Buffer.concat([head(2, value.length), value])
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)])
  if (value instanceof Map)
    return Buffer.concat([head(5, value.size), ...[...value].flatMap(([k, v]) => [cbor(k), cbor(v)])])
  throw new Error(`cbor: cannot encode ${typeof value}`)
}

const b64url = (b: Buffer) => b.toString('base64url')
const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest()

interface SoftPasskey {
  id: string
  counter: number
  privateKey: KeyObject
  userHandle?: string
}

export function softAuthenticator(rpId: string, origin: string) {
  const flags = (extra: number) => Buffer.from([0x01 | 0x04 | extra])
  const count = (n: number) => {
    const b = Buffer.alloc(4)
    b.writeUInt32BE(n)
    return b
  }
  const clientData = (type: string, challenge: string, from: string) =>
    Buffer.from(JSON.stringify({ type, challenge, origin: from, crossOrigin: false }))

  return {
    /** A new credential for `options` (the JSON the portal returned); the response and the passkey to use later. */
    register(options: { challenge: string; user: { id: string } }, from = origin) {
      const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' })
      const jwk = publicKey.export({ format: 'jwk' })
      const cose = cbor(
        new Map<number, unknown>([
          [1, 2],
          [3, -7],
          [-1, 1],
          [-2, Buffer.from(jwk.x!, 'base64url')],
          [-3, Buffer.from(jwk.y!, 'base64url')],
        ]),
      )
      const id = randomBytes(16)
      const idLength = Buffer.from([0, id.length])
      const authData = Buffer.concat([sha256(rpId), flags(0x40), count(0), Buffer.alloc(16), idLength, id, cose])
      const attestation = cbor(
        new Map<string, unknown>([
          ['fmt', 'none'],
          ['attStmt', new Map()],
          ['authData', authData],
        ]),
      )
      const passkey: SoftPasskey = { id: b64url(id), counter: 0, privateKey, userHandle: options.user.id }
      const response = {
        id: passkey.id,
        rawId: passkey.id,
        type: 'public-key',
        response: {
          clientDataJSON: b64url(clientData('webauthn.create', options.challenge, from)),
          attestationObject: b64url(attestation),
          transports: ['internal'],
        },
        clientExtensionResults: {},
      }
      return { passkey, response }
    },

    /** The passkey's answer to `options`; its counter goes up by one unless `counter` is given. */
    assert(passkey: SoftPasskey, options: { challenge: string }, input: { from?: string; counter?: number } = {}) {
      passkey.counter = input.counter ?? passkey.counter + 1
      const authData = Buffer.concat([sha256(rpId), flags(0), count(passkey.counter)])
      const data = clientData('webauthn.get', options.challenge, input.from ?? origin)
      const signature = sign('sha256', Buffer.concat([authData, sha256(data)]), passkey.privateKey)
      return {
        id: passkey.id,
        rawId: passkey.id,
        type: 'public-key',
        response: {
          clientDataJSON: b64url(data),
          authenticatorData: b64url(authData),
          signature: b64url(signature),
          userHandle: passkey.userHandle,
        },
        clientExtensionResults: {},
      }
    },
  }
}
