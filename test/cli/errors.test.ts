// Bad arguments and unknown ids: exit code ≠ 0, one line on stderr, no stack trace, nothing on stdout.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { cliOn, oneLineFailure } from '../helpers/cli.js'

interface Case {
  name: string
  args: string[]
  env?: Record<string, string>
  /** What the one stderr line must name. */
  names: RegExp
}

const cases: Case[] = [
  { name: 'unknown command', args: ['frobnicate'], names: /frobnicate/ },
  { name: 'unknown sub-command', args: ['accounts', 'frobnicate'], names: /frobnicate/ },
  {
    name: 'unknown option',
    args: ['accounts', 'create', '--name', 'A', '--colour', 'red', '--json'],
    names: /--colour/,
  },
  { name: 'missing --name', args: ['accounts', 'create', '--json'], names: /--name/ },
  { name: 'empty --name', args: ['accounts', 'create', '--name', '', '--json'], names: /--name.*white space/ },
  {
    name: 'white-space --name',
    args: ['accounts', 'create', '--name', ' \t ', '--json'],
    names: /--name.*white space/,
  },
  { name: 'bad plan', args: ['accounts', 'create', '--name', 'A', '--plan', 'gold', '--json'], names: /gold/ },
  {
    name: '--per-minute abc',
    args: [
      'accounts',
      'create',
      '--name',
      'A',
      '--plan',
      'enterprise',
      '--per-minute',
      'abc',
      '--per-day',
      '9',
      '--json',
    ],
    names: /--per-minute/,
  },
  {
    name: '--per-day 0',
    args: [
      'accounts',
      'create',
      '--name',
      'A',
      '--plan',
      'enterprise',
      '--per-minute',
      '9',
      '--per-day',
      '0',
      '--json',
    ],
    names: /--per-day/,
  },
  {
    name: 'set-plan of an unknown account',
    args: ['accounts', 'set-plan', 'acct_nobody', 'pro', '--json'],
    names: /acct_nobody/,
  },
  { name: 'set-plan without a plan', args: ['accounts', 'set-plan', 'acct_nobody'], names: /plan/ },
  { name: 'keys create without --account', args: ['keys', 'create', '--json'], names: /--account/ },
  {
    name: 'keys create for an unknown account',
    args: ['keys', 'create', '--account', 'acct_nobody', '--json'],
    names: /acct_nobody/,
  },
  {
    name: 'keys list for an unknown account',
    args: ['keys', 'list', '--account', 'acct_nobody', '--json'],
    names: /acct_nobody/,
  },
  { name: 'revoke of an unknown key', args: ['keys', 'revoke', 'key_nobody', '--json'], names: /key_nobody/ },
  {
    name: 'bad PETSTORE_ENV',
    args: ['accounts', 'list', '--json'],
    env: { PETSTORE_ENV: 'prod' },
    names: /PETSTORE_ENV/,
  },
  { name: 'bad PETSTORE_ENV for migrate', args: ['migrate'], env: { PETSTORE_ENV: 'live' }, names: /PETSTORE_ENV/ },
  {
    name: 'a DATABASE_URL we do not speak',
    args: ['accounts', 'list', '--json'],
    env: { DATABASE_URL: 'mysql://db.example/petstore' },
    names: /DATABASE_URL/,
  },
]

for (const c of cases) {
  test(`CLI: ${c.name} → one line on stderr, exit ≠ 0, nothing on stdout`, async (t) => {
    const cli = cliOn(t)
    const line = oneLineFailure(await cli.run(c.args, c.env))
    assert.match(line, c.names)
  })
}

test('CLI: an unknown plan for an existing account is refused and leaves the plan as it was', async (t) => {
  const cli = cliOn(t)
  const { id } = await cli.json(['accounts', 'create', '--name', 'Steady', '--plan', 'pro'])
  assert.match(oneLineFailure(await cli.run(['accounts', 'set-plan', id, 'platinum', '--json'])), /platinum/)
  const { accounts } = await cli.json(['accounts', 'list'])
  assert.equal(accounts[0].plan, 'pro')
})
