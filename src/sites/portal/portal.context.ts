// What the portal's route modules get (`export async function xRoutes(app, portal: Portal)`): the services it was
// given and what the portal adds (sessions, CSRF, the page context). Apart from the plugin that registers the routes,
// so a route file and the plugin never import each other.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccountsRepository } from '../../modules/accounts/accounts.repository.js'
import type { Verification } from '../../modules/integrators/verification.js'
import type { Clock } from '../../kernel/clock.js'
import type { Config } from '../../kernel/config.js'
import type { Csrf } from '../kit/csrf.js'
import type { AuditRepository } from '../../modules/audit/audit.repository.js'
import type { Metrics } from '../../ops/metrics.js'
import type { PageContext } from './layout.js'
import type { Mailer } from '../../mail/mail.js'
import type { PlanRequests } from '../../modules/plan-requests/plan-requests.service.js'
import type { PlanRequestThrottle } from '../../modules/plan-requests/plan-request-throttle.js'
import type { PortalRepository } from '../../modules/integrators/integrators.repository.js'
import type { SettingsRepository } from '../../modules/integrators/settings.repository.js'
import type { KnownDevices } from '../../modules/integrators/known-devices.js'
import type { Sessions, Visitor } from './session.js'
import type { Usage } from '../../modules/usage/usage.service.js'
import type { SiteBounds } from '../kit/safe-next.js'
import type { OutageLog } from '../../ops/outage-log.js'
import type { WebhookEndpoints } from '../../modules/webhooks/endpoints.service.js'
import type { DeliveryLog } from '../../modules/webhooks/delivery-log.js'
import type { TwoFactor } from '../../modules/two-factor/two-factor.service.js'
import type { Teams } from '../../modules/teams/teams.service.js'

export interface PortalOptions {
  config: Config
  clock: Clock
  accounts: AccountsRepository
  usage: Usage
  repo: PortalRepository
  /** The account settings page's reads and changes (settings.repository.ts). */
  settings: SettingsRepository
  /** The browsers each user has signed in from: a new one is mailed (new-browser.ts). */
  knownDevices: KnownDevices
  mailer: Mailer
  /** Verification links and their message (shared with the console: accounts/verification.ts). */
  verification: Verification
  /** Signs CSRF tokens (kept in the database, so every instance agrees). */
  csrfSecret: string
  /** Seals a new key's secret in a cookie across the redirect that shows it (secret-flash.ts). */
  flashSecret: string
  /** Requests for a higher plan (src/plan-requests/), asked for on the usage page. */
  planRequests: PlanRequests
  /** How many plan requests one client address may send (plan-request-throttle.ts). */
  planRequestThrottle: PlanRequestThrottle
  /** The audit log, read for the account's own entries (/portal/activity). */
  audit: AuditRepository
  /** Sign-ups and log-ins, counted for /metrics. */
  metrics: Metrics['portal']
  /** The process's database outage (ops/outage-log.ts): pages refused by it are counted there. */
  databaseOutage?: OutageLog
  /** Teams: the account's members and invitations (modules/teams). */
  teams: Teams
  /** Second factors: authenticator app, passkeys, recovery codes, the log-in step (modules/two-factor). */
  twoFactor: TwoFactor
  /** The account's webhook endpoints and their delivery log (/portal/webhooks); absent with WEBHOOKS=off. */
  webhooks?: PortalWebhooks
}

/** What the webhooks pages use (webhooks.routes.ts): the API's endpoints service and the delivery log. */
export interface PortalWebhooks {
  endpoints: WebhookEndpoints
  deliveryLog: DeliveryLog
}

/** What a portal route handler needs besides the request. */
export interface Portal extends PortalOptions {
  sessions: Sessions
  csrf: Csrf
  /**
   * The page context of this visitor (a pre-session is started if it has none, so its forms carry a token), and
   * what its member may do in the account: the controls a page shows.
   */
  context(request: FastifyRequest, reply: FastifyReply): PageContext & { can: Abilities }
  /** An absolute link to one of our pages, for mail: from PETSTORE_PUBLIC_URL, never from the request. */
  link(path: string): string
}

/**
 * What the visitor's role in the account allows (from membership.ts's one table of the role each action needs): a
 * page shows only the controls its visitor may use. A request without them is refused (403) before its handler
 * anyway; this only keeps a viewer from being offered a button that would be refused.
 */
export interface Abilities {
  /** Create, roll, narrow and revoke keys (developer). */
  manageKeys: boolean
  /** Add, change, enable and disable, rotate, delete and send to webhook endpoints (developer). */
  manageWebhooks: boolean
  /** Ask for a higher plan (admin). */
  requestPlan: boolean
  /** Delete the account (owner). */
  deleteAccount: boolean
}

declare module 'fastify' {
  interface FastifyRequest {
    visitor: Visitor
  }
}

/** Where log-in may send a visitor back to (kit/safe-next.ts): pages under /portal; home is the keys page. */
export const PORTAL_BOUNDS: SiteBounds = { base: '/portal', home: '/portal/keys' }
