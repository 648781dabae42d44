// /portal/keys/:keyId/restrict: narrowing what a key may do (issue 26), through the account service's one
// narrowing (restrictApiKeyScopes, as the CLI's `keys restrict`), which refuses a scope the key does not have: a
// forged form cannot widen a key. The form is the portal's like any other (CSRF token, same-origin check).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import {
  KeyInputError,
  KeyStateError,
  NotFoundError,
  type ApiKeyInfo,
} from '../../modules/accounts/accounts.repository.js'
import { integratorActor } from '../../modules/integrators/actor.js'
import { keyName } from './keys.pages.js'
import { chosenScopes, restrictForm } from './key-scopes.pages.js'
import { page } from './layout.js'
import type { Portal } from './portal.context.js'
import { KeyParams, NoQuery, pageResponses, RestrictBody } from './portal.schemas.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'

interface RestrictDeps {
  portal: Portal
  /** The signed-in account's key, or the 404 page. */
  ownKey: (accountId: string, keyId: string) => Promise<ApiKeyInfo>
  noSuchKey: () => PageError
}

export async function restrictRoutes(app: FastifyInstance, { portal, ownKey, noSuchKey }: RestrictDeps): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const hide = true
  const title = 'Key permissions'
  const shown = (key: ApiKeyInfo) => ({ ...key, displayName: keyName(key) })

  r.get(
    '/keys/:keyId/restrict',
    {
      schema: {
        hide,
        params: KeyParams,
        querystring: NoQuery,
        response: pageResponses({ 200: "The form narrowing a key's permissions" }),
      },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const ctx = portal.context(request, reply)
      return sendPage(
        reply,
        200,
        page(ctx, title, restrictForm(ctx.csrf, shown(await ownKey(user.account_id, request.params.keyId)))),
      )
    },
  )

  r.post(
    '/keys/:keyId/restrict',
    {
      schema: { hide, params: KeyParams, querystring: NoQuery, body: RestrictBody, response: pageResponses({}) },
      config: { sudo: "change a key's permissions" },
    },
    async (request, reply) => {
      const user = request.visitor.user
      if (!user) return redirect(reply, '/portal/login')
      const ctx = portal.context(request, reply)
      const key = await ownKey(user.account_id, request.params.keyId)
      const checked = chosenScopes(request.body) ?? []
      const again = (error: string) =>
        sendPage(reply, 400, page(ctx, title, restrictForm(ctx.csrf, shown(key), { checked, error })))
      if (checked.length === 0) return again('Keep at least one permission; to stop the key altogether, revoke it.')
      try {
        await portal.accounts.restrictApiKeyScopes({
          keyId: key.id,
          scopes: checked,
          accountId: user.account_id,
          actor: integratorActor(user, request.ip),
        })
      } catch (error) {
        if (error instanceof NotFoundError) throw noSuchKey()
        if (error instanceof KeyInputError) return again(`The permissions were not changed: ${error.message}.`)
        if (error instanceof KeyStateError) throw new PageError(400, 'This key cannot be changed', `${error.message}.`)
        throw error
      }
      return redirect(reply, '/portal/keys')
    },
  )
}
