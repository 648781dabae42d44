// Reference of the budget: "a plain Fastify route with a response schema" (0.45 of the bare baseline
// on the machine). One route, no hooks, no logger, no database per request: the account's first page of
// pets, read once at start, serialized by the route's response schema on every request.
import Database from 'better-sqlite3'
import Fastify from 'fastify'
import { seededAccountId } from './seeded-account.js'

const db = new Database(process.env.REFERENCE_DATABASE!, { readonly: true })
const accountId = seededAccountId(db, process.env.REFERENCE_KEY!)
const rows = db
  .prepare('SELECT id, name, category_id AS categoryId, status FROM pets WHERE account_id = ? ORDER BY id LIMIT 20')
  .all(accountId) as Record<string, unknown>[]
const pets = rows.map(({ status, ...pet }) => (status === null ? pet : { ...pet, status }))
db.close()
const Pet = {
  type: 'object',
  required: ['id', 'name', 'categoryId'],
  properties: {
    id: { type: 'integer' },
    name: { type: 'string' },
    categoryId: { type: 'integer' },
    status: { type: 'string' },
  },
}

const app = Fastify({ logger: false, keepAliveTimeout: 72_000 })
app.get(
  '/v1/pets',
  {
    schema: {
      querystring: { type: 'object', properties: { limit: { type: 'integer' } } },
      response: { 200: { type: 'array', items: Pet } },
    },
  },
  async () => pets,
)
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' })
process.stdout.write('listening\n')
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)))
