// A module owns its tables: only src/modules/integrators/ reads or writes portal_* tables (but the second factors',
// which src/modules/two-factor/ owns), only
// src/modules/operators/ the operators and operator_* tables (src/db/ creates them). Everyone else asks the owner
// (integrators/account-owners.ts: an account's owner, removal with the account). Found in the source as the
// database sees it: a query builder's table (`selectFrom('portal_users')`, joins, inserts, updates, deletes) or a
// table named in raw SQL (`from portal_users`, `join …`, `into …`, `update …`).
import assert from 'node:assert/strict'
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { repoRoot } from '../helpers/root.js'

const root = fileURLToPath(repoRoot)
const OWNERS: Array<{ tables: RegExp; owner: string }> = [
  {
    tables: /^portal_(two_factor|passkeys|recovery_codes|code_failures|login_steps|webauthn_challenges)$/,
    owner: 'src/modules/two-factor/',
  },
  { tables: /^portal_/, owner: 'src/modules/integrators/' },
  { tables: /^operators?(_|$)/, owner: 'src/modules/operators/' },
]
const BUILDER =
  /\b(?:selectFrom|insertInto|updateTable|deleteFrom|innerJoin|leftJoin|rightJoin|fullJoin)\(\s*'([a-z_]+)/g
const RAW = /\b(?:from|join|into|update)\s+([a-z_]+)\b/gi

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    return statSync(join(root, path)).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : []
  })
}

/** Each (file, table) a query names, outside src/db/ (which creates the tables). */
function tablesQueried(): Array<{ file: string; table: string }> {
  const found: Array<{ file: string; table: string }> = []
  for (const file of sources('src').filter((f) => !f.startsWith('src/db/'))) {
    const code = readFileSync(join(root, file), 'utf8').replace(/^\s*(\/\/|\*).*$/gm, '') // comments are not queries
    for (const [, table] of code.matchAll(BUILDER))
      found.push({ file: relative(root, join(root, file)), table: table! })
    for (const [, table] of code.matchAll(RAW)) found.push({ file, table: table!.toLowerCase() })
  }
  return found
}

test("only the owning module queries the integrators' and the operators' tables", () => {
  const queried = tablesQueried()
  // The scan finds what it looks for: each owner's own queries.
  for (const { owner } of OWNERS)
    assert.ok(
      queried.some((q) => q.file.startsWith(owner)),
      `${owner} queries found`,
    )
  const trespasses = queried
    .map(({ file, table }) => ({ file, table, owner: OWNERS.find((o) => o.tables.test(table))?.owner }))
    .filter(({ file, owner }) => owner !== undefined && !file.startsWith(owner))
    .map(({ file, table, owner }) => `${file} queries ${table}, which ${owner} owns`)
  assert.deepEqual([...new Set(trespasses)], [])
})
