// What a key may do, on the portal's pages (issue 26): the `Permissions` group of the create form (a checkbox per
// scope, all checked unless the visitor chose otherwise, and a "Read-only" shortcut that is a submit button of its
// own, so it works without JavaScript) and the page that narrows a key's scopes (the table's cell: web/scopes-cell.ts).
import type { ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { READ_ONLY_SCOPES, SCOPES, type Scope } from '../../modules/accounts/key-scopes.js'
import { html, type Html } from '../kit/html.js'
import { csrfField, notice } from './layout.js'

/** What each scope lets a key do, in the words of the form. */
const SCOPE_HINTS: Record<Scope, string> = {
  'pets:read': 'list and read pets',
  'pets:write': 'add pets',
  'orders:read': 'list and read store orders',
  'orders:write': 'place and cancel store orders',
  'messages:write': 'send messages and read the ones sent',
  'webhooks:read': 'list webhook endpoints and events',
  'webhooks:write': 'add, change and delete webhook endpoints',
}

/** The submit button's value that creates a read-only key whatever boxes are ticked. */
const READ_ONLY_PRESET = 'read-only'

/**
 * The scopes a form sent: the checkboxes' values (one field, repeated), or the read-only preset. Undefined when
 * the form had no Permissions group (no choice made: every scope). The group always sends an empty `scopes` of
 * its own, so a form whose boxes were all unticked is told apart from one without boxes: it gives `[]`.
 */
export function chosenScopes(body: { scopes?: string | string[]; preset?: string }): string[] | undefined {
  if (body.preset === READ_ONLY_PRESET) return [...READ_ONLY_SCOPES]
  if (body.scopes === undefined) return undefined
  return (typeof body.scopes === 'string' ? [body.scopes] : body.scopes).filter((s) => s !== '')
}

function checkboxes(offered: readonly Scope[], checked: readonly string[]): Html {
  return html`<input type="hidden" name="scopes" value="">${offered.map(
    (scope) =>
      html`<label class="check"><input type="checkbox" name="scopes" value="${scope}"${
        checked.includes(scope)
          ? html` \
checked`
          : ''
      } aria-describedby="hint-${scope.replace(':', '-')}"> <code>${scope}</code> <span class="hint" \
id="hint-${scope.replace(':', '-')}">${SCOPE_HINTS[scope]}</span></label>`,
  )}`
}

/** The create form's group; `checked`: the boxes ticked (every scope when the form is new). */
export function permissionsGroup(checked: readonly string[] = SCOPES): Html {
  return html`<fieldset class="permissions"><legend>Permissions</legend>
<span class="hint">What the key may do. Leave them all for a key that can do everything your account can; a key's \
permissions can be narrowed later, never widened.</span>
${checkboxes(SCOPES, checked)}</fieldset>`
}

/** The create form's buttons: Create (the boxes as ticked) and the read-only shortcut. */
export const createButtons = html`<button type="submit">Create</button><button type="submit" class="secondary" \
name="preset" value="${READ_ONLY_PRESET}">Create read-only key</button>`

/**
 * The table's way to the narrowing page, under the key's scopes: for an active key with more than one scope (one is
 * as narrow as it gets). A link: the page it opens changes nothing until its form is sent.
 */
export const narrowLink = (key: ApiKeyInfo): Html | '' =>
  key.state === 'active' && key.scopes.length > 1
    ? html`<br><a href="/portal/keys/${key.id}/restrict" class="narrow" aria-describedby="name-${key.id}">Narrow</a>`
    : ''

/** The page that narrows a key: a box per scope it has (ticked), unticking removes it. */
export function restrictForm(
  csrf: string,
  key: ApiKeyInfo & { displayName: string },
  input: { checked?: readonly string[]; error?: string } = {},
): Html {
  return html`${notice('error', input.error)}<p>Choose what <strong class="key-name">${key.displayName}</strong> \
(<code>${key.prefix}…</code>) may keep doing. Untick a permission to take it away: the next request with the key is \
judged by the new set. Permissions cannot be added back; for more, create a new key.</p>
<form method="post" action="/portal/keys/${key.id}/restrict" class="stacked">${csrfField(csrf)}
<fieldset class="permissions">\
<legend>Permissions</legend>${checkboxes(key.scopes, input.checked ?? key.scopes)}</fieldset>
<div class="row-actions"><button type="submit">Save permissions</button><a href="/portal/keys">Cancel</a></div></form>`
}
