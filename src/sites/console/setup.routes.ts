// Setup links (/console/setup/TOKEN, made by `petstore operators create`). Opening one shows only a form for the
// new password: a chat tool's link preview (or anyone else who merely opens it) is shown nothing secret. Sending
// the password makes a TOTP secret for this browser, kept with the token and tied to a random value in a cookie
// only this browser holds (operators/operator-setup.ts); the page shows it as a QR code and asks for a current
// code. That code, from the same browser, completes the setup and uses the link up, in one statement, so two
// submissions cannot both complete it; another browser's password in between voids the offer (409, start again).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply } from 'fastify'
import { matchingStep, totpUri } from '../../modules/sign-in/totp.js'
import { pageResponses } from '../kit/page-schemas.js'
import { hashPassword, passwordProblem } from '../../kernel/passwords.js'
import { sendPage } from '../kit/reply.js'
import { randomSecret } from '../../kernel/secrets.js'
import type { OperatorConsole } from './console.context.js'
import { NoQuery, SetupCodeBody, SetupParams, SetupPasswordBody } from './console.schemas.js'
import { consolePage } from './layout.js'
import {
  authenticatorForm,
  passwordForm,
  recoveryCodesPage,
  setupLinkUnusable,
  setupStartedElsewhere,
} from './setup.pages.js'

const TITLE = 'Set up your operator account'
const WRONG_CODE =
  "That code does not match. Enter the 6-digit code your authenticator app shows now (check that the phone's clock " +
  'is right).'

export async function setupRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const hide = true
  const responses = pageResponses({
    200: 'The setup form, or the recovery codes once set up',
    409: 'The setup was started again in another browser',
    410: 'The link has expired or was used',
  })
  // The browser's half of an offer: on the setup pages only, never sent to another site, not readable by script.
  const secure = c.config.consolePublicUrl.startsWith('https:')
  const cookie = {
    name: `${secure ? '__Secure-' : ''}console_setup`,
    options: { path: '/console/setup/', httpOnly: true, sameSite: 'strict' as const, secure },
  }
  const usable = (token: string) => (token.length <= 200 ? c.operators.setupLink(token) : undefined)
  const unusable = (reply: FastifyReply, ctx: ReturnType<OperatorConsole['context']>) =>
    sendPage(reply, 410, consolePage(ctx, TITLE, setupLinkUnusable))

  r.get(
    '/setup/:token',
    { schema: { hide, params: SetupParams, querystring: NoQuery, response: responses } },
    async (request, reply) => {
      const ctx = c.context(request, reply)
      const { token } = request.params
      const operator = await usable(token)
      if (!operator) return unusable(reply, ctx)
      return sendPage(reply, 200, consolePage(ctx, TITLE, passwordForm(ctx.csrf, { token, email: operator.email })))
    },
  )

  r.post(
    '/setup/:token',
    { schema: { hide, params: SetupParams, querystring: NoQuery, body: SetupPasswordBody, response: responses } },
    async (request, reply) => {
      const ctx = c.context(request, reply)
      const { token } = request.params
      const operator = await usable(token)
      if (!operator) return unusable(reply, ctx)
      const problem = passwordProblem(request.body.password, { email: operator.email })
      if (problem)
        return sendPage(
          reply,
          400,
          consolePage(ctx, TITLE, passwordForm(ctx.csrf, { token, email: operator.email, error: problem })),
        )
      const browser = randomSecret()
      const offer = await c.operators.offerSecret(token, {
        passwordHash: await hashPassword(request.body.password, c.config.passwordHashCost),
        browser,
      })
      if (!offer) return unusable(reply, ctx)
      reply.setCookie(cookie.name, browser, cookie.options)
      const { secret } = offer
      return sendPage(
        reply,
        200,
        consolePage(
          ctx,
          TITLE,
          await authenticatorForm(ctx.csrf, {
            token,
            email: operator.email,
            secret,
            uri: totpUri(secret, operator.email),
          }),
        ),
      )
    },
  )

  r.post(
    '/setup/:token/confirm',
    { schema: { hide, params: SetupParams, querystring: NoQuery, body: SetupCodeBody, response: responses } },
    async (request, reply) => {
      const ctx = c.context(request, reply)
      const { token } = request.params
      const browser = request.cookies[cookie.name]
      const offered = token.length <= 200 ? await c.operators.offered(token, browser) : undefined
      if (!offered) return unusable(reply, ctx)
      const { operator, secret } = offered
      if (browser === undefined || secret === undefined)
        return sendPage(reply, 409, consolePage(ctx, TITLE, setupStartedElsewhere(token)))
      const step = matchingStep(secret, request.body.code, c.clock.now())
      if (step === undefined) {
        return sendPage(
          reply,
          400,
          consolePage(
            ctx,
            TITLE,
            await authenticatorForm(ctx.csrf, {
              token,
              email: operator.email,
              secret,
              uri: totpUri(secret, operator.email),
              error: WRONG_CODE,
            }),
          ),
        )
      }
      const done = await c.operators.completeSetup(token, { browser, secret, step, address: request.ip })
      // Used or voided between the look and the statement: whichever it is, the link's state says.
      if (!done)
        return (await usable(token))
          ? sendPage(reply, 409, consolePage(ctx, TITLE, setupStartedElsewhere(token)))
          : unusable(reply, ctx)
      reply.clearCookie(cookie.name, cookie.options)
      return sendPage(reply, 200, consolePage(ctx, 'Save your recovery codes', recoveryCodesPage(done.recoveryCodes)))
    },
  )
}
