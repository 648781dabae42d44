// The README and the guides in docs/ document what the code has: the quick start and a layout that names real
// folders (README.md), every setting (docs/operators/configuration.md), every error code (docs/integrators/api.md),
// every CLI command and option (docs/operators/cli.md), every dependency (docs/contributors/dependencies.md).
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { test } from 'node:test'
import { settings } from '../src/kernel/config.js'
import { ERROR_CODES } from '../src/api/contract/errors.js'
import { runCli } from './helpers/cli.js'
import { repoRoot } from './helpers/root.js'

const root = repoRoot
const readme = readFileSync(new URL('README.md', root), 'utf8')
const doc = (path: string) => readFileSync(new URL(path, root), 'utf8')
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  dependencies: Record<string, string>
  scripts: Record<string, string>
}

/**
 * The lines of the `## title` (or `# title`, `### title`) section of a document (the README by default), up to the
 * next heading of that level or above (code blocks skipped).
 */
function section(title: string, level = 2, text = readme): string {
  const found: string[] = []
  let fenced = false
  let inside = false
  for (const line of text.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = fenced ? null : /^(#+) (.*)$/.exec(line)
    if (heading && inside && heading[1]!.length <= level) break
    if (heading && heading[1]!.length === level && heading[2] === title) inside = true
    if (inside) found.push(line)
  }
  assert.ok(found.length > 0, `no "${'#'.repeat(level)} ${title}" section`)
  return found.join('\n')
}

/** Table rows of a section as arrays of trimmed cells (header and divider rows excluded). */
function rows(text: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith('|') && !/^\|[-| ]+\|$/.test(l))
    .map((l) =>
      l
        .split(/(?<!\\)\|/)
        .slice(1, -1)
        .map((c) => c.trim()),
    )
}

test('the quick start is `npm install && npm start` and `npm test`, and npm start serves', () => {
  const quick = section('Quick start')
  assert.match(quick, /^npm install && npm start\b/m)
  assert.match(quick, /^npm test\b/m)
  // `petstore` itself is not on the PATH of the package's own scripts: start runs bin/petstore.js with the options
  // of its first line (the memory settings), so `npm start` and `npx petstore serve` run alike. `exec`: the shell
  // npm starts gives its place to node, which so gets the stop signal (test/main/npm-start.test.ts).
  const shebang = /^#!\/usr\/bin\/env -S (.*)$/m.exec(readFileSync(new URL('bin/petstore.js', root), 'utf8'))![1]!
  assert.equal(pkg.scripts.start, `exec env ${shebang} bin/petstore.js serve`)
})

test('the configuration table lists every setting with its default, and nothing else', () => {
  const table = new Map(
    rows(section('Configuration', 1, doc('docs/operators/configuration.md'))).map((r) => [
      r[0]!.replace(/`/g, ''),
      r[1]!.replace(/`/g, ''),
    ]),
  )
  table.delete('Variable')
  for (const s of Object.values(settings)) {
    assert.ok(table.has(s.env), `${s.env} is not documented`)
    assert.equal(table.get(s.env), s.default ?? '(unset)', `default of ${s.env}`)
  }
  const known = new Set(Object.values(settings).map((s) => s.env))
  for (const name of table.keys()) assert.ok(known.has(name), `README documents ${name}, which is not a setting`)
})

