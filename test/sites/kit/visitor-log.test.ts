// The request log names a signed-in visitor by id: the console's lines carry the operator's id, the portal's the
// user's, so that what one person did can be searched for in the log; an anonymous page's line carries neither.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { consoleHarness, signedInOperator } from '../../helpers/console.js'
import { signedUpUser } from '../../helpers/portal.js'

interface Line {
  msg: string
  path?: string
  status?: number
  operatorId?: string
  portalUserId?: string
}

test('console and portal request lines carry the signed-in operator or user id; anonymous ones none', async (t) => {
  const lines: Line[] = []
  const h = await consoleHarness(t, {
    logger: { level: 'info', stream: { write: (line: string) => void lines.push(JSON.parse(line) as Line) } },
  })
  const requestLine = (path: string) => lines.findLast((l) => l.msg === 'request' && l.path === path)

  const operator = await signedInOperator(h, { role: 'support' })
  assert.equal((await operator.get('/console/audit')).statusCode, 200)
  assert.equal(requestLine('/console/audit')?.operatorId, operator.operator.id)
  assert.equal(requestLine('/console/audit')?.portalUserId, undefined)

  const user = await signedUpUser(h, 'someone@example.com')
  assert.equal((await user.get('/portal/account')).statusCode, 200)
  const portalLine = requestLine('/portal/account')
  const row = await h.handle.db
    .selectFrom('portal_users')
    .select('id')
    .where('email', '=', 'someone@example.com')
    .executeTakeFirstOrThrow()
  assert.equal(portalLine?.portalUserId, row.id)
  assert.equal(portalLine?.operatorId, undefined)

  const anonymous = await h.app.inject({ url: '/console/login' })
  assert.equal(anonymous.statusCode, 200)
  const line = requestLine('/console/login')
  assert.ok(line && line.operatorId === undefined && line.portalUserId === undefined, JSON.stringify(line))
})
