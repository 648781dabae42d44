// /portal/keys: list, create, roll, narrow and revoke the account's keys, through the same account service as the CLI
// (one way to create, roll and revoke a key, and one cap on active keys). Only a verified address can create
// keys. Create and Roll answer 303 to the page that shows the new secret once (Post/Redirect/Get): the secret
// crosses the redirect in a sealed cookie only the browser holds (secret-flash.ts), never in the database.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  AccountStateError,
  KeyInputError,
  KeyLimitError,
  KeyStateError,
  NotFoundError,
} from '../../modules/accounts/accounts.repository.js'
import { keyEnvironment } from '../../modules/accounts/api-keys.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import { page } from './layout.js'
import {
  EXPIRY_CHOICES,
  GRACE_CHOICES,
  keyLimitMessage,
  keysPage,
  newKeyForm,
  revokeConfirm,
  rollConfirm,
  suspendedMessage,
} from './keys.pages.js'
import { chosenScopes } from './key-scopes.pages.js'
import { restrictRoutes } from './restrict.routes.js'
import { secretGone, secretShown } from './new-key.pages.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'
import type { Portal } from './portal.context.js'
import { createSecretFlash, shownOncePath } from './secret-flash.js'
import { CsrfOnlyBody, KeyParams, KeysQuery, NewKeyBody, NoQuery, pageResponses, RollBody } from './portal.schemas.js'

const DAY_MS = 24 * 60 * 60 * 1000
const noSuchKey = () => new PageError(404, 'No such key', 'This key does not exist in your account.')
const suspended = (reason: string | null) => new PageError(403, 'Account suspended', suspendedMessage(reason))

