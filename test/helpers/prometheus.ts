// Reading a /metrics answer in tests: the samples of a Prometheus text exposition, names, labels and values.
import assert from 'node:assert/strict'

export type Sample = { name: string; labels: Record<string, string>; value: number }

/** The samples of a Prometheus text exposition (comments skipped); a line that is not a sample fails the test. */
export function parseMetrics(text: string): Sample[] {
  return text
    .split('\n')
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line)
      assert.ok(m, `not a sample line: ${line}`)
      const labels = Object.fromEntries(
        [...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1]!, l[2]!]),
      )
      return { name: m[1]!, labels, value: Number(m[3]) }
    })
}
