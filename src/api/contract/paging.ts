// Keyset paging, shared by every list operation: the `limit`/`status`/`cursor` query, where a page starts (the
// signed cursor of http/cursor.ts) and the `Link: <…>; rel="next"` header (RFC 8288) that leads to the next one.
import type { FastifyReply, FastifyRequest } from 'fastify'
import { Type, type TSchema } from 'typebox'
import { requestText } from './schemas.js'
import type { CursorCodec } from './cursor.js'

const PAGE_SIZE_DEFAULT = 20
const PAGE_SIZE_MAX = 100

/** `limit` 1–100 (default 20) and the `cursor`: what every list operation's query has. */
export function pagingParameters(items: string, filter: string | null = 'status') {
  return {
    limit: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: PAGE_SIZE_MAX,
        default: PAGE_SIZE_DEFAULT,
        description: `Maximum number of ${items} to return.`,
      }),
    ),
    cursor: Type.Optional(
      requestText(
        'Opaque position from the `Link: rel="next"` header of the previous page.' +
          (filter === null ? '' : ` Keep \`${filter}\` the same while paging.`),
        { minLength: 1, maxLength: 512 },
      ),
    ),
  }
}

/** The query of a list operation: `limit`, a `status` filter and the `cursor`; nothing else. */
export function listQuery<S extends TSchema>({ status, items }: { status: S; items: string }) {
  const { limit, cursor } = pagingParameters(items)
  return Type.Object({ limit, status: Type.Optional(status), cursor }, { additionalProperties: false })
}

/**
 * A list operation: its path, the name its cursors are signed with (none for the pets: see cursor.ts), and the
 * name of its filter in the query (default `status`).
 */
interface ListRoute {
  path: string
  list?: string
  filter?: string
}

interface PageQuery<S extends string> {
  limit?: number
  status?: S
  cursor?: string
}

/** The account, the page size and the id the page starts after (from the cursor; a bad cursor is a 400). */
export function pageStart<S extends string>(
  cursors: CursorCodec,
  request: FastifyRequest,
  route: ListRoute,
  query: PageQuery<S>,
) {
  const accountId = request.auth!.accountId
  const afterId =
    query.cursor === undefined
      ? undefined
      : cursors.decode(accountId, query.cursor, query.status, route.list, route.filter).lastId
  return { accountId, status: query.status, limit: query.limit ?? PAGE_SIZE_DEFAULT, afterId }
}

/** When another page follows, links to it: same path, `limit` and `status`, a cursor after the page's last id. */
export function linkNextPage(
  { cursors, config }: { cursors: CursorCodec; config: { publicUrl: string } },
  request: FastifyRequest,
  reply: FastifyReply,
  { path, list, filter: filterName = 'status' }: ListRoute,
  { limit, status }: { limit: number; status?: string },
  page: { hasMore: boolean; lastId?: bigint },
): void {
  if (!page.hasMore || page.lastId === undefined) return
  // Nothing here needs percent-encoding: an integer, a status or type name and a base64url cursor.
  const filter = status ? `&${filterName}=${status}` : ''
  const cursor = cursors.encode(request.auth!.accountId, { lastId: page.lastId, status }, list)
  reply.header('link', `<${config.publicUrl}${path}?limit=${limit}${filter}&cursor=${cursor}>; rel="next"`)
}
