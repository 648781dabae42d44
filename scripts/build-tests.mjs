// Bundles the test files for `npm test` (scripts/test.sh) into .test-build/: one ES module per test file under a
// folder that gives its place in the run (test/x/y.test.ts -> .test-build/017/test/x/y.test.js) and the code they
// share in .test-build/chunks/; .test-build/files.txt lists `source built` pairs in that order. The numbered folders
// are there because Node 20's test runner sorts the files it is given by path: the order of scripts/slow-tests.txt
// (slowest first, so that no long file starts near the end and runs alone) holds only if it is the paths' order.
// Why: every test file is its own process, and loading the harness was most of a small file's CPU time:
// - under `--import tsx`, Node 20 sends every module of the graph through tsx's hooks on a separate thread:
//   ~4 CPU-s a file;
// - compiled file by file it is ~1,400 ES modules (scripts/bundle.mjs: kysely alone is 262): ~1.7 CPU-s;
// - bundled: ~0.8 CPU-s less again.
// That is ~3 CPU-s of 214 files in each of two passes, about half of the suite's CPU on a 2-CPU machine.
// esbuild is also what tsx compiles with; types are checked by `npm run typecheck`, not here. It takes seconds.
// Built with scripts/bundle.mjs's options (APP_BUNDLE). Left out of the bundle, loaded from node_modules as the
// tests import them: what scripts/bundle.mjs leaves out (a native addon, a package serving files next to its code)
// and the packages only tests use, some of which read
// files next to their own code (the OpenAPI validators, Chromium's driver, the compilers).
// Tests find the repository's files through test/helpers/root.ts, not relative to their own place (two folders
// deeper here); src/kernel/version.ts, in a chunk, reads ../package.json, hence the copy.
import { build } from 'esbuild'
import { APP_BUNDLE } from './bundle.mjs'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'

const out = '.test-build'
const testFiles = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return testFiles(path)
    return entry.name.endsWith('.test.ts') ? [path] : []
  })

// The run's order: scripts/slow-tests.txt's files first (a listed path that is gone is skipped), then every other
// file in name order.
const slow = readFileSync('scripts/slow-tests.txt', 'utf8')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line && !line.startsWith('#') && existsSync(line))
const ordered = [...new Set([...slow, ...testFiles('test').sort()])]

// Small files run several to a process: each process loads the bundled app (~1 CPU-s before its first test, as much
// as a small file's tests), so a group of GROUP_SIZE costs that once. Tests of a file run one after another in its
// process either way; a group runs its files one after another. A file runs alone when it is slow (it leads the run),
// starts processes, servers or a browser of its own, or changes what the whole process shares (globalThis.fetch,
// process.env, its exit code). A group holds files of one pass only (pass1-only-tests.txt), so that pass 2 can
// leave a group out whole.
const GROUP_SIZE = 10
const ALONE = [/^test\/(cli|scale|deploy|bench)\//, /\/browser[.-]/, /\.process\.test\.ts$/]
const SHARES_PROCESS_STATE = new Set([
  'test/sdk/client.unit.test.ts',
  'test/sdk/observability.test.ts',
  'test/sdk/packed.test.ts',
  'test/lint.test.ts',
  'test/api/contract.test.ts',
])
const pass1Only = new Set(
  readFileSync('scripts/pass1-only-tests.txt', 'utf8')
    .split('\n')
    .filter((line) => line.trim() && !line.startsWith('#'))
    .map((line) => line.trim().split(/\s+/)[0]),
)
const alone = (path) => slow.includes(path) || SHARES_PROCESS_STATE.has(path) || ALONE.some((re) => re.test(path))
const runs = []
const open = { pass1: [], both: [] }
for (const path of ordered) {
  if (alone(path)) {
    runs.push([path])
    continue
  }
  const group = open[pass1Only.has(path) ? 'pass1' : 'both']
  if (group.length === 0) runs.push(group)
  group.push(path)
  if (group.length === GROUP_SIZE) open[pass1Only.has(path) ? 'pass1' : 'both'] = []
}
mkdirSync(join(out, 'groups'), { recursive: true })
const entries = runs.map((files, i) => {
  const place = String(i).padStart(3, '0')
  if (files.length === 1) return { files, in: files[0], out: `${place}/${files[0].replace(/\.ts$/, '')}` }
  const source = join(out, 'groups', `${place}.test.ts`)
  writeFileSync(source, files.map((f) => `import '../../${f}'\n`).join(''))
  return { files, in: source, out: `${place}/group-${basename(files[0], '.test.ts')}-and-${files.length - 1}.test` }
})

// Written over, not emptied first: a test file already running from it (two runs at once) keeps its modules.
await build({
  entryPoints: entries.map((e) => ({ in: e.in, out: e.out })),
  outdir: out,
  outbase: '.',
  chunkNames: 'chunks/[name]-[hash]',
  ...APP_BUNDLE,
  splitting: true,
  external: [
    ...APP_BUNDLE.external,
    'playwright-core',
    '@seriousme/openapi-schema-validator',
    'openapi-typescript',
    'esbuild',
    'typescript',
    'yaml',
    'standardwebhooks',
    'otpauth',
    'lossless-json',
    '@petstore/sdk',
  ],
})
copyFileSync('package.json', join(out, 'package.json'))
// One line per test file; the files of a group share its built file.
writeFileSync(
  join(out, 'files.txt'),
  entries.flatMap((e) => e.files.map((f) => `${f} ${join(out, e.out)}.js\n`)).join(''),
)
