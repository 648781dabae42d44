// Bearer authentication (RFC 6750 §2.1): `Authorization: Bearer <API_KEY>`, scheme name case-insensitive.
// Each way of failing has its own code, and every 401 carries a `WWW-Authenticate: Bearer` challenge.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import fp from 'fastify-plugin'
import type { AccountsRepository } from '../../modules/accounts/accounts.repository.js'
import { keyEnvironment, keyPrefix, type KeyEnvironment } from '../../modules/accounts/api-keys.js'
import type { Scope } from '../../modules/accounts/key-scopes.js'
import { refusalReason } from '../../modules/accounts/key-state.js'
import type { Quota } from '../../modules/accounts/plans.js'
import type { Clock } from '../../kernel/clock.js'
import type { Environment } from '../../kernel/config.js'
import { ApiError } from '../contract/errors.js'

interface AuthContext {
  accountId: string
  keyId: string
  quota: Quota
  /** What the key may do; the request guard checks the route's scope against it (scope-check.ts). */
  scopes: readonly Scope[]
  /** The account's plan (metrics label refusals with it). */
  plan?: string
}

declare module 'fastify' {
  interface FastifyRequest {
    auth: AuthContext | null
  }
}

const REALM = 'petstore'
// credentials = auth-scheme 1*SP token68-like b64token (RFC 6750 §2.1, RFC 9110 §11.4)
const CREDENTIALS = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+)(?: +(.*))?$/
const B64TOKEN = /^[A-Za-z0-9._~+/-]+=*$/

function challenge(error?: 'invalid_request' | 'invalid_token', description?: string): Record<string, string> {
  const parts = [`realm="${REALM}"`]
  if (error) parts.push(`error="${error}"`)
  if (description) parts.push(`error_description="${description}"`)
  return { 'www-authenticate': `Bearer ${parts.join(', ')}` }
}

function malformed(message: string): ApiError {
  return new ApiError(
    'invalid_authorization_header',
    message,
    challenge('invalid_request', 'Authorization must be: Bearer <API_KEY>'),
  )
}

function invalidKey(message: string): ApiError {
  return new ApiError('invalid_api_key', message, challenge('invalid_token', 'The API key is not valid here'))
}

/** Extracts the key from the header, or throws the 401 that says what is wrong with it. */
export function bearerToken(header: string | undefined): string {
  if (header === undefined) {
    throw new ApiError(
      'missing_api_key',
      'Send your API key in the header `Authorization: Bearer <API_KEY>`.',
      challenge(),
    )
  }
  const match = CREDENTIALS.exec(header.trim())
  if (!match) throw malformed('The Authorization header is malformed; send `Authorization: Bearer <API_KEY>`.')
  if (match[1]!.toLowerCase() !== 'bearer') {
    // Nothing of the header is echoed back, not even the scheme: a lone word, or the first of two, may be the key
    // itself (`ps_test_… x`), and a response is no place for a credential.
    if (match[2] === undefined)
      throw malformed('The Authorization header has no scheme; send `Authorization: Bearer <API_KEY>`.')
    throw malformed('The Authorization scheme is not supported; send `Authorization: Bearer <API_KEY>`.')
  }
  const token = match[2] ?? ''
  if (!B64TOKEN.test(token))
    throw malformed(
      'The Authorization header has no valid token after "Bearer"; send `Authorization: Bearer <API_KEY>`.',
    )
  return token
}

interface AuthOptions {
  accounts: AccountsRepository
  environment: Environment
  clock: Clock
}

/** For every pet store operation: sets `request.auth` or throws a 401 (403 for a suspended account). */
export function createAuthenticator({ accounts, environment, clock }: AuthOptions) {
  const expected: KeyEnvironment = keyEnvironment(environment)
  const other: KeyEnvironment = expected === 'live' ? 'test' : 'live'

  return async function authenticate(request: FastifyRequest): Promise<void> {
    const token = bearerToken(request.headers.authorization)
    if (token.startsWith(keyPrefix(other))) {
      throw invalidKey(
        `This is a ${other} key; the ${environment} environment accepts only ${keyPrefix(expected)} keys.`,
      )
    }
    if (!token.startsWith(keyPrefix(expected)))
      throw invalidKey(`This is not a Petstore API key; keys start with ${keyPrefix(expected)}.`)
    const owner = await accounts.findKeyOwner(token)
    if (!owner || owner.environment !== expected) throw invalidKey('The API key is not known.')
    // Its account deleted (checked first: deletion also revokes every key, and this says more).
    if (owner.accountDeletedAt) throw invalidKey('This API key belongs to an account that was deleted.')
    // Revoked, expired, or rolled and past its grace period: the message says which (and never the key).
    const refused = refusalReason(owner.lifetime, clock.now())
    if (refused !== undefined) throw invalidKey(refused)
    // A working key of a suspended account: the key is fine (no challenge), the account may not use the API. Before
    // the scope check (after counting, in the guard): a suspended account may do nothing, whatever its key's scopes.
    if (owner.accountSuspendedAt) {
      throw new ApiError(
        'account_suspended',
        'This account is suspended; every request with its keys is refused. Contact the operator of this service to ' +
          'have it reactivated.',
      )
    }
    request.auth = {
      accountId: owner.accountId,
      keyId: owner.keyId,
      quota: owner.quota,
      scopes: owner.scopes,
      plan: owner.plan,
    }
    accounts.markUsed(owner.keyId, request.log)
  }
}

/** Declares the per-request state the authenticator sets (request.auth), on the whole app. */
export const authPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('auth', null)
  },
  { name: 'auth' },
)
