// DATABASE_URL names a SQLite file as a plain path or a `file:` URL (absolute, relative, file:///): the database is
// made at that path, never in a folder literally named `file:`.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { pathToFileURL } from 'node:url'
import { parseDatabaseUrl } from '../../src/kernel/database-url.js'
import { BIN, childEnv, tempDir } from '../helpers/cli.js'

test('each form of DATABASE_URL reads as the file or database it names', () => {
  const forms: Array<[string, ReturnType<typeof parseDatabaseUrl>]> = [
    ['./data/petstore.db', { dialect: 'sqlite', path: './data/petstore.db' }],
    ['/var/lib/petstore/petstore.db', { dialect: 'sqlite', path: '/var/lib/petstore/petstore.db' }],
    ['file:/var/lib/petstore/petstore.db', { dialect: 'sqlite', path: '/var/lib/petstore/petstore.db' }],
    ['file:./data/p.db', { dialect: 'sqlite', path: './data/p.db' }],
    ['file:data/p.db', { dialect: 'sqlite', path: 'data/p.db' }],
    ['file:///abs/path.db', { dialect: 'sqlite', path: '/abs/path.db' }],
    ['file://localhost/abs/path.db', { dialect: 'sqlite', path: '/abs/path.db' }],
    ['file:///abs/my%20pets.db', { dialect: 'sqlite', path: '/abs/my pets.db' }],
    ['sqlite:./data/p.db', { dialect: 'sqlite', path: './data/p.db' }],
    ['sqlite:///abs/path.db', { dialect: 'sqlite', path: '/abs/path.db' }],
    [':memory:', { dialect: 'sqlite', path: ':memory:' }],
    ['postgres://app:secret@db:5432/petstore', { dialect: 'postgres', url: 'postgres://app:secret@db:5432/petstore' }],
    ['POSTGRESQL://db/petstore', { dialect: 'postgres', url: 'POSTGRESQL://db/petstore' }],
  ]
  for (const [url, target] of forms) assert.deepEqual(parseDatabaseUrl(url), target, url)
})

/** `petstore migrate` in `cwd` with DATABASE_URL=`url`; resolves once it exited 0. */
function migrate(cwd: string, url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [BIN, 'migrate'],
      { cwd, env: childEnv({ DATABASE_URL: url }), timeout: 30_000 },
      (error, _stdout, stderr) =>
        error ? reject(new Error(`migrate with DATABASE_URL=${url} failed: ${stderr}`)) : resolve(),
    )
  })
}

test(
  'the CLI makes the SQLite database at the path of a file: ' +
    'URL (absolute, relative, file:///) and at a plain path',
  async (t) => {
    const { dir } = tempDir(t, 'petstore-file-url-')
    await migrate(dir, 'file:./relative/p.db')
    await migrate(dir, `file:${join(dir, 'absolute', 'p.db')}`)
    await migrate(dir, pathToFileURL(join(dir, 'three slashes', 'p.db')).href)
    await migrate(dir, 'plain/p.db')
    for (const folder of ['relative', 'absolute', 'three slashes', 'plain'])
      assert.ok(existsSync(join(dir, folder, 'p.db')), `${folder}/p.db: ${readdirSync(dir)}`)
    assert.deepEqual(readdirSync(dir).sort(), ['absolute', 'plain', 'relative', 'three slashes'])
  },
)
