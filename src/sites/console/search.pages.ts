// The search page's content: the `Search` field (posted, so that a pasted secret never lands in a URL, a browser's
// history or a proxy's log) and the results, each saying why it matched. A secret-like input is shown back only
// as its listed prefix, and the field is left empty rather than holding it.
import { html, type Html } from '../kit/html.js'
import { csrfField, notice } from '../kit/layout.js'
import { isSecretLike, MAX_RESULTS, shownQuery, type SearchResult } from './search.repository.js'

interface SearchView {
  csrf: string
  /** The input as received ('' before any search). */
  q: string
  results: SearchResult[]
  more: boolean
  /** Whether to offer New account (an admin, where the console can make accounts: invitations.routes.ts). */
  newAccount: boolean
}

const accountLink = (id: string) => `/console/accounts/${encodeURIComponent(id)}`

function searchForm(csrf: string, q: string): Html {
  const value = isSecretLike(q.trim()) ? '' : q
  return html`<form method="post" action="/console/accounts" class="stacked search-form" \
role="search">${csrfField(csrf)}
<label for="q">Search</label>
<p class="hint" id="q-hint">An email address or part of it (an owner's or any member's), an account name or part of \
it, an account id, a key id, a key's prefix as it appears in a log (ps_live_AbCd), or a whole secret (found through \
its hash; it is not kept).</p>
<input type="text" id="q" name="q" value="${value}" aria-describedby="q-hint" autocomplete="off" spellcheck="false" \
maxlength="400">
<button type="submit">Search</button></form>`
}

function resultsTable(view: SearchView, shown: string): Html {
  const count = view.results.length
  const matching = view.more
    ? `The first ${MAX_RESULTS} accounts matching`
    : `${count} ${count === 1 ? 'account matches' : 'accounts match'}`
  return html`<div class="table-scroll" role="region" aria-labelledby="results-caption" tabindex="0"><table \
class="search-results"><caption id="results-caption">${matching} “${shown}”</caption>
<thead><tr><th scope="col">Account</th><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Plan</th><th \
scope="col">State</th><th scope="col">Created</th><th scope="col">Matched by</th></tr></thead>
<tbody>${view.results.map(
    (r) => html`<tr><th scope="row"><a href="${accountLink(r.id)}">${r.id}</a></th><td>${r.name}</td>\
<td>${r.email ?? html`<span class="muted">none</span>`}</td><td>${r.plan}</td>
<td><span class="state-${r.state}">${r.state}</span></td><td \
class="when">${r.createdAt.slice(0, 16).replace('T', ' ')} UTC</td><td>${r.reasons.join('; ')}</td></tr>`,
  )}</tbody></table></div>${
    view.more
      ? html`<p class="muted">There are more matches: type more of what you are \
looking for.</p>`
      : ''
  }`
}

export function searchContent(view: SearchView): Html {
  const q = view.q.trim()
  const shown = shownQuery(q)
  let outcome: Html
  if (q === '')
    outcome = html`<p class="muted">Type what you have in the Search field: an address, a name, an id, a key's prefix \
or a secret.</p>`
  else if (view.results.length === 0) outcome = notice('info', html`No account matches “${shown}”.`)
  else outcome = resultsTable(view, shown)
  const make = view.newAccount
    ? html`<p class="row-actions"><a class="button secondary" href="/console/accounts/new">New account</a></p>`
    : ''
  return html`${make}${searchForm(view.csrf, view.q)}
<div aria-live="polite">${outcome}</div>`
}
