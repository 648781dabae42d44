// Every console log-in attempt is an audit entry with the client address: a success (operator.login), and each
// failure (operator.login_failed) with what failed: `password`, `code`, `code_not_checked_too_many_attempts`,
// `throttled` (refused 429 before anything was checked), `operator_disabled`, `setup_pending` or `unknown_email`.
// An attempt at an email no operator has is on record with the email as typed (never the password) and no operator
// id. Anyone can send those, so the email is cut to TYPED_EMAIL_MAX characters (its length kept): junk typed by a
// stranger cannot make an entry large. The number of entries is bounded by what can reach the log-in form; a flood
// of it is for the proxy in front to limit (docs/operators/console.md).
import type { AuditRepository } from '../../modules/audit/audit.repository.js'
import type { Operator } from '../../modules/operators/operator.js'
import type { OperatorsRepository } from '../../modules/operators/operators.repository.js'

const TYPED_EMAIL_MAX = 100

type LoginFailure = 'password' | 'code' | 'code_not_checked_too_many_attempts' | 'throttled'

export function loginAudit({ audit, operators }: { audit: AuditRepository; operators: OperatorsRepository }) {
  const target = (operator: Operator) => ({ kind: 'operator' as const, id: operator.id })
  const actorOf = (operator: Operator, address: string) => ({
    kind: 'operator' as const,
    operatorId: operator.id,
    email: operator.email,
    address,
  })

  return {
    succeeded: (operator: Operator, address: string, changes: Record<string, unknown>) =>
      audit.record(actorOf(operator, address), { action: 'operator.login', target: target(operator), changes }),

    /**
     * A failed attempt at `email` (as typed). `operator`: the one whose credentials were checked; without it, the
     * operator with that email is looked up (a disabled one, one not set up yet), else the email was unknown.
     */
    async failed(email: string, address: string, failed: LoginFailure | undefined, operator?: Operator): Promise<void> {
      const known = operator ?? (await operators.findByEmail(email))
      if (known) {
        const why = failed ?? (known.disabledAt !== null ? 'operator_disabled' : 'setup_pending')
        return audit.record(actorOf(known, address), {
          action: 'operator.login_failed',
          target: target(known),
          changes: { failed: why },
        })
      }
      const cut = email.length > TYPED_EMAIL_MAX
      const typed = cut ? `${email.slice(0, TYPED_EMAIL_MAX - 1)}…` : email
      const changes = { failed: failed ?? 'unknown_email', ...(cut ? { emailLength: email.length } : {}) }
      return audit.record(
        { kind: 'operator', operatorId: null, email: typed, address },
        { action: 'operator.login_failed', changes },
      )
    },
  }
}
