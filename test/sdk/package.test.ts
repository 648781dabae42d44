// @petstore/sdk as a package: it imports nothing but its own files and lossless-json (no Node.js module, so it
// runs on Deno, Bun and in browsers; sdk/tsconfig.json compiles it without Node's types), and after the root's
// build `import { Petstore } from "@petstore/sdk"` works from the repository root through the workspace link.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { repoRoot } from '../helpers/root.js'

const root = repoRoot
const sdkSrc = new URL('sdk/src/', root)

function sources(dir: URL): URL[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sources(new URL(`${entry.name}/`, dir))
      : entry.name.endsWith('.ts')
        ? [new URL(entry.name, dir)]
        : [],
  )
}

test('sdk/src imports only its own files and lossless-json, and uses no Node.js global', () => {
  const files = sources(sdkSrc)
  assert.ok(files.length >= 10)
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      assert.ok(
        specifier!.startsWith('./') || specifier!.startsWith('../') || specifier === 'lossless-json',
        `${file.pathname} imports ${specifier}`,
      )
    }
    assert.doesNotMatch(text, /\bBuffer\b|\brequire\(|\b__dirname\b|\bprocess\.(?!env)/, file.pathname)
  }
  const pkg = JSON.parse(readFileSync(new URL('sdk/package.json', root), 'utf8')) as {
    dependencies: Record<string, string>
    version: string
    license: string
  }
  assert.deepEqual(Object.keys(pkg.dependencies), ['lossless-json'])
  assert.match(
    readFileSync(new URL('sdk/src/version.ts', root), 'utf8'),
    new RegExp(`SDK_VERSION = '${pkg.version}'`),
    'the User-Agent names the package version',
  )
  assert.equal(pkg.license, 'MIT')
  assert.match(readFileSync(new URL('sdk/LICENSE', root), 'utf8'), /^MIT License/)
})

test('after the build, `import { Petstore } from "@petstore/sdk"` works from the repository root', async () => {
  assert.ok(
    existsSync(new URL('sdk/dist/index.js', root)),
    'sdk/dist is missing: run `npm run build` first (npm test does)',
  )
  const script =
    `import { Petstore, RateLimitError } from '@petstore/sdk'
const ps = new Petstore({ apiKey: 'ps_test_x' })
console.log(JSON.stringify([typeof Petstore, typeof RateLimitError, ps.baseUrl, typeof ps.pets.list, ` +
    'typeof ps.orders.cancel, typeof ps.messages.send]))'
  const { stdout } = await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script], { cwd: root })
  assert.deepEqual(JSON.parse(stdout), [
    'function',
    'function',
    'http://127.0.0.1:8080/v1',
    'function',
    'function',
    'function',
  ])
  assert.ok(existsSync(new URL('sdk/dist/index.d.ts', root)), 'type declarations are built')
})

test('ps.pets.get is @deprecated with the sunset date the service publishes for getPet', () => {
  const generated = readFileSync(new URL('sdk/src/generated/petstore.ts', root), 'utf8')
  const sunset = /Removed on (\d{4}-\d{2}-\d{2})T/.exec(generated)?.[1]
  assert.ok(sunset, 'the served getPet description names its removal date')
  const pets = readFileSync(new URL('sdk/src/resources/pets.ts', root), 'utf8')
  const jsdoc = /\/\*\*((?:(?!\*\/)[\s\S])*)\*\/\s*get\(/.exec(pets)?.[1] ?? ''
  assert.match(jsdoc, /@deprecated/)
  assert.ok(jsdoc.includes(`removes it on ${sunset}`), `the JSDoc of get names ${sunset}`)
})
