// Exit codes of every command: 2 and one line on stderr for a usage error (an unknown option, a bad value, a
// missing or extra argument), caught before the database is touched; 1 for a failure at run time; 0 for help.
import assert from 'node:assert/strict'
import { existsSync, statSync } from 'node:fs'
import { describe, test } from 'node:test'
import type { Command } from 'commander'
import { buildProgram } from '../../src/main/program.js'
import { cliOn, oneLineFailure, runCli, type CliResult } from '../helpers/cli.js'

interface Case {
  /** The command, as typed. */
  command: string
  /** Arguments that make it a valid command line, to which the unknown option is added. */
  valid: string[]
  /** A bad value (or a missing / extra argument), and what the error line must name. */
  bad: string[]
  names: RegExp
}

const cases: Case[] = [
  { command: 'serve', valid: [], bad: ['--only', 'both'], names: /--only.*both/ },
  { command: 'migrate', valid: [], bad: ['now'], names: /too many arguments/ },
  { command: 'migrate status', valid: [], bad: ['everything'], names: /too many arguments/ },
  { command: 'backup', valid: ['copy.db'], bad: [], names: /missing required argument 'file'/ },
  {
    command: 'accounts create',
    valid: ['--name', 'A'],
    bad: ['--name', 'A', '--per-day', '0'],
    names: /--per-day.*'0'/,
  },
  { command: 'accounts list', valid: [], bad: ['--json', 'all'], names: /too many arguments/ },
  { command: 'accounts set-plan', valid: ['acct_x', 'pro'], bad: ['acct_x', 'gold'], names: /gold/ },
  { command: 'accounts usage', valid: ['acct_x'], bad: ['acct_x', '--url', 'localhost:3000'], names: /--url/ },
  {
    command: 'keys create',
    valid: ['--account', 'acct_x'],
    bad: ['--account', 'acct_x', '--expires', 'tomorrow'],
    names: /--expires.*tomorrow/,
  },
  { command: 'keys list', valid: ['--account', 'acct_x'], bad: [], names: /--account/ },
  {
    command: 'keys roll',
    valid: ['key_x', '--grace', '60'],
    bad: ['key_x', '--grace', '604801'],
    names: /--grace.*604801/,
  },
  {
    command: 'keys set-expiry',
    valid: ['key_x', '--expires', 'never'],
    bad: ['key_x', '--expires', '2001-01-01T00:00:00Z'],
    names: /--expires.*not in the future/,
  },
  {
    command: 'keys restrict',
    valid: ['key_x', '--scopes', 'pets:read'],
    bad: ['key_x', '--scopes', 'pets:read,pets:delete'],
    names:
      /--scopes.*"pets:delete".*pets:read, pets:write, orders:read, orders:write, messages:write, webhooks:read, webho/,
  },
  { command: 'keys revoke', valid: ['key_x'], bad: [], names: /missing required argument 'keyId'/ },
  { command: 'keys unban', valid: ['key_x'], bad: ['key_x', '--url', 'ftp://example.com'], names: /--url/ },
  {
    command: 'operators create',
    valid: ['--email', 'a@example.com', '--role', 'admin'],
    bad: ['--email', 'a@example.com', '--role', 'boss'],
    names: /--role.*boss/,
  },
  { command: 'operators list', valid: [], bad: ['op_x'], names: /too many arguments/ },
  { command: 'operators disable', valid: ['op_x'], bad: [], names: /missing required argument 'id'/ },
  { command: 'operators set-role', valid: ['op_x', 'admin'], bad: ['op_x', 'boss'], names: /boss/ },
  { command: 'audit list', valid: [], bad: ['--since', 'yesterday'], names: /--since.*yesterday/ },
]

/** Every command that runs something (the leaves of the tree, and a command with both an action and sub-commands). */
function commandsOf(cmd: Command, path: string[] = []): string[] {
  const own = (cmd as unknown as { _actionHandler: unknown })._actionHandler ? [path.join(' ')] : []
  return [...own, ...cmd.commands.filter((c) => c.name() !== 'help').flatMap((c) => commandsOf(c, [...path, c.name()]))]
}

test('the table covers every command of the CLI', () => {
  assert.deepEqual(cases.map((c) => c.command).sort(), commandsOf(buildProgram()).sort())
})

/**
 * A usage error: exit 2, one line on stderr, and the database was never opened: cliOn's file is still the empty
 * file it made (opening it writes its header and journal mode).
 */
function assertUsageError(r: CliResult, file: string, names: RegExp): void {
  const line = oneLineFailure(r)
  assert.equal(r.code, 2, line)
  assert.match(line, /^petstore: /)
  assert.match(line, names)
  assert.ok(
    statSync(file).size === 0 && !existsSync(`${file}-wal`),
    'a usage error must be found before the database is opened',
  )
}

// Four at a time: each case is two short CLI runs, mostly start-up.
describe('usage errors of every command', { concurrency: 4 }, () => {
  for (const c of cases) {
    test(`petstore ${c.command}: an unknown option and a bad value exit 2 with one line naming them`, async (t) => {
      const cli = cliOn(t)
      const words = c.command.split(' ')
      const unknown = await cli.run([...words, ...c.valid, '--jsn'])
      assertUsageError(unknown, cli.file, /unknown option '--jsn'/)
      assertUsageError(await cli.run([...words, ...c.bad]), cli.file, c.names)
    })
  }
})

test('a mistyped option gets a suggestion on the same line', async (t) => {
  const r = await cliOn(t).run(['accounts', 'list', '--jsn'])
  assert.match(oneLineFailure(r), /unknown option '--jsn' \(Did you mean --json\?\)/)
})

test('unknown commands and sub-commands, and a command without its sub-command, exit 2', async (t) => {
  const cli = cliOn(t)
  assertUsageError(await cli.run(['frobnicate']), cli.file, /unknown command 'frobnicate'/)
  assertUsageError(await cli.run(['keys', 'frobnicate']), cli.file, /unknown command 'frobnicate'/)
  const bare = await cli.run(['keys'])
  assert.equal(bare.code, 2)
  assert.match(bare.stderr, /Usage: petstore keys/)
})

test(
  'failures at run time exit 1 with one line: ' + 'an unknown key or account, a backup file in the way, a bad setting',
  async (t) => {
    const cli = cliOn(t)
    const revoke = await cli.run(['keys', 'revoke', 'key_nobody', '--json'])
    assert.match(oneLineFailure(revoke), /key_nobody/)
    assert.equal(revoke.code, 1)

    const plan = await cli.run(['accounts', 'set-plan', 'acct_nobody', 'pro'])
    assert.match(oneLineFailure(plan), /acct_nobody/)
    assert.equal(plan.code, 1)

    const copy = `${cli.dir}/copy.db`
    assert.equal((await cli.run(['backup', copy])).code, 0)
    const again = await cli.run(['backup', copy])
    assert.match(oneLineFailure(again), /exists; pass --force/)
    assert.equal(again.code, 1)

    const config = await cli.run(['accounts', 'list'], { PETSTORE_ENV: 'prod' })
    assert.match(oneLineFailure(config), /PETSTORE_ENV/)
    assert.equal(config.code, 1)
  },
)

test('--help and --version exit 0', async () => {
  for (const args of [['--help'], ['--version'], ['keys', 'roll', '--help'], ['help', 'backup']]) {
    const r = await runCli(args)
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.stderr}`)
    assert.notEqual(r.stdout, '')
  }
})
