// What the webhooks' HTTP client is made from, as plain data: the service builds one from it in process, and the
// delivery thread (webhook-sender-thread.ts) builds its own from the same values, handed over as workerData.
import type { Config } from '../kernel/config.js'
import { packageInfo } from '../kernel/version.js'
import { createAddressPolicy } from '../modules/webhooks/address-policy.js'
import { createWebhookHttp } from '../modules/webhooks/webhook-http.js'

export interface WebhookHttpSettings {
  allowed: string[]
  allowLoopback: boolean
  timeoutMs: number
  userAgent: string
  allowHttp: boolean
}

export function webhookHttpSettings(config: Config): WebhookHttpSettings {
  const production = config.environment === 'production'
  return {
    allowed: [...(config.deliveryAllowedNetworks ?? [])],
    // Outside production an integrator may point an endpoint at their own machine, unless the operator said which
    // networks are allowed.
    allowLoopback: !production && config.deliveryAllowedNetworks === undefined,
    timeoutMs: config.deliveryTimeoutMs,
    userAgent: `Petstore-Webhooks/${packageInfo().version}`,
    allowHttp: !production,
  }
}

/** The client, and the address policy every URL is held to (on save and at each attempt). */
export function webhookHttpFrom(settings: WebhookHttpSettings) {
  const policy = createAddressPolicy({ allowed: settings.allowed, allowLoopback: settings.allowLoopback })
  return createWebhookHttp({
    policy,
    timeoutMs: settings.timeoutMs,
    userAgent: settings.userAgent,
    allowHttp: settings.allowHttp,
  })
}