test('the error table lists every code with its HTTP status, and nothing else', () => {
  const table = new Map(
    rows(section('Errors', 2, doc('docs/integrators/api.md')))
      .filter((r) => /^`[a-z_]+`$/.test(r[0]!))
      .map((r) => [r[0]!.replace(/`/g, ''), Number(r[1])]),
  )
  for (const [code, { status }] of Object.entries(ERROR_CODES))
    assert.equal(table.get(code), status, `error code ${code}`)
  assert.deepEqual([...table.keys()].sort(), Object.keys(ERROR_CODES).sort())
})

/** Names listed under "Commands:" and long options under "Options:" in a `--help` text. */
function parseHelp(help: string): { commands: string[]; options: string[] } {
  const block = (name: string) => help.split(`\n${name}:\n`)[1]?.split('\n\n')[0] ?? ''
  const commands = [...block('Commands').matchAll(/^ {2}([a-z][a-z-]*)/gm)]
    .map((m) => m[1]!)
    .filter((c) => c !== 'help')
  const options = [...block('Options').matchAll(/^ {2}(?:-\w, )?(--[a-z][a-z-]*)/gm)]
    .map((m) => m[1]!)
    .filter((o) => o !== '--help')
  return { commands, options }
}

test('the CLI table documents every command of the real CLI with every one of its options', async () => {
  const cliRows = rows(section('CLI', 1, doc('docs/operators/cli.md'))).map((r) =>
    r[0]!.replace(/`/g, '').replace(/\\\|/g, '|'),
  )
  const leaves: string[][] = []
  for (const top of parseHelp((await runCli(['--help'])).stdout).commands) {
    const sub = parseHelp((await runCli([top, '--help'])).stdout).commands
    if (sub.length === 0) leaves.push([top])
    else leaves.push(...sub.map((s) => [top, s]))
  }
  assert.ok(leaves.length >= 8, `only ${leaves.length} commands found`)
  await Promise.all(
    leaves.map(async (path) => {
      const row = cliRows.find((r) => r === path.join(' ') || r.startsWith(`${path.join(' ')} `))
      assert.ok(row, `petstore ${path.join(' ')} is not in the README`)
      const help = await runCli([...path, '--help'])
      assert.equal(help.code, 0, help.stderr)
      for (const option of parseHelp(help.stdout).options)
        assert.ok(row.includes(option), `README: ${path.join(' ')} lacks ${option}`)
    }),
  )
  // And the other way round: every command the table names exists (its help is its own, not its parent's).
  await Promise.all(
    cliRows.map(async (row) => {
      const words = row
        .split(' ')
        .filter((w, i, all) => /^[a-z][a-z-]*$/.test(w) && all.slice(0, i).every((p) => /^[a-z][a-z-]*$/.test(p)))
      if (words.length === 0) return // the header row
      const help = await runCli([...words, '--help'])
      assert.equal(help.code, 0, `README names petstore ${words.join(' ')}: ${help.stderr}`)
      assert.ok(
        help.stdout.startsWith(`Usage: petstore ${words.join(' ')} `),
        `README names petstore ${words.join(' ')}, which does not exist`,
      )
    }),
  )
})

test('every runtime dependency is explained', () => {
  const deps = section('Dependencies and why', 1, doc('docs/contributors/dependencies.md'))
  for (const name of Object.keys(pkg.dependencies)) assert.ok(deps.includes(`\`${name}\``), `${name} is not explained`)
})

test(
  'the specification the README names is in this repository, ' + 'unchanged from the seed when the seed is at hand',
  () => {
    const named = /\(spec: \[`([^`]+)`\]/.exec(readme)
    assert.ok(named, 'the first paragraph names the spec')
    const copy = readFileSync(new URL(named[1]!, root), 'utf8')
    assert.match(copy, /\S/)
    // The seed lives beside the repository in the team's workspace; a clone elsewhere has only the copy.
    const seed = new URL('../shared/seed/000_5653116cb942185d.txt', root)
    if (existsSync(seed)) assert.equal(copy, readFileSync(seed, 'utf8'))
  },
)

test('the layout names every folder of src/, and every path it names exists', () => {
  const layout = section('Layout')
  const srcEntries = readdirSync(new URL('src/', root)).filter((n) => statSync(new URL(`src/${n}`, root)).isDirectory())
  for (const dir of srcEntries) assert.ok(layout.includes(`src/${dir}/`), `src/${dir}/ is not in the layout`)
  const named = [...layout.matchAll(/^((?:src|bin|test)\/\S*)/gm)].map((m) => m[1]!)
  assert.ok(named.length > 5)
  for (const path of named) assert.ok(existsSync(new URL(path, root)), `the layout names ${path}, which does not exist`)
})
