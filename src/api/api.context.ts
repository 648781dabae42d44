// What the API's routes get (`app.register(petsRoutes, { api })`): the services they use, built once by the
// composition root (src/main/services.ts) and handed down. Routes read nothing else from the app or the request
// but per-request state (request.auth). Apart from the files that register the routes, so none of them import
// each other.
import type { Clock } from '../kernel/clock.js'
import type { Config } from '../kernel/config.js'
import type { AccountsRepository } from '../modules/accounts/accounts.repository.js'
import type { AuditRepository } from '../modules/audit/audit.repository.js'
import type { IdempotencyRepository } from '../modules/idempotency/idempotency.repository.js'
import type { RateLimiter } from '../modules/limits/rate-limiter.js'
import type { MessagesRepository } from '../modules/messages/messages.repository.js'
import type { OrdersRepository } from '../modules/orders/orders.repository.js'
import type { PetsRepository } from '../modules/pets/pets.repository.js'
import type { Usage } from '../modules/usage/usage.service.js'
import type { WebhookEndpoints } from '../modules/webhooks/endpoints.service.js'
import type { DeliveryLog } from '../modules/webhooks/delivery-log.js'
import type { EventsRepository } from '../modules/webhooks/events.repository.js'
import type { CursorCodec } from './contract/cursor.js'

export interface ApiContext {
  config: Config
  clock: Clock
  accounts: AccountsRepository
  audit: AuditRepository
  usage: Usage
  limiter: RateLimiter
  pets: PetsRepository
  orders: OrdersRepository
  messages: MessagesRepository
  cursors: CursorCodec
  idempotency: IdempotencyRepository
  /** Absent with WEBHOOKS=off (the routes are then not registered). */
  webhooks?: { endpoints: WebhookEndpoints; events: EventsRepository; deliveryLog: DeliveryLog }
}

/** What a route plugin of the API is registered with. */
export interface ApiRoutesOptions {
  api: ApiContext
}