export async function keysRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { accounts } = portal
  const hide = true
  const environment = keyEnvironment(portal.config.environment)
  const maxActive = portal.config.portalMaxKeys
  const flash = createSecretFlash({
    secret: portal.flashSecret,
    publicUrl: portal.config.publicUrl,
    clock: portal.clock,
  })
  // The API's origin in the snippets comes from configuration, never from the request's Host.
  const apiOrigin = () => portal.config.publicUrl

  /** The signed-in account's key, or a 404 page (another account's key is answered like a missing one). */
  async function ownKey(accountId: string, keyId: string) {
    const key = (await accounts.listApiKeys(accountId)).find((k) => k.id === keyId)
    if (!key) throw noSuchKey()
    return key
  }

  /** Refuses (403 page saying why) to make a key for a suspended account. */
  async function refuseIfSuspended(accountId: string): Promise<void> {
    const account = await accounts.getAccount(accountId)
    if (account.suspendedAt !== null) throw suspended(account.suspensionReason)
  }

  r.get(
    '/keys',
    { schema: { hide, querystring: KeysQuery, response: pageResponses({ 200: 'The keys' }) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const ctx = portal.context(request, reply)
      const [account, keys] = await Promise.all([
        accounts.getAccount(user.account_id),
        accounts.listApiKeys(user.account_id),
      ])
      const suspension = account.suspendedAt === null ? undefined : { reason: account.suspensionReason }
      return sendPage(
        reply,
        200,
        page(
          ctx,
          'API keys',
          keysPage({
            csrf: ctx.csrf,
            keys,
            verified: user.verified_at !== null,
            sent: request.query.sent === '1',
            maxKeys: maxActive,
            suspension,
            manage: ctx.can.manageKeys,
          }),
        ),
      )
    },
  )

  r.get(
    '/keys/new',
    { schema: { hide, querystring: NoQuery, response: pageResponses({ 200: 'The create-key form' }) } },
    async (request, reply) => {
      if (!request.visitor.user) return redirect(reply, '/portal/login')
      await refuseIfSuspended(request.visitor.user.account_id)
      const ctx = portal.context(request, reply)
      return sendPage(reply, 200, page(ctx, 'Create key', newKeyForm(ctx.csrf)))
    },
  )

  r.post(
    '/keys',
    {
      schema: { hide, querystring: NoQuery, body: NewKeyBody, response: pageResponses({}) },
      config: { sudo: 'create a key' },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      if (user.verified_at === null)
        throw new PageError(
          403,
          'Verify your address first',
          'Verify your email address before creating keys: open the link we sent you.',
        )
      await refuseIfSuspended(user.account_id)
      const ctx = portal.context(request, reply)
      const { name, expires } = request.body
      const scopes = chosenScopes(request.body)
      const again = (error: string) =>
        sendPage(reply, 400, page(ctx, 'Create key', newKeyForm(ctx.csrf, { name, expires, scopes, error })))
      if (name.trim() === '') return again('Give the key a name.')
      if (!EXPIRY_CHOICES.some((c) => c.value === expires)) return again('Choose when the key expires.')
      // Unticking every box is not "no choice" (which would be every scope): the key would be refused everything.
      if (scopes?.length === 0) return again('Choose at least one permission (or press "Create read-only key").')
      const expiresAt =
        expires === '' ? undefined : new Date(portal.clock.now() + Number(expires) * DAY_MS).toISOString()
      try {
        const key = await accounts.createApiKey({
          accountId: user.account_id,
          environment,
          name,
          expiresAt,
          scopes,
          maxActive,
          actor: integratorActor(user, request.ip),
        })
        flash.give(reply, { sessionId: request.visitor.sessionId!, keyId: key.id, secret: key.key })
        return redirect(reply, shownOncePath(key.id))
      } catch (error) {
        if (error instanceof KeyLimitError) return again(keyLimitMessage(error.active, error.max))
        // Suspended between the check above and the insert.
        if (error instanceof AccountStateError)
          throw suspended((await accounts.getAccount(user.account_id)).suspensionReason)
        if (error instanceof KeyInputError) return again(`The key could not be created: ${error.message}.`)
        throw error
      }
    },
  )

  // The new key's page: its secret if this browser brought it (once), else what the table shows of the key.
  r.get(
    '/keys/:keyId/created',
    {
      schema: {
        hide,
        params: KeyParams,
        querystring: NoQuery,
        response: pageResponses({ 200: 'The new key (its secret shown once)' }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const ctx = portal.context(request, reply)
      const keys = await accounts.listApiKeys(user.account_id)
      const key = keys.find((k) => k.id === request.params.keyId)
      if (!key) throw noSuchKey()
      const previous = keys.find((k) => k.replacedBy === key.id)
      const secret = flash.take(request, reply, { sessionId: request.visitor.sessionId!, keyId: key.id })
      const content =
        secret === undefined
          ? secretGone({ key, previous, manage: ctx.can.manageKeys })
          : secretShown({ key, secret, previous, origin: apiOrigin() })
      return sendPage(reply, 200, page(ctx, 'Your new key', content))
    },
  )

  // The confirmation steps of Roll and Revoke: a page with the form that acts.
  for (const [action, title, render] of [
    ['roll', 'Roll key', rollConfirm],
    ['revoke', 'Revoke key', revokeConfirm],
  ] as const) {
    r.get(
      `/keys/:keyId/${action}`,
      {
        schema: {
          hide,
          params: KeyParams,
          querystring: NoQuery,
          response: pageResponses({ 200: `Confirm: ${title}` }),
        },
      },
      async (request, reply) => {
        const user = request.visitor.user
        if (!user) return redirect(reply, '/portal/login')
        const ctx = portal.context(request, reply)
        return sendPage(
          reply,
          200,
          page(ctx, title, render(ctx.csrf, await ownKey(user.account_id, request.params.keyId))),
        )
      },
    )
  }

  r.post(
    '/keys/:keyId/roll',
    {
      schema: { hide, params: KeyParams, querystring: NoQuery, body: RollBody, response: pageResponses({}) },
      config: { sudo: 'roll a key' },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      if (!GRACE_CHOICES.some((c) => c.value === request.body.grace))
        throw new PageError(400, 'Roll key', 'Choose a grace period from the list.')
      try {
        // A roll replaces a key: the cap on active keys does not apply to it.
        const { created } = await accounts.rollApiKey({
          keyId: request.params.keyId,
          graceSeconds: Number(request.body.grace),
          accountId: user.account_id,
          actor: integratorActor(user, request.ip),
        })
        flash.give(reply, { sessionId: request.visitor.sessionId!, keyId: created.id, secret: created.key })
        return redirect(reply, shownOncePath(created.id))
      } catch (error) {
        if (error instanceof NotFoundError) throw noSuchKey()
        if (error instanceof KeyStateError) throw new PageError(400, 'This key cannot be rolled', `${error.message}.`)
        if (error instanceof AccountStateError)
          throw suspended((await accounts.getAccount(user.account_id)).suspensionReason)
        throw error
      }
    },
  )

  await restrictRoutes(app, { portal, ownKey, noSuchKey })

  r.post(
    '/keys/:keyId/revoke',
    { schema: { hide, params: KeyParams, querystring: NoQuery, body: CsrfOnlyBody, response: pageResponses({}) } },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      try {
        await accounts.revokeApiKey(request.params.keyId, {
          accountId: user.account_id,
          actor: integratorActor(user, request.ip),
        })
      } catch (error) {
        if (error instanceof NotFoundError) throw noSuchKey()
        throw error
      }
      return redirect(reply, '/portal/keys')
    },
  )
}
