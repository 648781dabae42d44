// An endpoint's delivery log on its page: every attempt newest first, a page at a time (time, event, what came of
// it in words, how long it took, the first 1 KiB of the answer), a "Send again" button for each event, and the form
// that sends again every event that failed since a time (both for a role that may change endpoints).
import type { Attempt } from '../../modules/webhooks/delivery-log.js'
import { html, type Html } from '../kit/html.js'
import { whenCell } from '../kit/when.js'
import { csrfField } from './layout.js'

/** How far back "Resend failed events" reaches (seconds). */
export const RECOVER_CHOICES = [
  { value: '3600', label: 'the last hour' },
  { value: '86400', label: 'the last 24 hours' },
  { value: '604800', label: 'the last 7 days' },
] as const

/** What an attempt's class of error means, in words (webhook-http.ts, delivery-worker.ts). */
const ERROR_WORDS: Record<string, string> = {
  timeout: 'Timed out',
  refused: 'Connection refused',
  tls: 'TLS failed (certificate or handshake)',
  blocked_address: 'Blocked address (not reachable from this service)',
  dns: 'DNS lookup failed',
  redirect: 'Redirect (not followed)',
  network: 'Network error',
  endpoint_disabled: 'Not sent: the endpoint is disabled',
}

/** What came of an attempt: delivered, or why not (the HTTP status, or the class of error). */
function resultText(attempt: Attempt): string {
  const status = attempt.statusCode === undefined ? undefined : `HTTP ${attempt.statusCode}`
  if (attempt.statusCode !== undefined && attempt.statusCode >= 200 && attempt.statusCode < 300)
    return `Delivered: ${status}`
  const words = attempt.errorClass === undefined ? undefined : ERROR_WORDS[attempt.errorClass]
  return `Failed: ${[words, status].filter(Boolean).join(', ') || attempt.errorClass || 'unknown error'}`
}

const duration = (ms: number) => (ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`)

/** The answer's first 1 KiB, folded away under the result (the widest cell, so it reads in long lines). */
function response(attempt: Attempt): Html {
  if (attempt.responseExcerpt === undefined || attempt.responseExcerpt === '') return html``
  return html`<details><summary>Response body</summary><pre>${attempt.responseExcerpt}</pre></details>`
}

/** `resend`: this row has the "Send again" button; `column`: the table has the Actions column at all. */
function row(endpointId: string, attempt: Attempt, csrf: string, resend: boolean, column: boolean): Html {
  const eventCell = `event-${attempt.seq}`
  const action = resend
    ? html`<form method="post" action="/portal/webhooks/${endpointId}/events/${attempt.eventId}/resend">\
${csrfField(csrf)}<button type="submit" class="small secondary" aria-describedby="${eventCell}">Send again</button>\
</form>`
    : ''
  const failed = !resultText(attempt).startsWith('Delivered')
  return html`<tr><td class="when" data-label="Time">${whenCell(attempt.attemptedAt, '—')}</td>\
<th scope="row" data-label="Event" id="${eventCell}"><code>${attempt.eventType}</code><br><code \
class="key-name">${attempt.eventId}</code></th>
<td data-label="Result"><span class="${failed ? 'state-suspended' : 'state-active'}">${resultText(attempt)}</span>${
    attempt.error ? html`<br><span class="muted">${attempt.error}</span>` : ''
  }${response(attempt)}</td><td data-label="Duration">${duration(attempt.durationMs)}</td>\
${column ? html`<td class="actions">${action}</td>` : ''}</tr>`
}

/**
 * The log's section. `enabled`: events may be sent again (a disabled endpoint is sent nothing); `before`: this page
 * starts below the newest attempts; `older`: the cursor of the next page, if there is one; `manage`: the member's
 * role may send events again (developer and above).
 */
export function deliveryLog(input: {
  csrf: string
  endpointId: string
  enabled: boolean
  attempts: Attempt[]
  first: boolean
  older?: bigint
  manage: boolean
}): Html {
  const { endpointId } = input
  const options = RECOVER_CHOICES.map(
    (c) => html`<option value="${c.value}"${c.value === '86400' ? html` selected` : ''}>${c.label}</option>`,
  )
  const recover = !input.manage
    ? html``
    : input.enabled
      ? html`<h3>Resend failed events</h3>
<p class="muted">Every event whose delivery here failed for good (after its last retry), recorded in the time chosen, \
is sent again.</p>
<form method="post" action="/portal/webhooks/${endpointId}/recover" class="inline-form">${csrfField(input.csrf)}\
<div><label for="since">Events recorded in</label><select id="since" name="since">${options}</select></div>\
<button type="submit" class="secondary">Resend failed events</button></form>`
      : html`<p class="muted">The endpoint is disabled: enable it to send events to it again.</p>`
  // The newest attempt of each event on the page gets the button (one event is one delivery).
  const seen = new Set<string>()
  const rows = input.attempts.map((a) => {
    const first = !seen.has(a.eventId)
    seen.add(a.eventId)
    return row(endpointId, a, input.csrf, input.manage && input.enabled && first, input.manage)
  })
  const none = !input.first
    ? 'No older attempts.'
    : input.manage
      ? 'No deliveries yet. Send a test event to see one here.'
      : 'No deliveries yet.'
  const table =
    input.attempts.length === 0
      ? html`<p class="muted">${none}</p>`
      : html`<table class="cards deliveries"><thead><tr><th scope="col">Time</th><th scope="col">Event</th>\
<th scope="col">Result</th><th scope="col">Duration</th>${
          input.manage ? html`<th scope="col">Actions</th>` : ''
        }</tr></thead>
<tbody>${rows}</tbody></table>`
  const paging =
    input.first && input.older === undefined
      ? ''
      : html`<p class="row-actions">${
          input.first
            ? ''
            : html`<a href="/portal/webhooks/${endpointId}#deliveries">\
Newest attempts</a>`
        }${
          input.older === undefined
            ? ''
            : html`<a href="/portal/webhooks/${endpointId}?before=${String(input.older)}#deliveries">Older attempts</a>`
        }</p>`
  return html`<h2 id="deliveries">Deliveries</h2>
<p class="muted">Every attempt to deliver an event here, newest first. Times are UTC. A failed delivery is tried \
again on a schedule${input.manage ? html`; "Send again" sends an event now` : ''}.</p>
${table}${paging}${recover}`
}
