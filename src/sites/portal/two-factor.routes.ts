// /portal/account's second factors: set up or remove the authenticator app, add or remove passkeys, make new
// recovery codes. Each change is a sudo route (sudo.ts), mailed to the owner (security-mail.ts) and an audit entry
// (written by the two-factor service). Only a verified address may add a factor: whoever signed up in its owner's
// name must not keep a way in after the owner takes the account back.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RegistrationResponseJSON } from '@simplewebauthn/server'
import { type TSchema, Type } from 'typebox'
import { integratorActor } from '../../modules/integrators/actor.js'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import { html } from '../kit/html.js'
import { formBody, pageQuery, pageResponses } from '../kit/page-schemas.js'
import { qrSvg } from '../kit/qr-code.js'
import { redirect, sendPage } from '../kit/reply.js'
import { notice, page } from './layout.js'
import type { Portal } from './portal.context.js'
import { mailSecurity } from './second-step.js'
import { sudoFresh } from './sudo.js'
import { addPasskeyPage, appEnrolPage, recoveryCodesPage } from './two-factor.pages.js'

const CodeBody = formBody({ code: Type.String({ maxLength: 64 }) })
const PasskeyBody = formBody({
  name: Type.Optional(Type.String({ maxLength: 200 })),
  response: Type.Optional(Type.String({ maxLength: 8000 })),
})
const OptionsBody = formBody({ purpose: Type.Optional(Type.String({ maxLength: 20 })) })
const PasskeyParams = Type.Object({ passkeyId: Type.String({ pattern: '^[A-Za-z0-9_-]{1,1400}$' }) })
const CsrfOnly = formBody({})
const NoQuery = pageQuery({})

