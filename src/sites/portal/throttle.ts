// The portal's log-in throttle (src/web/login-throttle.ts) on portal_login_failures; its 429 page suggests a
// password reset, which lifts the limits for that email.
import type { Clock } from '../../kernel/clock.js'
import { createLoginThrottle as createWebLoginThrottle } from '../../modules/sign-in/login-throttle.js'
import type { PortalRepository } from '../../modules/integrators/integrators.repository.js'

export { LOGIN_FAILURES_ALLOWED } from '../../modules/sign-in/login-throttle.js'

export const createLoginThrottle = ({ repo, clock }: { repo: PortalRepository; clock: Clock }) =>
  createWebLoginThrottle({ store: repo, clock, advice: ', or reset your password' })
