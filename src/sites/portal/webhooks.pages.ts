// /portal/webhooks: the account's endpoints (where, what, whether they are sent events and why not) and the form that
// adds one; the same form edits an endpoint on its own page (webhook-endpoint.pages.ts). What a form was sent with
// is kept when it is refused, and the refusal is shown next to its field. A member whose role may not change
// endpoints (a viewer) sees them, without the form.
import type { Endpoint } from '../../modules/webhooks/endpoint.js'
import { EVENT_TYPE_NAMES, EVENT_TYPES } from '../../modules/webhooks/event-types.js'
import { html, type Html } from '../kit/html.js'
import { when } from '../kit/when.js'
import { csrfField, notice } from './layout.js'

/** What an endpoint form holds: as sent, or as the endpoint is. `all`: every event type (those added later too). */
export interface EndpointInput {
  url: string
  description: string
  all: boolean
  types: readonly string[]
}

/** Why a form was refused: by field (shown next to it), or the whole form. */
export type FormErrors = Partial<Record<'url' | 'description' | 'eventTypes' | 'form', string>>

const emptyInput: EndpointInput = { url: '', description: '', all: true, types: [] }

export const inputOf = (endpoint: Endpoint): EndpointInput => ({
  url: endpoint.url,
  description: endpoint.description,
  all: endpoint.eventTypes.includes('*'),
  types: endpoint.eventTypes.filter((t) => t !== '*'),
})

/** The catalogue's sentences mark code with backticks. */
const described = (text: string): Html[] =>
  text.split('`').map((part, i) => (i % 2 === 1 ? html`<code>${part}</code>` : html`${part}`))

/** Whether an endpoint is sent events, and if not why, in words. `disableAfter`: e.g. "5 days". */
export function stateText(endpoint: Endpoint, disableAfter: string): string {
  if (endpoint.enabled) return 'Enabled'
  switch (endpoint.disabledReason) {
    case 'gone':
      return 'Disabled: the endpoint answered 410 Gone, which asks us to stop'
    case 'failing':
      return `Disabled: every delivery failed for ${disableAfter}`
    case 'operator':
      return 'Disabled by the operator of this service'
    default:
      return 'Disabled by you'
  }
}

export const eventsText = (endpoint: Endpoint): Html =>
  endpoint.eventTypes.includes('*')
    ? html`All events`
    : html`${endpoint.eventTypes.map((t, i) => html`${i > 0 ? ', ' : ''}<code>${t}</code>`)}`

/** The rotation in progress, if any: until when the secret before it still signs. */
export const previousSecretText = (endpoint: Endpoint): string | undefined =>
  endpoint.previousSecretExpiresAt && `Previous secret valid until ${when(endpoint.previousSecretExpiresAt)}`

/** A field's refusal, next to it: announced when the page loads, and named by the field (aria-describedby). */
const fieldError = (id: string, message: string | undefined): Html =>
  message ? html`<div class="notice notice-error" role="alert" id="${id}-error">${message}</div>` : html``

const describedBy = (ids: (string | false)[]) => ids.filter(Boolean).join(' ')

function eventsGroup(input: EndpointInput, error: string | undefined): Html {
  const radio = (value: 'all' | 'chosen', checked: boolean, label: Html, hint: string) =>
    html`<label class="check"><input type="radio" name="events" value="${value}"${checked ? html` checked` : ''} \
aria-describedby="events-${value}-hint"> ${label} <span class="hint" id="events-${value}-hint">${hint}</span></label>`
  const boxes = EVENT_TYPE_NAMES.map(
    (type) =>
      html`<label class="check"><input type="checkbox" name="eventTypes" value="${type}"${
        input.types.includes(type) ? html` checked` : ''
      } aria-describedby="hint-${type.replace('.', '-')}"> <code>${type}</code> <span class="hint" \
id="hint-${type.replace('.', '-')}">${described(EVENT_TYPES[type])}</span></label>`,
  )
  return html`<fieldset class="permissions"${error ? html` aria-describedby="eventTypes-error"` : ''}>\
<legend>Events to send</legend>${fieldError('eventTypes', error)}
${radio('all', input.all, html`All events`, 'Every type, those added later too.')}
${radio('chosen', !input.all, html`Only the types ticked below`, 'The boxes count only with this choice.')}
${boxes}</fieldset>`
}

