// Every link between the documents works: each relative link in README.md, BENCHMARKS.md and docs/**/*.md names a
// file of the repository, and each #anchor a heading of the document it points into (GitHub's slugs).
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { repoRoot } from './helpers/root.js'

const root = fileURLToPath(repoRoot)

function markdownUnder(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return markdownUnder(path)
    return name.endsWith('.md') ? [path] : []
  })
}

/** Text outside fenced code blocks and inline code, where a `[x](y)` is a link. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '')
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[`*_]/g, '')
    .replace(/[^\p{L}\p{N}\s-]/gu, '')
    .replace(/\s/g, '-')

function anchorsOf(file: string): Set<string> {
  const headings = prose(readFileSync(join(root, file), 'utf8')).match(/^#{1,6} .*$/gm) ?? []
  return new Set(headings.map((h) => slug(h.replace(/^#+ /, ''))))
}

test('every relative link between the documents names a file that exists, and every anchor a heading in it', () => {
  const documents = ['README.md', 'BENCHMARKS.md', ...markdownUnder('docs')]
  assert.ok(documents.length > 10)
  const broken: string[] = []
  let checked = 0
  for (const file of documents) {
    for (const [, target] of prose(readFileSync(join(root, file), 'utf8')).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue
      const [path, anchor] = target!.split('#') as [string, string | undefined]
      const resolved = path === '' ? file : relative(root, join(root, dirname(file), path))
      checked++
      if (!existsSync(join(root, resolved))) broken.push(`${file}: ${target} (no ${resolved})`)
      else if (anchor && resolved.endsWith('.md') && !anchorsOf(resolved).has(anchor))
        broken.push(`${file}: ${target} (no heading #${anchor} in ${resolved})`)
    }
  }
  assert.deepEqual(broken, [])
  assert.ok(checked > 20, `${checked} links checked`)
})
