// @petstore/sdk bundled by esbuild for a browser, run in Chromium on a plain-http page whose host name is not
// localhost (`http://sdk.test:<port>`, mapped to 127.0.0.1 by --host-resolver-rules: no traffic leaves the machine).
// That page is not a secure context, so it has no crypto.randomUUID: the Idempotency-Key comes from
// crypto.getRandomValues. The service is another origin (CORS_ORIGINS names the page's), behind a small relay that
// cuts the connection of the first POST after the service answered: the browser's retry needs
// X-Petstore-Retry-Count allowed by the preflight, and is answered from the stored response (one pet).
// (The cut comes after the answer's headers and first bytes: see the relay.)
import assert from 'node:assert/strict'
import { createServer, request as forward, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { build } from 'esbuild'
import { launchChromium } from '../helpers/browser.js'
import { startHarness } from '../helpers/harness.js'
import { repoRoot } from '../helpers/root.js'
import { petsOf } from '../helpers/pets.js'

const root = repoRoot.pathname

const app = `import { Petstore, toJSON } from '@petstore/sdk'
window.run = async (apiKey, baseUrl) => {
  const out = { secureContext: window.isSecureContext, randomUUID: typeof crypto.randomUUID }
  try { new Petstore({ apiKey, baseUrl }) } catch (err) { out.guard = err.message }
  const ps = new Petstore({ apiKey, baseUrl, dangerouslyAllowBrowser: true, logLevel: 'off' })
  try {
    const { data, response } = await ps.pets.create({ name: 'Rex', categoryId: 9223372036854775807n }).withResponse()
    out.pet = JSON.parse(JSON.stringify(data, toJSON))
    out.replayed = response.headers.get('idempotent-replayed')
  } catch (err) { out.error = String(err) }
  return out
}`

async function listen(
  server: ReturnType<typeof createServer>,
  t: { after: (fn: () => Promise<void>) => void },
): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.after(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })
  return (server.address() as AddressInfo).port
}

test(
  'an esbuild bundle creates a pet from http://sdk.test ' + '(no secure context, no randomUUID), retried through CORS',
  async (t) => {
    const bundle = await build({
      stdin: { contents: app, resolveDir: root, loader: 'js' },
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      write: false,
    })
    const page = createServer((req, res) => {
      if (req.url === '/app.js')
        return void res.writeHead(200, { 'content-type': 'text/javascript' }).end(bundle.outputFiles[0]!.text)
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end('<!doctype html><title>sdk</title><script type="module" src="/app.js"></script>')
    })
    const pagePort = await listen(page, t)
    const origin = `http://sdk.test:${pagePort}`
    const h = await startHarness(t, { listen: true, env: { CORS_ORIGINS: origin } })
    const account = await h.newAccount()
    const service = new URL(h.baseUrl)
    const posts: IncomingHttpHeaders[] = []
    const relay = createServer((req, res) => {
      const dropAnswer = req.method === 'POST' && posts.push(req.headers) === 1
      const upstream = forward(
        { host: service.hostname, port: service.port, method: req.method, path: req.url, headers: req.headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          // Cut after the headers (the service has answered): Chromium itself resends a request whose reused connection
          // closed before any answer, so the client would never see a loss; a cut body it does see.
          if (dropAnswer)
            return void answer.once('data', (chunk: Buffer) =>
              res.write(chunk.subarray(0, 5), () => res.socket?.destroy()),
            )
          answer.pipe(res)
        },
      )
      req.pipe(upstream)
    })
    const relayPort = await listen(relay, t)

    const browser = await launchChromium(t, ['--host-resolver-rules=MAP sdk.test 127.0.0.1'])
    const tab = await browser.newPage()
    await tab.goto(`${origin}/`)
    await tab.waitForFunction(() => typeof (globalThis as unknown as { run?: unknown }).run === 'function')
    const out = await tab.evaluate(
      ([key, base]) => (globalThis as unknown as { run: (k: string, b: string) => Promise<unknown> }).run(key!, base!),
      [account.key, `http://sdk.test:${relayPort}/v1`],
    )

    assert.deepEqual(out, {
      secureContext: false,
      randomUUID: 'undefined',
      guard: (out as { guard: string }).guard,
      pet: { id: (out as { pet: { id: string } }).pet.id, name: 'Rex', categoryId: '9223372036854775807' },
      replayed: 'true',
    })
    assert.match((out as { guard: string }).guard, /refusing to run in a browser.*dangerouslyAllowBrowser: true/s)
    assert.equal(posts.length, 2, 'the lost answer was retried once')
    assert.equal(posts[0]!['idempotency-key'], posts[1]!['idempotency-key'])
    assert.match(
      String(posts[0]!['idempotency-key']),
      /^"[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}"$/,
    )
    assert.deepEqual([posts[0]!['x-petstore-retry-count'], posts[1]!['x-petstore-retry-count']], [undefined, '1'])
    assert.doesNotMatch(String(posts[0]!['user-agent']), /petstore-sdk/, 'the browser sends its own User-Agent')
    assert.equal((await petsOf(h, account.accountId)).length, 1, 'one pet')
  },
)
