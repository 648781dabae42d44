// Passkeys (WebAuthn) through @simplewebauthn/server. The relying party id and the origin come from
// PETSTORE_PUBLIC_URL, never from the request: a page served under another host name cannot have a passkey
// registered or used for ours. User verification is required (a passkey is both factors); the credential must be
// discoverable, so a passkey signs in without an address typed first.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
} from '@simplewebauthn/server'
import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
  RegistrationResponseJSON,
} from '@simplewebauthn/server'

/** How long a challenge may be answered. */
export const CHALLENGE_TTL_MS = 5 * 60 * 1000

interface StoredPasskey {
  id: string
  publicKey: string
  counter: number
  transports: string[] | undefined
}

interface RelyingParty {
  id: string
  origin: string
  name: string
}

export function relyingPartyOf(publicUrl: string): RelyingParty {
  const url = new URL(publicUrl)
  return { id: url.hostname, origin: url.origin, name: 'Petstore' }
}

export async function registrationOptions(
  rp: RelyingParty,
  user: { id: string; email: string },
  existing: StoredPasskey[],
): Promise<PublicKeyCredentialCreationOptionsJSON> {
  return generateRegistrationOptions({
    rpName: rp.name,
    rpID: rp.id,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    timeout: CHALLENGE_TTL_MS,
    attestationType: 'none',
    excludeCredentials: existing.map((p) => ({ id: p.id, transports: p.transports })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  })
}

export async function authenticationOptions(rp: RelyingParty): Promise<PublicKeyCredentialRequestOptionsJSON> {
  return generateAuthenticationOptions({ rpID: rp.id, timeout: CHALLENGE_TTL_MS, userVerification: 'required' })
}

/** A new credential, or undefined when the response is malformed, for another challenge, origin or party. */
export async function verifiedRegistration(
  rp: RelyingParty,
  response: RegistrationResponseJSON,
  challenge: string,
): Promise<StoredPasskey | undefined> {
  try {
    const result = await verifyRegistrationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
    })
    if (!result.verified) return undefined
    const { credential } = result.registrationInfo
    return {
      id: credential.id,
      publicKey: Buffer.from(credential.publicKey).toString('base64url'),
      counter: credential.counter,
      transports: credential.transports,
    }
  } catch {
    return undefined
  }
}

type AssertionCheck = { outcome: 'valid'; newCounter: number } | { outcome: 'invalid' } | { outcome: 'cloned' }

/**
 * Whether an assertion is the passkey's answer to this challenge. A signature counter that did not go up (when the
 * authenticator keeps one) means two authenticators hold the key: 'cloned'.
 */
export async function checkedAssertion(
  rp: RelyingParty,
  response: AuthenticationResponseJSON,
  challenge: string,
  passkey: StoredPasskey,
): Promise<AssertionCheck> {
  try {
    const result = await verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: rp.origin,
      expectedRPID: rp.id,
      requireUserVerification: true,
      credential: {
        id: passkey.id,
        publicKey: new Uint8Array(Buffer.from(passkey.publicKey, 'base64url')),
        counter: passkey.counter,
        transports: passkey.transports as never,
      },
    })
    return result.verified
      ? { outcome: 'valid', newCounter: result.authenticationInfo.newCounter }
      : { outcome: 'invalid' }
  } catch (error) {
    // The library's one error for a counter that went backwards (or stood still).
    if (error instanceof Error && /counter value \d+ was lower than expected/.test(error.message))
      return { outcome: 'cloned' }
    return { outcome: 'invalid' }
  }
}

/** The challenge a client response answers (from its clientDataJSON), to find the one we stored. */
export function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | undefined {
  const data = response.response?.clientDataJSON
  if (typeof data !== 'string' || data.length > 4096) return undefined
  try {
    const parsed = JSON.parse(Buffer.from(data, 'base64url').toString('utf8')) as { challenge?: unknown }
    return typeof parsed.challenge === 'string' && parsed.challenge.length <= 128 ? parsed.challenge : undefined
  } catch {
    return undefined
  }
}
