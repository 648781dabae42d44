// A key's scopes in a table cell (issue 26), the same in the portal's keys table and the console's account page:
// "All" for a key that may do everything, else the scopes; `control`: what the page offers under them (the portal's
// link to narrow them: in the cell, not among the row's buttons, so the table keeps to the page's width).
import type { ApiKeyInfo } from '../../modules/accounts/accounts.repository.js'
import { hasAllScopes } from '../../modules/accounts/key-scopes.js'
import { html, type Html } from './html.js'

export const scopesCell = (key: Pick<ApiKeyInfo, 'scopes'>, control: Html | '' = ''): Html =>
  html`<td data-label="Permissions">\
${hasAllScopes(key.scopes) ? 'All' : html`${key.scopes.map((s, i) => html`${i > 0 ? ', ' : ''}<code>${s}</code>`)}`}\
${control}</td>`
