// `npm run lint` catches what the layers forbid, each named by file: on a copy of the tree, a module that imports
// fastify, an import circle and an export nobody imports each make the checker fail. That the tree as it is passes
// is npm test's first step (`npm run lint` on the checkout), not repeated here: each checker run is seconds of CPU.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { execFileSync } from 'node:child_process'
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { repoRoot } from './helpers/root.js'

const run = promisify(execFile)
const root = fileURLToPath(repoRoot)
/** A copy of the tracked files (what a clean clone has), with the installed packages. */
function copyOfTree(t: { after: (fn: () => void) => void }): string {
  const dir = mkdtempSync(join(tmpdir(), 'petstore-lint-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const tracked = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0').filter(Boolean)
  for (const file of tracked) {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    cpSync(join(root, file), join(dir, file))
  }
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'))
  return dir
}

async function check(dir: string, tool: 'depcruise' | 'knip'): Promise<{ ok: boolean; output: string }> {
  const args = tool === 'depcruise' ? ['depcruise', 'src', 'bench', '--output-type', 'err'] : ['knip', '--no-progress']
  try {
    const { stdout, stderr } = await run('npx', ['--no-install', ...args], { cwd: dir, maxBuffer: 16 << 20 })
    return { ok: true, output: stdout + stderr }
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string }
    return { ok: false, output: `${failed.stdout ?? ''}${failed.stderr ?? ''}` }
  }
}

test('the layer rules: a module importing fastify and an import circle fail, naming the file', {
  timeout: 120_000,
}, async (t) => {
  const dir = copyOfTree(t)
  appendFileSync(join(dir, 'src/modules/pets/pet.ts'), "\nexport type { FastifyInstance } from 'fastify'\n")
  const fastify = await check(dir, 'depcruise')
  assert.equal(fastify.ok, false)
  assert.match(fastify.output, /modules: no HTTP framework.*src\/modules\/pets\/pet\.ts/)
  writeFileSync(
    join(dir, 'src/modules/pets/pet.ts'),
    "import type { NewPet as Other } from './circle.js'\nexport type NewPet = Other\n",
  )
  writeFileSync(
    join(dir, 'src/modules/pets/circle.ts'),
    "import type { NewPet } from './pet.js'\nexport type { NewPet }\n",
  )
  const circle = await check(dir, 'depcruise')
  assert.equal(circle.ok, false)
  assert.match(circle.output, /no-circular: src\/modules\/pets\/(pet|circle)\.ts/)
})

test('knip: an export nobody imports fails, naming the file', {
  timeout: 120_000,
}, async (t) => {
  const dir = copyOfTree(t)
  appendFileSync(join(dir, 'src/modules/pets/pet.ts'), '\nexport const NOBODY_READS_THIS = 1\n')
  const unused = await check(dir, 'knip')
  assert.equal(unused.ok, false)
  assert.match(unused.output, /NOBODY_READS_THIS.*src\/modules\/pets\/pet\.ts/)
})
