// Sudo mode: a sensitive change (a route declared with `config: { sudo: 'what it does' }`) is made only if this
// session's person confirmed it was them within PORTAL_SUDO_SECONDS (logging in counts). Otherwise the answer is a
// confirmation page (403) that keeps the form: a passkey, a code (the app's or a recovery code) or, for an account
// without a second factor, the password; once confirmed, the kept form is sent on to its route with a fresh CSRF
// token, and the change is made there, with every check of its own. Only a sudo route can be returned to.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { integratorActor } from '../../modules/integrators/actor.js'
import type { PortalUser } from '../../modules/integrators/integrators.repository.js'
import { formBody, pageQuery, pageResponses } from '../kit/page-schemas.js'
import { sendPage } from '../kit/reply.js'
import { notice, page } from './layout.js'
import type { Portal } from './portal.context.js'
import { codeProblem, passkeyAnswer, securityMail } from './second-step.js'
import { confirmPage, continuePage, type KeptForm } from './sudo.pages.js'
import { passwordConfirmation } from './throttle.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A sensitive change: what it does, in words ("create a key"), for the confirmation page. */
    sudo?: string
  }
}

const TITLE = 'Confirm it is you'
const SudoBody = formBody({
  return_to: Type.String({ maxLength: 300 }),
  kept: Type.String({ maxLength: 16_000 }),
  code: Type.Optional(Type.String({ maxLength: 64 })),
  password: Type.Optional(Type.String({ maxLength: 4096 })),
  response: Type.Optional(Type.String({ maxLength: 8000 })),
})

/** The path pattern of a route (`/portal/keys/:keyId/roll`) as a regular expression over request paths. */
const pathPattern = (url: string) =>
  new RegExp(`^${url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/:[A-Za-z]+/g, '[^/?#]+')}$`)

function keptForm(raw: string): KeptForm | undefined {
  try {
    const value: unknown = JSON.parse(raw)
    if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined
    const entries = Object.entries(value)
    const ok = entries.every(
      ([k, v]) =>
        k !== '_csrf' && (typeof v === 'string' || (Array.isArray(v) && v.every((e) => typeof e === 'string'))),
    )
    return ok ? (value as KeptForm) : undefined
  } catch {
    return undefined
  }
}

/** Whether the session confirmed who it is (or logged in) within PORTAL_SUDO_SECONDS. */
export async function sudoFresh(
  portal: Pick<Portal, 'repo' | 'clock' | 'config'>,
  sessionId: string,
): Promise<boolean> {
  const since = await portal.repo.sudoAt(sessionId)
  return since !== undefined && portal.clock.now() - since < portal.config.portalSudoSeconds * 1000
}

/** Registers the gate (before the routes it guards) and the confirmation's own route. */
export async function sudoRoutes(app: FastifyInstance, portal: Portal): Promise<void> {
  const { twoFactor } = portal
  const guarded: Array<{ pattern: RegExp; action: string }> = []
  const passwordConfirms = passwordConfirmation({ repo: portal.repo, clock: portal.clock })

  app.addHook('onRoute', (route) => {
    const action = route.config?.sudo
    if (action) guarded.push({ pattern: pathPattern(route.url), action })
  })

  async function ask(
    request: FastifyRequest,
    reply: FastifyReply,
    user: PortalUser,
    form: { returnTo: string; action: string; kept: KeptForm },
    error?: { message: string; status: number },
  ) {
    const status = await twoFactor.status(user.id)
    const ctx = portal.context(request, reply)
    const factors = { code: status.enabled, passkey: status.passkeys.length > 0, password: !status.enabled }
    const body = confirmPage({ csrf: ctx.csrf, ...form, factors, error: error?.message })
    return sendPage(reply, error?.status ?? 403, page(ctx, TITLE, body))
  }

  app.addHook('preHandler', async (request, reply) => {
    const action = request.routeOptions.config.sudo
    const { user, sessionId } = request.visitor
    if (!action || !user || !sessionId) return
    if (await sudoFresh(portal, sessionId)) return
    const { _csrf, ...kept } = (request.body ?? {}) as Record<string, string | string[]>
    return ask(request, reply, user, { returnTo: request.url.split('?')[0]!, action, kept })
  })

  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  r.post(
    '/sudo',
    {
      schema: {
        hide: true,
        querystring: pageQuery({}),
        body: SudoBody,
        response: pageResponses({ 200: 'Confirmed: the kept form goes on', 400: 'Not confirmed', 429: 'Too many' }),
      },
    },
    async (request, reply) => {
      const { user, sessionId } = request.visitor
      const target = guarded.find((g) => g.pattern.test(request.body.return_to))
      const kept = keptForm(request.body.kept)
      if (!user || !sessionId || !target || !kept) {
        const ctx = portal.context(request, reply)
        const text = 'This confirmation cannot be used. Go back, reload the page and try again.'
        return sendPage(reply, 400, page(ctx, TITLE, notice('error', text)))
      }
      const form = { returnTo: request.body.return_to, action: target.action, kept }
      const factors = await twoFactor.status(user.id)
      const { code, password, response } = request.body
      let problem: string | undefined
      let status = 400
      if (response !== undefined && response !== '') {
        const answer = await passkeyAnswer(portal, request, 'confirm', response)
        problem =
          answer.user?.id === user.id ? undefined : (answer.problem ?? 'That passkey is not one of this account.')
      } else if (code !== undefined && factors.enabled) {
        const result = await twoFactor.checkCode(user, code, request.ip, integratorActor(user, request.ip))
        problem = codeProblem(result)
        securityMail(portal, request, user, result)
        if (result.outcome === 'locked' || result.outcome === 'address') status = 429
      } else if (password !== undefined && !factors.enabled) {
        if (!(await passwordConfirms(request, user, password))) problem = 'The password is incorrect.'
      } else problem = 'Confirm with one of the ways below.'
      if (problem) return ask(request, reply, user, form, { message: problem, status })
      await portal.repo.confirmSudo(sessionId)
      const ctx = portal.context(request, reply)
      return sendPage(reply, 200, page(ctx, TITLE, continuePage(ctx.csrf, form.returnTo, kept)))
    },
  )
}
