// Reference of the issue's budget: "a naive Fastify prototype with a bearer check, an in-memory counter and a
// better-sqlite3 read of 20 rows" (0.21 of the bare baseline on the issue's machine). What it leaves out is what
// the service adds: a key looked up in the database on every request (revocations apply at once), limits over
// two windows with their headers, the request log, metrics, a signed cursor and Link header, request ids,
// validation and the one error shape.
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { seededAccountId } from './seeded-account.js'

const db = new Database(process.env.REFERENCE_DATABASE!, { readonly: true })
const key = process.env.REFERENCE_KEY!
const accountId = seededAccountId(db, key)
const page = db.prepare(
  'SELECT id, name, category_id AS categoryId, status FROM pets WHERE account_id = ? ORDER BY id LIMIT ?',
)
const counts = new Map<string, number>()

const app = Fastify({ logger: false, keepAliveTimeout: 72_000 })
app.get<{ Querystring: { limit?: string } }>('/v1/pets', async (request, reply) => {
  if (request.headers.authorization !== `Bearer ${key}`)
    return reply.code(401).send({ code: 401, message: 'unauthorized' })
  counts.set(key, (counts.get(key) ?? 0) + 1)
  return page.all(accountId, Number(request.query.limit ?? 20))
})
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.stdout.write('listening\n')
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
