// One endpoint's pages: its own (what it is, its actions, its delivery log, the edit form), the confirmation steps
// of Rotate secret and Delete (a page each, so they work without JavaScript), and the page that shows a new signing
// secret once, after the endpoint was added or its secret rotated. A member whose role may not change endpoints sees
// what the endpoint is and its delivery log, without the buttons and the edit form.
import type { Endpoint } from '../../modules/webhooks/endpoint.js'
import { html, type Html } from '../kit/html.js'
import { when } from '../kit/when.js'
import { csrfField, notice } from './layout.js'
import {
  endpointForm,
  type EndpointInput,
  eventsText,
  type FormErrors,
  previousSecretText,
  READ_ONLY_ENDPOINTS,
  stateText,
} from './webhooks.pages.js'

/** How long the secret before a rotation keeps signing (seconds). */
export const ROTATE_GRACE_CHOICES = [
  { value: '0', label: 'None: the old secret stops now' },
  { value: '3600', label: '1 hour' },
  { value: '86400', label: '1 day' },
  { value: '604800', label: '7 days' },
] as const
const ROTATE_GRACE_DEFAULT = '86400'

/** The page an endpoint's new secret is shown on (once): the path of its one-time cookie (secret-flash.ts). */
export const secretPath = (endpointId: string) => `/portal/webhooks/${endpointId}/secret`

const facts = (endpoint: Endpoint, disableAfter: string): Html => {
  const previous = previousSecretText(endpoint)
  return html`<table class="facts"><tbody>
<tr><th scope="row">URL</th><td class="key-name">${endpoint.url}</td></tr>
<tr><th scope="row">Description</th><td>${endpoint.description || html`<span class="muted">—</span>`}</td></tr>
<tr><th scope="row">Events</th><td>${eventsText(endpoint)}</td></tr>
<tr><th scope="row">State</th><td><span class="${endpoint.enabled ? 'state-active' : 'state-suspended'}">\
${stateText(endpoint, disableAfter)}</span></td></tr>
<tr><th scope="row">Signing secret</th><td>${previous ?? 'One secret'}</td></tr>
<tr><th scope="row">Added</th><td>${when(endpoint.createdAt)}</td></tr>
</tbody></table>`
}

function actions(csrf: string, endpoint: Endpoint): Html {
  const base = `/portal/webhooks/${endpoint.id}`
  const post = (action: string, label: string, kind = '') =>
    html`<form method="post" action="${base}/${action}">${csrfField(csrf)}<button type="submit"\
${kind ? html` class="${kind}"` : ''}>${label}</button></form>`
  // Rotate and Delete only open their confirmation step.
  const confirm = (action: string, label: string) =>
    html`<form method="get" action="${base}/${action}"><button type="submit" class="secondary">${label}</button></form>`
  return html`<div class="row-actions">${endpoint.enabled ? post('test', 'Send test event') : ''}${
    endpoint.enabled ? post('disable', 'Disable', 'secondary') : post('enable', 'Enable')
  }${confirm('rotate', 'Rotate secret')}${confirm('delete', 'Delete endpoint')}</div>`
}

/** What the last action did, from the redirect's query (`done`, and `count` after a recovery). */
export function doneNotice(done: string | undefined, count: number | undefined): Html {
  switch (done) {
    case 'saved':
      return notice('success', 'Your changes were saved.')
    case 'enabled':
      return notice('success', 'The endpoint is enabled: events are sent to it again.')
    case 'disabled':
      return notice('success', 'The endpoint is disabled: nothing is sent to it until you enable it.')
    case 'test':
      return notice('success', 'A test event (webhook.test) is on its way; its delivery appears below once sent.')
    case 'resent':
      return notice('success', 'The event will be sent again shortly; the attempt appears below.')
    case 'recovered':
      return notice(
        'success',
        count === 0
          ? 'No delivery failed in that time: nothing to send again.'
          : `${count === 1 ? '1 failed event' : `${count ?? 'The'} failed events`} will be sent again shortly.`,
      )
    default:
      return html``
  }
}