export async function twoFactorRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { twoFactor } = portal
  const hide = true
  const actor = (request: FastifyRequest, user: PortalUser) => integratorActor(user, request.ip)
  const answer = (
    request: FastifyRequest,
    reply: FastifyReply,
    status: number,
    title: string,
    body: ReturnType<typeof html>,
  ) => sendPage(reply, status, page(portal.context(request, reply), title, body))
  /** The signed-in, verified user; otherwise the request is answered (log-in, or why not). */
  function verifiedUser(request: FastifyRequest, reply: FastifyReply): PortalUser | undefined {
    const user = request.visitor.user
    if (!user) void redirect(reply, '/portal/login?next=%2Fportal%2Faccount')
    else if (user.verified_at === null) {
      const text = 'Verify your address first: open the link we sent to it, then add a second factor.'
      void answer(request, reply, 403, 'Two-factor log-in', html`${notice('error', text)}`)
    } else return user
    return undefined
  }

  async function enrolPage(request: FastifyRequest, reply: FastifyReply, status: number, error?: string) {
    const user = request.visitor.user!
    const pending = await twoFactor.pendingApp(user)
    if (!pending) return redirect(reply, '/portal/account')
    const ctx = portal.context(request, reply)
    const body = appEnrolPage({ csrf: ctx.csrf, qr: await qrSvg(pending.uri), secret: pending.secret, error })
    return sendPage(reply, status, page(ctx, 'Set up an authenticator app', body))
  }

  /** After a factor was added: the recovery codes if it was the first one, else back to the account page. */
  function added(request: FastifyRequest, reply: FastifyReply, codes: string[] | undefined, done: string) {
    if (!codes) return redirect(reply, `/portal/account?done=${done}`)
    const intro = 'Two-factor log-in is on. From now on, logging in with your password also asks for a second factor.'
    reply.header('cache-control', 'no-store')
    return answer(request, reply, 200, 'Your recovery codes', recoveryCodesPage(codes, intro))
  }

  const post = <B extends TSchema>(body: B, sudo?: string) => ({
    schema: { hide, querystring: NoQuery, body, response: pageResponses({ 403: 'Not allowed' }) },
    config: { sudo },
  })

  r.post('/account/app', post(CsrfOnly, 'set up an authenticator app'), async (request, reply) => {
    const user = verifiedUser(request, reply)
    if (!user) return reply
    await twoFactor.startApp(user)
    return enrolPage(request, reply, 200)
  })

  r.post('/account/app/confirm', post(CodeBody), async (request, reply) => {
    const user = verifiedUser(request, reply)
    if (!user) return reply
    const result = await twoFactor.confirmApp(user, request.body.code, actor(request, user))
    if (result.outcome === 'none') return redirect(reply, '/portal/account')
    if (result.outcome !== 'confirmed')
      return enrolPage(request, reply, 400, 'That code is not right. Enter the code your app shows now.')
    mailSecurity(portal, request, user, { kind: 'app_added' })
    return added(request, reply, result.recoveryCodes, 'app')
  })

  r.post('/account/app/remove', post(CsrfOnly, 'remove the authenticator app'), async (request, reply) => {
    const user = verifiedUser(request, reply)
    if (!user) return reply
    const result = await twoFactor.removeApp(user, actor(request, user))
    if (result.removed) mailSecurity(portal, request, user, { kind: 'app_removed', twoFactorOff: !result.stillEnabled })
    return redirect(reply, '/portal/account?done=app-removed')
  })

  // The options of a new passkey's ceremony (JSON, for the portal's script): only in sudo mode, so the person is
  // asked to confirm (by the form itself, which then goes as a plain form) before their authenticator is.
  r.post(
    '/account/passkeys/options',
    { schema: { hide, querystring: NoQuery, body: OptionsBody, response: pageResponses({ 200: 'Options' }) } },
    async (request, reply) => {
      const { user, sessionId } = request.visitor
      if (!user || !sessionId || user.verified_at === null || !(await sudoFresh(portal, sessionId)))
        return reply
          .code(403)
          .type('application/json')
          .send(JSON.stringify({ error: 'confirm first' }))
      const options = await twoFactor.registrationOptions(user, sessionId)
      return reply.header('cache-control', 'no-store').type('application/json').send(JSON.stringify(options))
    },
  )

  r.post('/account/passkeys', post(PasskeyBody, 'add a passkey'), async (request, reply) => {
    const user = verifiedUser(request, reply)
    if (!user) return reply
    const name = request.body.name ?? ''
    const ctx = portal.context(request, reply)
    if (!request.body.response) return sendPage(reply, 200, page(ctx, 'Add a passkey', addPasskeyPage(ctx.csrf, name)))
    let response: RegistrationResponseJSON
    try {
      response = JSON.parse(request.body.response) as RegistrationResponseJSON
    } catch {
      response = {} as RegistrationResponseJSON
    }
    const result = await twoFactor.addPasskey(user, request.visitor.sessionId, response, name, actor(request, user))
    if (result.outcome !== 'added') {
      const text =
        result.outcome === 'exists'
          ? 'That passkey is already registered.'
          : 'The passkey could not be added: the request expired or came from elsewhere. Try again.'
      const body = html`${notice('error', text)}${addPasskeyPage(ctx.csrf, name)}`
      return sendPage(reply, result.outcome === 'exists' ? 409 : 400, page(ctx, 'Add a passkey', body))
    }
    mailSecurity(portal, request, user, { kind: 'passkey_added', name: name.trim().slice(0, 60) || 'Passkey' })
    return added(request, reply, result.recoveryCodes, 'passkey')
  })

  r.post(
    '/account/passkeys/:passkeyId/remove',
    {
      schema: {
        hide,
        params: PasskeyParams,
        querystring: NoQuery,
        body: CsrfOnly,
        response: pageResponses({ 404: 'No such passkey' }),
      },
      config: { sudo: 'remove a passkey' },
    },
    async (request, reply) => {
      const user = verifiedUser(request, reply)
      if (!user) return reply
      const result = await twoFactor.removePasskey(user, request.params.passkeyId, actor(request, user))
      // Another user's passkey, or one already gone: the same answer as for an id that never existed.
      if (!result.removed)
        return answer(request, reply, 404, 'Passkey not found', html`${notice('error', 'No such passkey.')}`)
      const event = { kind: 'passkey_removed' as const, name: result.removed.name, twoFactorOff: !result.stillEnabled }
      mailSecurity(portal, request, user, event)
      return redirect(reply, '/portal/account?done=passkey-removed')
    },
  )

  r.post('/account/recovery-codes', post(CsrfOnly, 'make new recovery codes'), async (request, reply) => {
    const user = verifiedUser(request, reply)
    if (!user) return reply
    const codes = await twoFactor.regenerateRecoveryCodes(user, actor(request, user))
    if (!codes) return redirect(reply, '/portal/account')
    mailSecurity(portal, request, user, { kind: 'recovery_codes_regenerated' })
    reply.header('cache-control', 'no-store')
    return answer(
      request,
      reply,
      200,
      'Your recovery codes',
      recoveryCodesPage(codes, 'New recovery codes: the earlier ones no longer work.'),
    )
  })
}
