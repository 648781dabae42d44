// The account page's "Webhook endpoints" section (WEBHOOKS=on): each endpoint's URL, description, event types, state
// (and why it is disabled, in words), health (its last attempt, since when it fails, what is pending, the last 24
// hours) and when it was added; never a secret. Admins get a Disable button per enabled endpoint, which opens the
// confirmation step below. URLs and descriptions are the integrator's words: escaped like everything else, and never
// made into links.
import type { Account } from '../../modules/accounts/accounts.repository.js'
import type { EndpointHealth } from '../../modules/webhooks/endpoint-health.js'
import type { Endpoint } from '../../modules/webhooks/endpoint.js'
import type { DeliveryErrorClass } from '../../modules/webhooks/webhook-http.js'
import { html, type Html } from '../kit/html.js'
import { when, whenCell } from '../kit/when.js'
import { actionButton, planText, stateText } from './account.pages.js'
import { csrfField, isAdmin, notice, type ConsolePageContext } from './layout.js'

const number = (n: number) => n.toLocaleString('en-US')
const plural = (n: number, one: string, many: string) => `${number(n)} ${n === 1 ? one : many}`

/** A span of milliseconds in whole days or hours (WEBHOOK_DISABLE_AFTER is either): `5 days`. */
export function span(ms: number): string {
  const [n, unit] = ms % 86_400_000 === 0 ? [ms / 86_400_000, 'day'] : [Math.round(ms / 3_600_000), 'hour']
  return `${n} ${unit}${n === 1 ? '' : 's'}`
}

const disablePath = (account: Pick<Account, 'id'>, endpoint: Pick<Endpoint, 'id'>) =>
  `/console/accounts/${encodeURIComponent(account.id)}/webhooks/${encodeURIComponent(endpoint.id)}/disable`

/** Whether the endpoint is sent events, and if not why, in words. `disableAfter`: e.g. "5 days". */
function endpointState(endpoint: Endpoint, disableAfter: string): string {
  if (endpoint.enabled) return 'Enabled'
  switch (endpoint.disabledReason) {
    case 'gone':
      return 'Disabled: the endpoint answered 410 Gone'
    case 'failing':
      return `Disabled: every delivery failed for ${disableAfter}`
    case 'operator':
      return 'Disabled by an operator'
    default:
      return 'Disabled by the integrator'
  }
}

/** What an attempt's class of error means (webhook-http.ts; `endpoint_disabled`: delivery-worker.ts). */
const ERROR_WORDS: Record<Exclude<DeliveryErrorClass, 'http_status'> | 'endpoint_disabled', string> = {
  timeout: 'timed out',
  refused: 'connection refused',
  tls: 'TLS failed',
  blocked_address: 'blocked address',
  dns: 'DNS lookup failed',
  redirect: 'redirect (not followed)',
  network: 'network error',
  endpoint_disabled: 'not sent, the endpoint was disabled',
}

/** `delivered (HTTP 204)`, `failed (HTTP 500)`, `failed (timed out)`. */
function outcomeText(last: NonNullable<EndpointHealth['lastAttempt']>): string {
  const status = last.statusCode === undefined ? undefined : `HTTP ${last.statusCode}`
  if (last.statusCode !== undefined && last.statusCode >= 200 && last.statusCode < 300 && !last.errorClass)
    return `delivered (${status})`
  const words =
    last.errorClass === undefined || last.errorClass === 'http_status'
      ? undefined
      : (ERROR_WORDS[last.errorClass as keyof typeof ERROR_WORDS] ?? last.errorClass)
  return `failed (${[words, status].filter(Boolean).join(', ') || 'unknown error'})`
}

function healthList(health: EndpointHealth | undefined): Html {
  if (health === undefined) return html`<span class="muted">unknown</span>`
  const last = health.lastAttempt
  const outcome = last && outcomeText(last)
  const lines = [
    last === undefined
      ? html`No attempt yet`
      : html`Last attempt ${when(last.at)}: <span class="${
          outcome?.startsWith('delivered') ? 'state-active' : 'state-suspended'
        }">${outcome}</span>`,
    health.failingSince ? html`<strong>Failing since ${when(health.failingSince)}</strong>` : '',
    html`${plural(health.pending, 'delivery', 'deliveries')} pending`,
    html`Last 24 h: ${plural(health.attempts24h, 'attempt', 'attempts')}, ${number(health.failures24h)} failed`,
  ].filter((line) => line !== '')
  return html`<ul class="changes">${lines.map((line) => html`<li>${line}</li>`)}</ul>`
}

