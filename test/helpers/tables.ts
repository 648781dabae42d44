// Reading the tables of an HTML page in tests: each row's cells as a person (or a screen reader) reads them.
import assert from 'node:assert/strict'

const ENTITIES: Record<string, string> = { '&lt;': '<', '&gt;': '>', '&quot;': '"', '&#39;': "'", '&amp;': '&' }
/** What a cell reads as: tags removed, entities decoded, blanks collapsed. */
const cellText = (cell: string): string =>
  cell
    .replace(/<[^>]+>/g, '')
    .replace(/&(?:lt|gt|quot|#39|amp);/g, (e) => ENTITIES[e]!)
    .replace(/\s+/g, ' ')
    .trim()

/** The rows of the table of class `name`: each row's cells as text. */
export function tableRows(body: string, name: string): string[][] {
  const table = new RegExp(`<table class="${name}">([\\s\\S]*?)</table>`).exec(body)
  assert.ok(table, `no table ${name}`)
  return [...table[1]!.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
    [...row[1]!.matchAll(/<t[hd][^>]*>([\s\S]*?)<\/t[hd]>/g)].map((cell) => cellText(cell[1]!)),
  )
}
