// An operator: a person who runs the service from the console (apart from integrator accounts), and its role.
import type { OperatorsTable } from '../../db/schema.js'

export const OPERATOR_ROLES = ['admin', 'support'] as const
export type OperatorRole = (typeof OPERATOR_ROLES)[number]

export interface Operator {
  id: string
  email: string
  role: OperatorRole
  createdAt: string
  disabledAt: string | null
  /** Whether the setup link was used (a password and an authenticator are set). */
  setUp: boolean
}

export const isOperatorRole = (value: string): value is OperatorRole =>
  (OPERATOR_ROLES as readonly string[]).includes(value)

/** Whether `role` may do what `needed` may: admin > support. */
export const roleSuffices = (role: OperatorRole, needed: OperatorRole): boolean =>
  needed === 'support' || role === 'admin'

export const operatorOf = (row: OperatorsTable): Operator => ({
  id: row.id,
  email: row.email,
  role: row.role,
  createdAt: row.created_at,
  disabledAt: row.disabled_at,
  setUp: row.password_hash !== null && row.totp_secret !== null,
})

/** A refused operator change, with a message for the CLI or the page. */
export class OperatorError extends Error {
  constructor(
    readonly code: 'not_found' | 'email_taken' | 'invalid_email' | 'disabled' | 'self' | 'last_admin',
    message: string,
  ) {
    super(message)
    this.name = 'OperatorError'
  }
}
