// deploy/grafana-dashboard.json is importable into Grafana (a Prometheus data source as its one input, every panel
// on it) and queries only series the service serves: each metric a panel names is in a scrape of the real app
// (the PostgreSQL pool's and Redis's only where the backend has them: the PostgreSQL + Redis pass checks those).
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { backend } from '../helpers/backend.js'
import { startHarness } from '../helpers/harness.js'
import { repoRoot } from '../helpers/root.js'

interface Panel {
  id: number
  title: string
  datasource: { uid: string }
  gridPos: { x: number; y: number; w: number; h: number }
  targets: Array<{ expr: string; datasource: { uid: string } }>
}
const dashboard = JSON.parse(readFileSync(new URL('deploy/grafana-dashboard.json', repoRoot), 'utf8')) as {
  __inputs: Array<{ name: string; type: string; pluginId: string }>
  uid: string
  panels: Panel[]
}

/** Grafana's reference to the dashboard's input, as every panel and query names its data source. */
const INPUT = '$' + '{DS_PROMETHEUS}'

/** The series names a PromQL expression reads (ours, prom-client's process_ and nodejs_ ones). */
const seriesOf = (expr: string) => [...expr.matchAll(/\b((?:petstore|process|nodejs)_[a-z_]+)\b/g)].map((m) => m[1]!)

test('the dashboard imports with one Prometheus input, and each panel is on it, placed, with a query', () => {
  assert.deepEqual(
    dashboard.__inputs.map((i) => [i.name, i.type, i.pluginId]),
    [['DS_PROMETHEUS', 'datasource', 'prometheus']],
  )
  assert.equal(new Set(dashboard.panels.map((p) => p.id)).size, dashboard.panels.length, 'panel ids are unique')
  for (const panel of dashboard.panels) {
    assert.equal(panel.datasource.uid, INPUT, panel.title)
    assert.ok(panel.targets.length > 0, panel.title)
    for (const target of panel.targets) assert.equal(target.datasource.uid, INPUT, panel.title)
    assert.ok(panel.gridPos.w > 0 && panel.gridPos.h > 0, panel.title)
  }
  const titles = dashboard.panels.map((p) => p.title.toLowerCase()).join(' | ')
  for (const topic of ['requests by outcome', 'latency', 'refusals', 'outbox', 'pool', 'event-loop lag'])
    assert.ok(titles.includes(topic), `a panel for ${topic}`)
})

test('every series the dashboard queries is one the service serves', async (t) => {
  const h = await startHarness(t)
  const scrape = await h.app.inject({ url: '/metrics' })
  assert.equal(scrape.statusCode, 200)
  const served = new Set<string>()
  for (const [, name, type] of scrape.body.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    served.add(name!)
    if (type === 'histogram') for (const part of ['_bucket', '_count', '_sum']) served.add(`${name}${part}`)
  }
  const onlyWith = (name: string) =>
    name.startsWith('petstore_db_pool_') ? 'postgres' : name === 'petstore_redis_up' ? 'postgres' : undefined
  const queried = [...new Set(dashboard.panels.flatMap((p) => p.targets.flatMap((target) => seriesOf(target.expr))))]
  assert.ok(queried.length >= 10, `${queried.length} series queried`)
  const missing = queried.filter((name) => !served.has(name) && (onlyWith(name) ?? backend) === backend)
  assert.deepEqual(missing, [], `not served on ${backend}`)
})
