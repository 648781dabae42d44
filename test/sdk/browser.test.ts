// The built client in a real browser (headless Chromium), against the real service: the page imports
// sdk/dist/index.js and lossless-json's ESM build through an import map, exactly as a bundler-free web app would,
// and calls the service on its own origin (a small server here serves the files and forwards /v1 to the service).
// Skipped, saying so, where the machine has no Chromium (CHROMIUM_PATH, or chromium on the PATH).
import assert from 'node:assert/strict'
import { execFile, execFileSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { createServer, request as forward } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { startHarness } from '../helpers/harness.js'
import { repoRoot } from '../helpers/root.js'

const root = repoRoot

function findChromium(): string | undefined {
  if (process.env.CHROMIUM_PATH) return process.env.CHROMIUM_PATH
  for (const name of ['chromium', 'chromium-browser', 'google-chrome']) {
    try {
      return execFileSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' }).trim() || undefined
    } catch {
      // not this one
    }
  }
  return undefined
}

const pageFor = (key: string) =>
  `<!doctype html><html><head>
<script type="importmap">{"imports":{"lossless-json":"/lossless-json/index.js"}}</script></head><body>waiting
<script type="module">
import { NotFoundError, Petstore } from '/sdk/index.js'
const out = []
try {
  const ps = new Petstore({ apiKey: ${JSON.stringify(key)}, baseUrl: location.origin + '/v1', ` +
  `dangerouslyAllowBrowser: true, onResponse: (info) => out.push(info.status) })
  const pet = await ps.pets.create({ name: 'Rex', categoryId: 9223372036854775807n })
  out.push(String(pet.categoryId), typeof pet.id)
  for await (const p of ps.pets.list({ limit: 1 })) out.push(p.name)
  await ps.pets.get(999999).catch((err) => out.push(err instanceof NotFoundError ? err.code : String(err)))
} catch (err) {
  out.push('error: ' + err)
}
document.body.textContent = 'RESULT ' + JSON.stringify(out)
</script></body></html>`

const chromium = findChromium()

test('the built client runs in headless Chromium: create with an exact int64, iterate, a NotFoundError', {
  skip: chromium ? false : 'no Chromium on this machine (set CHROMIUM_PATH)',
}, async (t) => {
  assert.ok(
    existsSync(new URL('sdk/dist/index.js', root)),
    'sdk/dist is missing: run `npm run build` first (npm test does)',
  )
  const h = await startHarness(t, { listen: true })
  const account = await h.newAccount()
  const service = new URL(h.baseUrl)
  const files = {
    '/sdk/': new URL('sdk/dist/', root),
    '/lossless-json/': new URL('node_modules/lossless-json/lib/esm/', root),
  }
  const server = createServer(async (req, res) => {
    const url = req.url ?? '/'
    if (url === '/') return void res.writeHead(200, { 'content-type': 'text/html' }).end(pageFor(account.key))
    for (const [prefix, dir] of Object.entries(files)) {
      if (!url.startsWith(prefix)) continue
      const file = new URL(url.slice(prefix.length), dir)
      if (!file.pathname.startsWith(dir.pathname) || !existsSync(file)) return void res.writeHead(404).end()
      return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(await readFile(file))
    }
    const upstream = forward(
      { host: service.hostname, port: service.port, method: req.method, path: url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      },
    )
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const profile = await mkdtemp(join(tmpdir(), 'sdk-chromium-'))
  t.after(() => rm(profile, { recursive: true, force: true }))
  const { stdout } = await promisify(execFile)(
    chromium!,
    [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      `--user-data-dir=${profile}`,
      '--virtual-time-budget=20000',
      '--dump-dom',
      `${origin}/`,
    ],
    { timeout: 90_000 },
  )
  const result = /RESULT (.*)<\/body>/.exec(stdout)?.[1]
  assert.ok(result, `the page did not finish: ${stdout.slice(0, 300)}`)
  assert.deepEqual(JSON.parse(result), [201, '9223372036854775807', 'bigint', 200, 'Rex', 404, 'pet_not_found'])
})
