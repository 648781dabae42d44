// Console log-in: email, password and a current TOTP code (or a recovery code, used up by it). One message for
// every failure; throttled like the portal's log-in (src/web/login-throttle.ts, on operator_login_failures). A
// TOTP code is accepted once: its step is recorded with a conditional UPDATE, so a replay (even a concurrent one)
// fails. Codes are checked only after the password, so nobody without it can use up a code. Every attempt, the
// throttled ones included, is an audit entry with the client address (login-audit.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance } from 'fastify'
import type { Operator } from '../../modules/operators/operator.js'
import type { OperatorsRepository } from '../../modules/operators/operators.repository.js'
import { looksLikeRecoveryCode } from '../../modules/sign-in/recovery-codes.js'
import { matchingStep, normalizeTotpCode } from '../../modules/sign-in/totp.js'
import { emailKeyOf } from '../../kernel/email-address.js'
import { html } from '../kit/html.js'
import { createLoginThrottle } from '../../modules/sign-in/login-throttle.js'
import { TooManyLogins } from '../../modules/sign-in/login-throttle.errors.js'
import { pageResponses } from '../kit/page-schemas.js'
import { verifyAgainstNobody, verifyPassword } from '../../kernel/passwords.js'
import { redirect, sendPage } from '../kit/reply.js'
import { CONSOLE_BOUNDS, type OperatorConsole } from './console.context.js'
import { ConsoleLoginBody, ConsoleLoginQuery, CsrfOnlyBody, NoQuery } from './console.schemas.js'
import { consolePage, csrfField, notice } from './layout.js'
import { loginAudit } from './login-audit.js'
import { safeNext } from '../kit/safe-next.js'

const FAILED = 'Email, password or code is incorrect.'

function loginForm(csrf: string, values: { email?: string; next?: string; error?: string } = {}) {
  const next =
    values.next && values.next !== '/console' ? html`<input type="hidden" name="next" value="${values.next}">` : ''
  return html`${notice('error', values.error)}
<form method="post" action="/console/login" class="stacked">${csrfField(csrf)}${next}
<div><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required \
value="${values.email ?? ''}"${values.error ? '' : html` autofocus`}></div>
<div><label for="password">Password</label><input id="password" name="password" type="password" \
autocomplete="current-password" required></div>
<div><label for="code">Code</label><span class="hint" id="code-hint">The 6-digit code of your authenticator app, or \
one of your recovery codes.</span><input id="code" name="code" type="text" inputmode="text" \
autocomplete="one-time-code" required maxlength="64" spellcheck="false" autocapitalize="none" \
aria-describedby="code-hint"></div>
<div><button type="submit">Log in</button></div>
</form>`
}

/**
 * Whether `code` is the operator's next TOTP code or an unused recovery code (either is then used up). Only within
 * the operator's budget of code attempts (operators/code-attempts.ts: 10 per 15 minutes from any address, counted
 * before the check so concurrent guesses cannot overtake it); beyond it the code is not checked, and the answer is
 * the same failure as any other (a 429 here would tell a password guesser that the password was right).
 */
async function secondFactor(
  operators: OperatorsRepository,
  operator: Operator,
  secret: string,
  code: string,
  now: number,
): Promise<'totp' | 'recovery_code' | 'over_budget' | undefined> {
  const attempt = await operators.codeAttempts.reserve(operator.email)
  if (!attempt.allowed) {
    await attempt.release()
    return 'over_budget'
  }
  const method = await checkCode(operators, operator, secret, code, now)
  if (method) await attempt.release()
  return method
}

async function checkCode(
  operators: OperatorsRepository,
  operator: Operator,
  secret: string,
  code: string,
  now: number,
): Promise<'totp' | 'recovery_code' | undefined> {
  if (normalizeTotpCode(code) !== undefined) {
    const step = matchingStep(secret, code, now)
    return step !== undefined && (await operators.acceptTotpStep(operator.id, step)) ? 'totp' : undefined
  }
  if (looksLikeRecoveryCode(code))
    return (await operators.useRecoveryCode(operator.id, code)) ? 'recovery_code' : undefined
  return undefined
}

export async function loginRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()
  const { operators, sessions } = c
  const throttle = createLoginThrottle({ store: operators.failures, clock: c.clock })
  const record = loginAudit(c)
  const hide = true

  r.get(
    '/login',
    { schema: { hide, querystring: ConsoleLoginQuery, response: pageResponses({ 200: 'The log-in form' }) } },
    async (request, reply) => {
      const next = safeNext(request.query.next, CONSOLE_BOUNDS)
      if (request.operatorVisitor.user) return redirect(reply, next)
      const ctx = c.context(request, reply)
      return sendPage(reply, 200, consolePage(ctx, 'Log in', loginForm(ctx.csrf, { next })))
    },
  )

  r.post(
    '/login',
    {
      schema: {
        hide,
        querystring: NoQuery,
        body: ConsoleLoginBody,
        response: pageResponses({ 429: 'Too many failed log-ins' }),
      },
    },
    async (request, reply) => {
      const { email, password, code } = request.body
      const next = safeNext(request.body.next, CONSOLE_BOUNDS)
      const address = request.ip
      const attempt = await throttle.attempt({ email: emailKeyOf(email), address }).catch(async (error: unknown) => {
        if (error instanceof TooManyLogins) await record.failed(email, address, 'throttled')
        throw error
      })
      const found = await operators.credentials(email)
      const passwordOk = found
        ? await verifyPassword(password, found.passwordHash)
        : await verifyAgainstNobody(password, c.config.passwordHashCost)
      const method =
        found && passwordOk
          ? await secondFactor(operators, found.operator, found.totpSecret, code, c.clock.now())
          : undefined
      if (!found || !method || method === 'over_budget') {
        // Which factor failed, for whoever investigates it (an unknown email: as typed, see login-audit.ts).
        const failed = !found
          ? undefined
          : !passwordOk
            ? 'password'
            : method === 'over_budget'
              ? 'code_not_checked_too_many_attempts'
              : 'code'
        await record.failed(email, address, failed, found?.operator)
        const ctx = c.context(request, reply)
        return sendPage(reply, 400, consolePage(ctx, 'Log in', loginForm(ctx.csrf, { email, next, error: FAILED })))
      }
      await attempt.succeeded()
      const operator = found.operator
      await sessions.start(request, reply, request.operatorVisitor, operator)
      const changes =
        method === 'recovery_code'
          ? { method, recoveryCodesLeft: await operators.recoveryCodesLeft(operator.id) }
          : { method }
      await record.succeeded(operator, address, changes)
      return redirect(reply, next)
    },
  )

  r.post(
    '/logout',
    { schema: { hide, querystring: NoQuery, body: CsrfOnlyBody, response: pageResponses({}) } },
    async (request, reply) => {
      await sessions.end(reply, request.operatorVisitor)
      return redirect(reply, '/console/login')
    },
  )
}
