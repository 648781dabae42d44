// `petstore accounts list` shows the address of accounts made by the portal's sign-up.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createAccountsRepository } from '../../../src/modules/accounts/accounts.repository.js'
import { systemClock } from '../../../src/kernel/clock.js'
import { openDatabase } from '../../../src/db/database.js'
import { migrateToLatest } from '../../../src/db/migrate.js'
import { createPortalRepository } from '../../../src/modules/integrators/integrators.repository.js'
import { cliOn } from '../../helpers/cli.js'
import { removeOwnersOf } from '../../../src/modules/integrators/account-owners.js'

test('accounts list shows the email of portal accounts, in JSON and in the plain form', async (t) => {
  const cli = cliOn(t)
  const operatorMade = await cli.json<{ id: string }>(['accounts', 'create', '--name', 'Shelter'])
  const handle = openDatabase(cli.file)
  await migrateToLatest(handle.db)
  const accounts = createAccountsRepository({ db: handle.db, clock: systemClock, removeWithAccount: removeOwnersOf })
  const user = await createPortalRepository({ db: handle.db, clock: systemClock, accounts }).createUser({
    email: 'Dev@Example.com',
    passwordHash: 'scrypt$x',
  })
  await handle.close()

  const { accounts: list } = await cli.json<{ accounts: { id: string; email?: string }[] }>(['accounts', 'list'])
  assert.equal(list.find((a) => a.id === user!.account_id)?.email, 'Dev@Example.com')
  assert.equal(list.find((a) => a.id === operatorMade.id)?.email, undefined)
  const plain = await cli.run(['accounts', 'list'])
  assert.match(plain.stdout, new RegExp(`^${user!.account_id} .* portal Dev@Example\\.com$`, 'm'))
})
