// `petstore --version` prints the package's version and exits 0.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { runCli } from '../helpers/cli.js'
import { repoRoot } from '../helpers/root.js'

test('petstore --version (and -V) prints the version of package.json, alone, and exits 0', async () => {
  const { version } = JSON.parse(readFileSync(new URL('package.json', repoRoot), 'utf8')) as { version: string }
  for (const flag of ['--version', '-V']) {
    const r = await runCli([flag])
    assert.deepEqual(r, { code: 0, stdout: `${version}\n`, stderr: '' })
  }
})
