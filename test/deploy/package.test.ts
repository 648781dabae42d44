// What package.json promises holds for what is locked: every locked package (dependencies and the tools that test
// them) runs on the oldest Node.js that `engines.node` allows; the service and its SDK have one licence, in LICENSE;
// the changelog's latest version is package.json's.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import semver from 'semver'
import { repoRoot } from '../helpers/root.js'

const json = (path: string) => JSON.parse(readFileSync(new URL(path, repoRoot), 'utf8'))

test('every locked package accepts the oldest Node.js that engines.node allows, and the Node.js running this', () => {
  const range = json('package.json').engines.node as string
  const oldest = semver.minVersion(range)!.version
  const lock = json('package-lock.json') as { packages: Record<string, { engines?: { node?: string } }> }
  const refused = Object.entries(lock.packages)
    .filter(([path, p]) => path !== '' && p.engines?.node !== undefined)
    .filter(
      ([, p]) => !semver.satisfies(oldest, p.engines!.node!) || !semver.satisfies(process.version, p.engines!.node!),
    )
    .map(([path, p]) => `${path.replace(/^node_modules\//, '')} wants node ${p.engines!.node}`)
  assert.deepEqual(refused, [], `engines.node is ${range} (oldest ${oldest})`)
  assert.ok(semver.satisfies(process.version, range), `this Node.js (${process.version}) is within ${range}`)
})

test('the service is licensed as its SDK is, and LICENSE says so', () => {
  const license = json('package.json').license
  assert.equal(license, json('sdk/package.json').license)
  assert.equal(license, 'MIT')
  assert.match(readFileSync(new URL('LICENSE', repoRoot), 'utf8'), /^MIT License\n/)
})

test("the changelog's latest release is package.json's version, and it keeps an Unreleased section on top", () => {
  const changelog = readFileSync(new URL('CHANGELOG.md', repoRoot), 'utf8')
  const versions = [...changelog.matchAll(/^## \[([^\]]+)\]/gm)].map((m) => m[1])
  assert.equal(versions[0], 'Unreleased')
  assert.equal(versions[1], json('package.json').version)
})
