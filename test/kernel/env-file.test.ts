// `.env` is read by every `petstore` command (and so by `npm start`): the working directory's, or the file
// PETSTORE_ENV_FILE names; the environment wins over the file; a named file that is missing is an error naming it.
// Through the real CLI: `migrate` creates the database DATABASE_URL names, which shows which setting won.
import assert from 'node:assert/strict'
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { runCli, tempDir } from '../helpers/cli.js'

/** No PETSTORE_ENV_FILE (the helpers set an empty one): the working directory's .env is the one read. */
const NO_NAMED_FILE = { PETSTORE_ENV_FILE: '' }

test(".env in the working directory is read; a variable in the environment wins over the file's", async (t) => {
  const { dir } = tempDir(t, 'petstore-env-')
  writeFileSync(join(dir, '.env'), '# copied from .env.example\nDATABASE_URL=./from-env-file.db\nLOG_LEVEL=warn\n')
  const fromFile = await runCli(['migrate'], NO_NAMED_FILE, dir)
  assert.equal(fromFile.code, 0, fromFile.stderr)
  assert.ok(existsSync(join(dir, 'from-env-file.db')), "the .env's DATABASE_URL was used")

  const fromEnv = await runCli(['migrate'], { ...NO_NAMED_FILE, DATABASE_URL: join(dir, 'from-environment.db') }, dir)
  assert.equal(fromEnv.code, 0, fromEnv.stderr)
  assert.ok(existsSync(join(dir, 'from-environment.db')), "the environment's DATABASE_URL won")
})

test('PETSTORE_ENV_FILE names another file; a named file that is missing stops the command, naming it', async (t) => {
  const { dir } = tempDir(t, 'petstore-env-')
  writeFileSync(join(dir, 'staging.env'), `DATABASE_URL=${join(dir, 'staging.db')}\n`)
  writeFileSync(join(dir, '.env'), `DATABASE_URL=${join(dir, 'not-this-one.db')}\n`)
  const named = await runCli(['migrate'], { PETSTORE_ENV_FILE: join(dir, 'staging.env') }, dir)
  assert.equal(named.code, 0, named.stderr)
  assert.ok(existsSync(join(dir, 'staging.db')))
  assert.ok(!existsSync(join(dir, 'not-this-one.db')), 'the named file replaces .env, it does not add to it')

  const missing = await runCli(['accounts', 'list'], { PETSTORE_ENV_FILE: join(dir, 'typo.env') }, dir)
  assert.equal(missing.code, 1)
  assert.equal(
    missing.stderr,
    `petstore: cannot read the settings file PETSTORE_ENV_FILE=${join(dir, 'typo.env')} (${join(dir, 'typo.env')}): ` +
      'no such file\n',
  )
})
