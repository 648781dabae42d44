// The page a new key (created or rolled) redirects to: its secret once, with a ready-to-copy call of the API and
// the SDK's first lines; opened again, it says the secret was shown once and shows only what the table shows.
import type { ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { endsAt, shownState } from '../../modules/accounts/key-display.js'
import { html, type Html } from '../kit/html.js'
import { notice } from './layout.js'
import { keyName, when } from './keys.pages.js'

/** Text with a Copy button (the button appears only where portal.js runs): the secret in its box, or a snippet. */
function copyable(id: string, label: string, text: string, kind: 'secret' | 'snippet'): Html {
  const button = html`<button type="button" class="secondary" data-copy="${id}" data-status="${id}-status" \
aria-describedby="${id}-label" hidden>${kind === 'secret' ? 'Copy' : 'Copy snippet'}</button><span id="${id}-status" \
role="status"></span>`
  const body =
    kind === 'secret'
      ? html`<div class="secret-box"><code id="${id}" class="secret">${text}</code>${button}</div>`
      : html`<pre id="${id}" class="snippet">${text}</pre>${button}`
  return html`<div class="copyable"><p class="copy-label" id="${id}-label">${label}</p>${body}</div>`
}

/** What happened to the key this one replaced (when it came from a roll). */
function previousKey(previous: ApiKeyInfo | undefined): Html {
  if (!previous) return html``
  return shownState(previous) === 'rolled'
    ? html`<p>The old key <code>${previous.prefix}…</code> keeps working until ${when(endsAt(previous))}.</p>`
    : html`<p>The old key <code>${previous.prefix}…</code> no longer works.</p>`
}

const keyLine = (key: ApiKeyInfo) =>
  html`<p>Key <strong class="key-name">${keyName(key)}</strong> (<code>${key.prefix}…</code>)${
    key.expiresAt
      ? html`, \
expires ${when(key.expiresAt)}`
      : ''
  }.</p>`

/** `origin`: the API's public origin (PETSTORE_PUBLIC_URL), never one taken from the request. */
export function secretShown(input: { key: ApiKeyInfo; secret: string; previous?: ApiKeyInfo; origin: string }): Html {
  const { key, secret, origin } = input
  const curl = `curl -H "Authorization: Bearer ${secret}" ${origin}/v1/pets`
  const sdk = `import { Petstore } from '@petstore/sdk'

const ps = new Petstore({ apiKey: '${secret}', baseUrl: '${origin}/v1' })
const page = await ps.pets.listPage({ limit: 10 })
console.log(page.data)`
  return html`${notice(
    'info',
    'Copy this key now and keep it somewhere safe: it is shown only once. Reloading this ' +
      'page will not show it again.',
  )}
${keyLine(key)}${copyable('secret', 'Secret', secret, 'secret')}${previousKey(input.previous)}
<h2>Try it</h2>
${copyable('curl', 'List the pets with curl:', curl, 'snippet')}
${copyable('sdk', 'Or with the TypeScript SDK (@petstore/sdk):', sdk, 'snippet')}
<p class="muted">In your own code, read the key from the environment (the SDK reads <code>PETSTORE_API_KEY</code>) \
rather than writing it down. See <a href="/docs">the API reference</a>.</p>
<p><a href="/portal/keys">Back to your keys</a></p>`
}

/**
 * The same page once the secret was shown (a reload, a later visit, another browser). `manage`: the member's role
 * may roll and create keys (else whom to ask).
 */
export function secretGone(input: { key: ApiKeyInfo; previous?: ApiKeyInfo; manage: boolean }): Html {
  return html`${notice(
    'info',
    input.manage
      ? 'This secret was shown once and cannot be shown again. If it was not copied, roll the ' +
          'key (a new secret, same name) or create another one.'
      : 'This secret was shown once and cannot be shown again. If it was not copied, a developer, admin or owner ' +
          'of the account can roll the key (a new secret, same name).',
  )}
${keyLine(input.key)}${previousKey(input.previous)}<p><a href="/portal/keys">Back to your keys</a></p>`
}
