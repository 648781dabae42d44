// `npm run lint`'s folder check: the import graph of src/ folders has no circle. dependency-cruiser's no-circular
// rule (.dependency-cruiser.cjs) sees files; two folders can import each other through different files without any
// file circle (api/contract -> api/platform -> api/contract was one). Folders: each module, each part of api/ and
// sites/, and the other top-level folders of src/. Prints each circle; exits 1 if there is one.
import { execFileSync } from 'node:child_process'

const FOLDER = '^src/(modules|api|sites)/[^/]+|^src/[^/]+'
const report = JSON.parse(
  execFileSync('npx', ['--no-install', 'depcruise', 'src', '--output-type', 'json', '--collapse', FOLDER], {
    encoding: 'utf8',
    maxBuffer: 64 << 20,
  }),
)
const graph = new Map(
  report.modules.map((m) => [
    m.source,
    (m.dependencies ?? []).map((d) => d.resolved).filter((r) => r.startsWith('src/') && r !== m.source),
  ]),
)
const circles = new Set()
const done = new Set()
function visit(node, path) {
  const at = path.indexOf(node)
  if (at >= 0) return void circles.add([...path.slice(at), node].join(' -> '))
  if (done.has(node)) return
  for (const next of graph.get(node) ?? []) visit(next, [...path, node])
  done.add(node)
}
for (const node of graph.keys()) visit(node, [])
for (const circle of circles) process.stdout.write(`folder circle: ${circle}\n`)
if (circles.size > 0) process.exit(1)
process.stdout.write(`no folder circle (${graph.size} folders)\n`)
