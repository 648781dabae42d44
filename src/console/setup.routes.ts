// Setup links (/console/setup/TOKEN, made by `petstore operators create`): set a password, enrol an authenticator
// (its secret is kept with the token until a current code confirms it), then see 10 recovery codes once. The link
// is used up by the completed setup, in one statement, so two submissions cannot both complete it.
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import { matchingStep, totpUri } from '../operators/totp.js'
import { pageResponses } from '../web/page-schemas.js'
import { hashPassword, passwordProblem } from '../web/passwords.js'
import { sendPage } from '../web/reply.js'
import type { OperatorConsole } from './console.plugin.js'
import { NoQuery, SetupBody, SetupParams } from './console.schemas.js'
import { consolePage } from './layout.js'
import { recoveryCodesPage, setupForm, setupLinkUnusable } from './setup.pages.js'

const TITLE = 'Set up your operator account'

export async function setupRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const hide = true
  const responses = pageResponses({ 200: 'The setup form, or the recovery codes once set up', 410: 'The link has expired or was used' })

  r.get('/setup/:token', { schema: { hide, params: SetupParams, querystring: NoQuery, response: responses } }, async (request, reply) => {
    const ctx = c.context(request, reply)
    const { token } = request.params
    const setup = token.length <= 200 ? await c.operators.beginSetup(token) : undefined
    if (!setup) return sendPage(reply, 410, consolePage(ctx, TITLE, setupLinkUnusable))
    const { operator, secret } = setup
    return sendPage(reply, 200, consolePage(ctx, TITLE, await setupForm(ctx.csrf, { token, email: operator.email, secret, uri: totpUri(secret, operator.email) })))
  })

  r.post('/setup/:token', { schema: { hide, params: SetupParams, querystring: NoQuery, body: SetupBody, response: responses } }, async (request, reply) => {
    const ctx = c.context(request, reply)
    const { token } = request.params
    const setup = token.length <= 200 ? await c.operators.beginSetup(token) : undefined
    if (!setup) return sendPage(reply, 410, consolePage(ctx, TITLE, setupLinkUnusable))
    const { operator, secret } = setup
    const again = async (error: string) =>
      sendPage(reply, 400, consolePage(ctx, TITLE, await setupForm(ctx.csrf, { token, email: operator.email, secret, uri: totpUri(secret, operator.email), error })))
    const problem = passwordProblem(request.body.password, { email: operator.email })
    if (problem) return again(problem)
    const step = matchingStep(secret, request.body.code, c.clock.now())
    if (step === undefined) return again('That code does not match. Enter the 6-digit code your authenticator app shows now (check that the phone\'s clock is right).')
    const done = await c.operators.completeSetup(token, { passwordHash: await hashPassword(request.body.password, app.config.passwordHashCost), secret, step })
    if (!done) return sendPage(reply, 410, consolePage(ctx, TITLE, setupLinkUnusable))
    return sendPage(reply, 200, consolePage(ctx, 'Save your recovery codes', recoveryCodesPage(done.recoveryCodes)))
  })
}
