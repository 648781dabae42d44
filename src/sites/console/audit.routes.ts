// /console/audit: the audit log, filtered (account, actor, action, UTC dates), newest first, a page at a time
// (`before`: the seq of the last entry shown); /console/audit.csv: every entry matching the same filters as CSV.
// Any signed-in operator may read both. A filter that cannot be used gets a 400 page saying which (audit-filter.ts).
import { Readable } from 'node:stream'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type, type Static } from 'typebox'
import { pageQuery, pageResponses } from '../kit/page-schemas.js'
import { PageError, sendPage } from '../kit/reply.js'
import { auditCsv, CSV_BATCH } from './audit-csv.js'
import { auditQueryValues, parseAuditQuery, type ParsedAuditQuery } from './audit-filter.js'
import { auditContent } from './audit.pages.js'
import type { OperatorConsole } from './console.context.js'
import { consolePage } from './layout.js'

/** Entries per page. */
const AUDIT_PAGE_SIZE = 50

const text = () => Type.Optional(Type.String())
const AuditQuery = pageQuery({
  account: text(),
  actor: text(),
  action: text(),
  from: text(),
  to: text(),
  before: text(),
})

export async function auditRoutes(app: FastifyInstance, c: OperatorConsole): Promise<void> {
  const r = app.withTypeProvider<TypeBoxTypeProvider>()

  /** The filters checked; an unusable one answers 400 with the page's form as typed and what is wrong above it. */
  function filtersOr400(
    request: FastifyRequest,
    reply: FastifyReply,
    query: Static<typeof AuditQuery>,
  ): ParsedAuditQuery | undefined {
    try {
      return parseAuditQuery(query)
    } catch (error) {
      if (!(error instanceof PageError)) throw error
      const content = auditContent({ values: auditQueryValues(query), events: [], paged: false, error: error.message })
      sendPage(reply, 400, consolePage(c.context(request, reply), 'Audit log', content))
      return undefined
    }
  }

  r.get(
    '/audit',
    {
      schema: {
        hide: true,
        querystring: AuditQuery,
        response: pageResponses({ 200: 'Audit log entries, newest first' }),
      },
    },
    async (request, reply) => {
      c.require(request, 'support')
      const parsed = filtersOr400(request, reply, request.query)
      if (parsed === undefined) return reply
      const { values, filter, before } = parsed
      // One more than shown: whether there is a next page.
      const found = await c.audit.list({ ...filter, beforeSeq: before, limit: AUDIT_PAGE_SIZE + 1 })
      const events = found.slice(0, AUDIT_PAGE_SIZE)
      const nextBefore = found.length > AUDIT_PAGE_SIZE ? events.at(-1)!.seq : undefined
      return sendPage(
        reply,
        200,
        consolePage(
          c.context(request, reply),
          'Audit log',
          auditContent({ values, events, nextBefore, paged: before !== undefined }),
        ),
      )
    },
  )

  r.get(
    '/audit.csv',
    {
      schema: {
        hide: true,
        querystring: AuditQuery,
        response: { 200: Type.String({ description: 'Every matching entry (text/csv)' }), ...pageResponses({}) },
      },
    },
    async (request, reply) => {
      c.require(request, 'support')
      // The export is of everything matching: a page's cursor does not apply.
      const parsed = filtersOr400(request, reply, { ...request.query, before: undefined })
      if (parsed === undefined) return reply
      const { filter } = parsed
      const first = await c.audit.list({ ...filter, limit: CSV_BATCH })
      const day = new Date(c.clock.now()).toISOString().slice(0, 10)
      return (
        reply
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', `attachment; filename="petstore-audit-${day}.csv"`)
          // A stream is sent as it is (never serialised); the declared 200 is its description for the schema.
          .send(Readable.from(auditCsv((f) => c.audit.list(f), filter, first)) as unknown as string)
      )
    },
  )
}
