// What the console's route modules get (`export async function xRoutes(app, c: OperatorConsole)`): the services it
// was given and what the console adds (sessions, CSRF, roles, the page context). Apart from the plugin that registers
// the routes, so a route file and the plugin never import each other.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import type { AccountsRepository } from '../../modules/accounts/accounts.repository.js'
import type { Verification } from '../../modules/integrators/verification.js'
import type { Invitations } from '../../modules/integrators/invitations.js'
import type { AuditRepository } from '../../modules/audit/audit.repository.js'
import type { AuditActor } from '../../modules/audit/audit-event.js'
import type { Clock } from '../../kernel/clock.js'
import type { Config } from '../../kernel/config.js'
import type { Database } from '../../db/schema.js'
import type { RateLimiter } from '../../modules/limits/rate-limiter.js'
import type { Operator, OperatorRole } from '../../modules/operators/operator.js'
import type { OperatorsRepository } from '../../modules/operators/operators.repository.js'
import type { Usage } from '../../modules/usage/usage.service.js'
import type { Csrf } from '../kit/csrf.js'
import type { Mailer } from '../../mail/mail.js'
import type { ConsolePageContext } from './layout.js'
import type { ConsoleSessions, OperatorVisitor } from './sessions.js'
import type { SiteBounds } from '../kit/safe-next.js'
import type { OutageLog } from '../../ops/outage-log.js'
import type { PlanRequests } from '../../modules/plan-requests/plan-requests.service.js'
import type { WebhookEndpoints } from '../../modules/webhooks/endpoints.service.js'
import type { DeliveryLog } from '../../modules/webhooks/delivery-log.js'
import type { TwoFactor } from '../../modules/two-factor/two-factor.service.js'
import type { Teams } from '../../modules/teams/teams.service.js'

export interface ConsoleOptions {
  config: Config
  /** The database, for the console's own read-only queries (overview, search); changes go through the services. */
  db: Kysely<Database>
  clock: Clock
  accounts: AccountsRepository
  usage: Usage
  audit: AuditRepository
  operators: OperatorsRepository
  /** Absent on a private console without MAIL_URL: the actions that mail are not offered. */
  mailer?: Mailer
  /** Verification links and their message, as the portal's sign-up mails them (Resend verification). */
  verification: Verification
  /** Accounts operators make for someone, who chooses a password through the mailed link; where the portal is on. */
  invitations?: Invitations
  /** Requests for a higher plan: the console decides them (asked for in the portal). */
  planRequests: PlanRequests
  /** The rate limiter (its `.store` holds bans). */
  limiter: RateLimiter
  /** Signs the console's CSRF tokens (kept in the database, so every instance agrees). */
  csrfSecret: string
  /** The process's database outage (ops/outage-log.ts): pages refused by it are counted there. */
  databaseOutage?: OutageLog
  /** An account's webhook endpoints, their health and Disable (account page); absent with WEBHOOKS=off. */
  webhooks?: ConsoleWebhooks
  /** The portal users' second factors: the account page shows them (never a secret), admins reset them. */
  twoFactor: ConsoleTwoFactor
  /** Accounts' members and open invitations: the account page lists them, the search finds accounts by them. */
  teams: ConsoleTeams
}

/** What the console reads of the teams (account.routes.ts, search.repository.ts); operators change no membership. */
export type ConsoleTeams = Pick<Teams, 'members' | 'pendingInvitations' | 'accountsOf'>

/** What the console uses of the second factors (account.routes.ts, account-actions.routes.ts). */
export type ConsoleTwoFactor = Pick<TwoFactor, 'status' | 'resetAll'>

/** What the console uses of the webhooks (account-webhooks.routes.ts): the endpoints service and their health. */
export interface ConsoleWebhooks {
  endpoints: Pick<WebhookEndpoints, 'list' | 'get' | 'disableByOperator'>
  deliveryLog: Pick<DeliveryLog, 'health'>
}

/** What a console route module gets besides the app: `export async function xRoutes(app, c: OperatorConsole)`. */
export interface OperatorConsole extends ConsoleOptions {
  sessions: ConsoleSessions
  csrf: Csrf
  /** The page context of this visitor (a pre-session is started if it has none, so its forms carry a token). */
  context(request: FastifyRequest, reply: FastifyReply): ConsolePageContext
  /** The signed-in operator if its role suffices (admin > support); otherwise throws PageError 403. */
  require(request: FastifyRequest, role: OperatorRole): Operator
  /** The signed-in operator as the actor of an audit entry. */
  actor(request: FastifyRequest): AuditActor
  /** An absolute link to a console page, for mail: from CONSOLE_PUBLIC_URL, never from the request. */
  link(path: string): string
}

declare module 'fastify' {
  interface FastifyRequest {
    operatorVisitor: OperatorVisitor
  }
}

/** Where log-in may send a visitor back to (kit/safe-next.ts): pages under /console; home is the overview. */
export const CONSOLE_BOUNDS: SiteBounds = { base: '/console', home: '/console' }