export function endpointPage(input: {
  csrf: string
  endpoint: Endpoint
  disableAfter: string
  done: Html
  log: Html
  values: EndpointInput
  errors?: FormErrors
  /** The member's role may change the endpoint and send to it (developer and above). */
  manage: boolean
}): Html {
  const { endpoint } = input
  const back = html`<p><a href="/portal/webhooks">Back to your endpoints</a></p>`
  if (!input.manage)
    return html`${input.done}${facts(endpoint, input.disableAfter)}<p class="muted">${READ_ONLY_ENDPOINTS}</p>
${input.log}
${back}`
  return html`${input.done}${facts(endpoint, input.disableAfter)}${actions(input.csrf, endpoint)}
${input.log}
<h2 id="edit">Edit endpoint</h2>
${endpointForm({
  csrf: input.csrf,
  action: `/portal/webhooks/${endpoint.id}`,
  submit: 'Save changes',
  values: input.values,
  errors: input.errors,
})}
${back}`
}

const named = (endpoint: Endpoint) => html`<code class="key-name">${endpoint.url}</code>`

export function rotateConfirm(csrf: string, endpoint: Endpoint): Html {
  return html`<p>Rotating the secret of ${named(endpoint)} makes a new one, shown once. Choose how long deliveries \
are signed with the old one too, so your receiver can switch over.</p>
<form method="post" action="/portal/webhooks/${endpoint.id}/rotate" class="stacked">${csrfField(csrf)}
<div><label for="grace">The old secret keeps working</label><select id="grace" name="grace">${ROTATE_GRACE_CHOICES.map(
    (c) =>
      html`<option value="${c.value}"${c.value === ROTATE_GRACE_DEFAULT ? html` selected` : ''}>${c.label}</option>`,
  )}</select></div>
<div class="row-actions"><button type="submit">Rotate secret</button><a href="/portal/webhooks/${endpoint.id}">Cancel\
</a></div></form>`
}

export function deleteConfirm(csrf: string, endpoint: Endpoint): Html {
  return html`<p>Delete the endpoint ${named(endpoint)}? Nothing more is sent to it (events waiting for it are not \
delivered) and its delivery log is no longer shown. This cannot be undone.</p>
<form method="post" action="/portal/webhooks/${endpoint.id}/delete" class="row-actions">${csrfField(csrf)}<button \
type="submit" class="danger">Delete endpoint</button><a href="/portal/webhooks/${endpoint.id}">Cancel</a></form>`
}

/** How a receiver checks a delivery with the secret. */
const howToVerify = html`<h2>Check each delivery</h2>
<p>Every delivery carries the headers <code>webhook-id</code>, <code>webhook-timestamp</code> and \
<code>webhook-signature</code> (the Standard Webhooks scheme): <code>v1,</code> and the base64 HMAC-SHA256 of \
<code>webhook-id.webhook-timestamp.body</code> under this secret. Check it with a Standard Webhooks library before \
trusting a delivery, and refuse old timestamps. The details: docs/integrators/webhooks.md.</p>`

const rotation = (endpoint: Endpoint): Html =>
  endpoint.previousSecretExpiresAt
    ? html`<p>${previousSecretText(endpoint)}: until then each delivery carries a signature with each secret, so \
your receiver may switch over.</p>`
    : html``

/** The page a new secret is shown on, once: `secret` undefined when it was shown before (a reload, a later visit). */
export function secretPage(endpoint: Endpoint, secret: string | undefined): Html {
  const back = html`<p><a href="/portal/webhooks/${endpoint.id}">Go to the endpoint</a></p>`
  if (secret === undefined)
    return html`${notice(
      'info',
      'This secret was shown once and cannot be shown again. If it was not copied, rotate the secret to get a new one.',
    )}
<p>Endpoint ${named(endpoint)}.</p>${rotation(endpoint)}${back}`
  return html`${notice(
    'info',
    'Copy this signing secret now and keep it somewhere safe: it is shown only once. Reloading this page will not ' +
      'show it again.',
  )}
<p>Endpoint ${named(endpoint)}.</p>
<div class="copyable"><p class="copy-label" id="secret-label">Signing secret</p><div class="secret-box"><code \
id="secret" class="secret">${secret}</code><button type="button" class="secondary" data-copy="secret" \
data-status="secret-status" aria-describedby="secret-label" hidden>Copy</button><span id="secret-status" \
role="status"></span></div></div>
${rotation(endpoint)}${howToVerify}${back}`
}
