// /console/accounts: find an account (search.repository.ts). The page's form posts (CSRF-checked) so that a pasted
// secret never lands in a URL, a browser's history, a Referer or a proxy's access log; GET ?q= is answered too
// (links, bookmarks). The request log never has the query string or the body (http/request-log.ts).
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { formBody, pageQuery, pageResponses } from '../kit/page-schemas.js'
import { PageError, redirect, sendPage } from '../kit/reply.js'
import type { OperatorConsole } from './console.context.js'
import { consolePage, isAdmin } from './layout.js'
import { canMail } from './account-lookups.js'
import { searchContent } from './search.pages.js'
import { createSearchRepository, MAX_QUERY } from './search.repository.js'

const SearchQuery = pageQuery({ q: Type.Optional(Type.String()) })
// Generous: a longer input gets the page's own message, not the generic one for a malformed form.
const SearchBody = formBody({ q: Type.String({ maxLength: 10_000 }) })

export async function searchRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const search = createSearchRepository({ db: c.db, teams: c.teams })
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  async function answer(request: FastifyRequest, reply: FastifyReply, q: string) {
    c.require(request, 'support')
    if (q.trim().length > MAX_QUERY)
      throw new PageError(
        400,
        'Search text too long',
        `Search for at most ${MAX_QUERY} characters: an address, a name, an id, a key's prefix or a secret.`,
      )
    const { results, more } = await search.search(q)
    // One match: its page, saying why it matched in the console's own words (nothing typed goes into the URL).
    const [only] = results
    if (only && results.length === 1 && !more)
      return redirect(reply, `/console/accounts/${encodeURIComponent(only.id)}?found=${only.foundBy.join(',')}`)
    const ctx = c.context(request, reply)
    const newAccount = isAdmin(ctx) && c.invitations !== undefined && canMail(c)
    return sendPage(
      reply,
      200,
      consolePage(ctx, 'Find an account', searchContent({ csrf: ctx.csrf, q, results, more, newAccount })),
    )
  }

  r.get(
    '/accounts',
    {
      schema: {
        hide: true,
        querystring: SearchQuery,
        response: pageResponses({ 200: 'The search form, and the accounts found' }),
      },
    },
    (request, reply) => answer(request, reply, request.query.q ?? ''),
  )
  r.post(
    '/accounts',
    { schema: { hide: true, body: SearchBody, response: pageResponses({ 200: 'The accounts found' }) } },
    (request, reply) => answer(request, reply, request.body.q),
  )
}
