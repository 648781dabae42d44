// Operator endpoints for the CLI (`accounts usage`, `keys unban`). Counters and bans live in the running
// service (in memory by default), so the CLI asks it. Guarded by a token kept in the database: whoever can
// run the CLI on the database can read it; nobody else can. Not part of the public API or its document.
import { timingSafeEqual } from 'node:crypto'
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox'
import type { ApiRoutesOptions } from '../api.context.js'
import { Type } from 'typebox'
import { NotFoundError } from '../../modules/accounts/accounts.repository.js'
import { bearerToken } from '../guard/auth.js'
import { ApiError } from '../contract/errors.js'
import { liftBan } from '../../modules/limits/ban-lifting.js'
import { keySubject } from '../../modules/limits/rate-limiter.js'
import { CLI_USER_HEADER } from '../../modules/limits/admin-channel.js'

export const adminRoutes: FastifyPluginAsyncTypebox<ApiRoutesOptions & { token: string }> = async (
  app,
  { api, token },
) => {
  const expected = Buffer.from(token)
  // Counted against the client address like every request without an API key, so that these answers carry the
  // limit headers too and a token cannot be guessed faster than a key. The root hook runs before the check below.
  app.addHook('onRoute', (route) => {
    route.config = { ...route.config, rateLimit: 'address' }
  })
  app.addHook('onRequest', async (request) => {
    const presented = Buffer.from(bearerToken(request.headers.authorization))
    if (presented.length !== expected.length || !timingSafeEqual(presented, expected))
      throw new ApiError('invalid_api_key', 'Not an admin token.')
  })

  const notFound = (error: unknown) =>
    error instanceof NotFoundError ? new ApiError('not_found', error.message) : error

  app.get(
    '/accounts/:id/usage',
    { schema: { hide: true, params: Type.Object({ id: Type.String() }) } },
    async (request) => {
      const account = await api.accounts.getAccount(request.params.id).catch((e) => Promise.reject(notFound(e)))
      const now = api.clock.now()
      const { plan, windows } = await api.usage.current(account.id, now)
      const keys = await api.accounts.listApiKeys(account.id)
      const bans = []
      for (const key of keys) {
        const until = await api.limiter.store.bannedUntil({ subject: keySubject(key.id), now })
        if (until !== undefined) bans.push({ keyId: key.id, until: new Date(until).toISOString() })
      }
      return { accountId: account.id, plan, windows, bans }
    },
  )

  const unbanSchema = {
    hide: true,
    params: Type.Object({ id: Type.String() }),
    headers: Type.Object({
      [CLI_USER_HEADER]: Type.Optional(Type.String({ minLength: 1, maxLength: 300, pattern: '^[\\x21-\\x7e]+$' })),
    }),
  }
  app.post('/keys/:id/unban', { schema: unbanSchema }, async (request) => {
    const key = await api.accounts.getApiKey(request.params.id).catch((e) => Promise.reject(notFound(e)))
    // Only the CLI holds the admin token, so the entry's actor is the CLI, with the user it names.
    const named = request.headers[CLI_USER_HEADER]
    let user = 'unknown'
    try {
      if (named !== undefined) user = decodeURIComponent(named).slice(0, 100)
    } catch {
      // A malformed escape: the user stays unknown rather than the request failing after the token checked out.
    }
    const { wasBanned } = await liftBan({
      store: api.limiter.store,
      audit: api.audit,
      keyId: key.id,
      accountId: key.accountId,
      actor: { kind: 'cli', user },
    })
    return { keyId: key.id, wasBanned }
  })
}