/** The form that adds an endpoint (`action` /portal/webhooks) or changes one (its page). */
export function endpointForm(input: {
  csrf: string
  action: string
  submit: string
  values: EndpointInput
  errors?: FormErrors
  cancel?: string
}): Html {
  const { values, errors = {} } = input
  const invalid = (field: 'url' | 'description') => (errors[field] ? html` aria-invalid="true"` : '')
  return html`${notice('error', errors.form)}
<form method="post" action="${input.action}" class="stacked">${csrfField(input.csrf)}
<div><label for="url">URL</label><span class="hint" id="url-hint">Where we POST each event: an <code>https://</code> \
address your server answers with a 2xx.</span>${fieldError('url', errors.url)}
<input id="url" name="url" type="text" inputmode="url" autocomplete="url" spellcheck="false" required \
maxlength="2048" value="${values.url}" aria-describedby="${describedBy(['url-hint', !!errors.url && 'url-error'])}"\
${invalid('url')}></div>
<div><label for="description">Description (optional)</label><span class="hint" id="description-hint">For you to \
recognise it, e.g. "orders service".</span>${fieldError('description', errors.description)}
<input id="description" name="description" type="text" maxlength="200" value="${values.description}" \
aria-describedby="${describedBy(['description-hint', !!errors.description && 'description-error'])}"\
${invalid('description')}></div>
${eventsGroup(values, errors.eventTypes)}
<div class="row-actions"><button type="submit">${input.submit}</button>${
    input.cancel ? html`<a href="${input.cancel}">Cancel</a>` : ''
  }</div>
</form>`
}

/** What a member who may not change endpoints reads where the form and the buttons would be. */
export const READ_ONLY_ENDPOINTS =
  'Your role in this account lets you see its endpoints and their deliveries. A developer, admin or owner adds, ' +
  'changes and deletes them, and sends events again.'

function endpointsTable(endpoints: Endpoint[], disableAfter: string): Html {
  if (endpoints.length === 0) return html`<p class="muted">No endpoints yet.</p>`
  const rows = endpoints.map((e) => {
    const previous = previousSecretText(e)
    const state = html`<span class="${e.enabled ? 'state-active' : 'state-suspended'}">${stateText(e, disableAfter)}\
</span>${previous ? html`<br><span class="muted">${previous}</span>` : ''}`
    return html`<tr><th scope="row" class="key-name"><a href="/portal/webhooks/${e.id}">${e.url}</a></th>\
<td data-label="Description">${e.description || html`<span class="muted">—</span>`}</td>
<td data-label="Events">${eventsText(e)}</td><td data-label="State">${state}</td></tr>`
  })
  return html`<table class="cards webhooks"><thead><tr><th scope="col">URL</th><th scope="col">Description</th>\
<th scope="col">Events</th><th scope="col">State</th></tr></thead>
<tbody>${rows}</tbody></table>`
}

export function webhooksPage(input: {
  csrf: string
  endpoints: Endpoint[]
  maxEndpoints: number
  disableAfter: string
  deleted: boolean
  values?: EndpointInput
  errors?: FormErrors
  /** The member's role may add and change endpoints (developer and above). */
  manage: boolean
}): Html {
  const full = input.endpoints.length >= input.maxEndpoints
  const add = !input.manage
    ? html`<p class="muted">${READ_ONLY_ENDPOINTS}</p>`
    : full
      ? notice(
          'info',
          `You have ${input.endpoints.length} endpoints, as many as an account may have. To add another, delete one ` +
            'you no longer use: open it, then press Delete endpoint.',
        )
      : endpointForm({
          csrf: input.csrf,
          action: '/portal/webhooks',
          submit: 'Add endpoint',
          values: input.values ?? emptyInput,
          errors: input.errors,
        })
  return html`${input.deleted ? notice('success', 'The endpoint was deleted: nothing more is sent to it.') : ''}
<p>We send your endpoints an HTTP POST for each event of your account they subscribe to (a pet added, an order \
placed, …), signed with the endpoint's secret: check the <code>webhook-signature</code> header (Standard Webhooks) \
before trusting one. How: docs/integrators/webhooks.md.</p>
<h2>Your endpoints</h2>${endpointsTable(input.endpoints, input.disableAfter)}
${input.manage ? html`<h2>Add an endpoint</h2>` : ''}${add}`
}
