// .env.example lists every setting of src/kernel/config.ts with its documentation and default, and nothing else.
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { loadConfig, settings } from '../../src/kernel/config.js'
import { renderEnvExample } from './env-example.js'
import { deployFile } from './support.js'

const file = () => readFileSync(deployFile('.env.example'), 'utf8')

/** `#NAME=value` lines, their value unquoted as systemd's EnvironmentFile reads it. */
function entries(text: string): Map<string, string> {
  const found = new Map<string, string>()
  for (const m of text.matchAll(/^#([A-Z][A-Z0-9_]*)=(.*)$/gm)) {
    assert.ok(!found.has(m[1]!), `${m[1]} is listed twice`)
    const raw = m[2]!
    found.set(m[1]!, raw.startsWith('"') ? raw.slice(1, -1).replace(/\\(.)/g, '$1') : raw)
  }
  return found
}

test('.env.example names every setting with its default, and nothing else', () => {
  const listed = entries(file())
  const expected = new Map(Object.values(settings).map((s) => [s.env, s.default ?? '']))
  assert.deepEqual([...listed.keys()].sort(), [...expected.keys()].sort())
  for (const [name, value] of expected) assert.equal(listed.get(name), value, `${name}'s default`)
})

test(
  '.env.example is the settings list written out, documentation ' +
    'included (npx tsx test/deploy/env-example.ts > .env.example)',
  () => {
    assert.equal(file(), renderEnvExample())
  },
)

test('every line of .env.example, uncommented, is a configuration the service accepts', () => {
  const env = Object.fromEntries([...entries(file())].filter(([, value]) => value !== ''))
  assert.doesNotThrow(() => loadConfig(env))
})