const eventsText = (endpoint: Endpoint): Html =>
  endpoint.eventTypes.includes('*')
    ? html`All events`
    : html`${endpoint.eventTypes.map((t, i) => html`${i > 0 ? ', ' : ''}<code>${t}</code>`)}`

const stateCell = (endpoint: Endpoint, disableAfter: string): Html =>
  html`<span class="${endpoint.enabled ? 'state-active' : 'state-suspended'}">${endpointState(endpoint, disableAfter)}\
</span>`

export function webhooksSection(
  ctx: ConsolePageContext,
  input: { account: Account; endpoints: Endpoint[]; health: Map<string, EndpointHealth>; disableAfter: string },
): Html {
  const { account } = input
  const heading = html`<h2 id="webhooks">Webhook endpoints</h2>`
  if (input.endpoints.length === 0) return html`${heading}<p class="muted">No webhook endpoints.</p>`
  const admin = isAdmin(ctx) && account.deletedAt === null
  const rows = input.endpoints.map((e) => {
    const disable =
      admin && e.enabled
        ? actionButton(disablePath(account, e), 'Disable', { describedBy: `endpoint-${e.id}`, small: true })
        : ''
    return html`<tr><th scope="row" id="endpoint-${e.id}" class="key-name"><code>${e.url}</code></th>\
<td data-label="Description">${e.description || html`<span class="muted">—</span>`}</td>
<td data-label="Events">${eventsText(e)}</td><td data-label="State">${stateCell(e, input.disableAfter)}</td>
<td data-label="Health">${healthList(input.health.get(e.id))}</td>
<td class="when" data-label="Added">${whenCell(e.createdAt, '—')}</td><td class="actions">${disable}</td></tr>`
  })
  return html`${heading}<table class="cards webhooks"><caption class="muted">Times are UTC. Signing secrets are \
never shown here.</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Description</th><th scope="col">Events</th><th scope="col">State\
</th><th scope="col">Health</th><th scope="col">Added</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

/** Disable (admin): what it does, the endpoint as it is now, and the button; nothing to do if it is not enabled. */
export function disableEndpointPage(
  csrf: string,
  input: { account: Account; endpoint: Endpoint; health: EndpointHealth | undefined; disableAfter: string },
): Html {
  const { account, endpoint } = input
  const accountHref = `/console/accounts/${encodeURIComponent(account.id)}`
  const facts = html`<table class="facts"><tbody>
<tr><th scope="row">URL</th><td><code class="key-name">${endpoint.url}</code></td></tr>
<tr><th scope="row">Description</th><td>${endpoint.description || html`<span class="muted">—</span>`}</td></tr>
<tr><th scope="row">Events</th><td>${eventsText(endpoint)}</td></tr>
<tr><th scope="row">State</th><td>${stateCell(endpoint, input.disableAfter)}</td></tr>
<tr><th scope="row">Health</th><td>${healthList(input.health)}</td></tr>
<tr><th scope="row">Added</th><td>${when(endpoint.createdAt)}</td></tr>
</tbody></table>`
  const about = html`<p>Account <strong>${account.name}</strong> (<code>${account.id}</code>), plan \
${planText(account)}. State: ${stateText(account)}.</p>`
  if (!endpoint.enabled)
    return html`${notice('info', 'This endpoint is not enabled: there is nothing to disable.')}${about}${facts}
<p><a href="${accountHref}">Back to the account</a></p>`
  return html`${about}${facts}
<p>Disabling stops sending events to this endpoint from now on: new events are not delivered to it, and deliveries \
still pending are not sent. Its owner sees "Disabled by the operator of this service" in the portal and can enable \
it again there or through the API. The change is recorded in the audit log with your email.</p>
<form method="post" action="${disablePath(account, endpoint)}" class="stacked">${csrfField(csrf)}
<div class="row-actions"><button type="submit" class="danger">Disable endpoint</button><a \
href="${accountHref}">Cancel</a></div>
</form>`
}
