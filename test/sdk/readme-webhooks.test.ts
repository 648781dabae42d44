// The ```ts examples of sdk/README.md's Webhooks section: each compiles as TypeScript (strict,
// exactOptionalPropertyTypes, Node.js's types) against the package's sources, and the node:http receiver, run as
// written in its own process, handles a signed delivery once, and answers 400 to an altered one. (The Express one
// is a fragment, without its imports: not compiled.) No service: the deliveries are signed here.
import assert from 'node:assert/strict'
import { execFile, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { newEndpointSecret, signDelivery } from '../../src/modules/webhooks/signature.js'
import { freePort } from '../helpers/ports.js'
import { repoRoot } from '../helpers/root.js'

const readme = readFileSync(new URL('sdk/README.md', repoRoot), 'utf8')
const section = /^## Webhooks\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? ''
const examples = [...section.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1]!)
const compiled = examples.filter((example) => !example.includes('express.raw'))
const receiver = compiled.find((example) => example.includes('createServer'))
const sources = new URL('sdk/src/index.ts', repoRoot).pathname

test('the Webhooks section has a receiver, an Express fragment, and the endpoints and events examples', () => {
  assert.equal(examples.length, 4)
  assert.equal(compiled.length, 3)
  assert.ok(receiver)
})

test('every compiled example type-checks with strict and exactOptionalPropertyTypes', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sdk-webhooks-readme-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const files = compiled.map((_, i) => `example${i + 1}.mts`)
  await Promise.all(compiled.map((example, i) => writeFile(join(dir, files[i]!), example)))
  const compilerOptions = {
    module: 'nodenext',
    moduleResolution: 'nodenext',
    target: 'ES2022',
    lib: ['ES2022', 'DOM'],
    types: ['node'],
    typeRoots: [new URL('node_modules/@types', repoRoot).pathname],
    noEmit: true,
    strict: true,
    exactOptionalPropertyTypes: true,
    skipLibCheck: true,
    paths: { '@petstore/sdk': [sources] },
  }
  await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files }))
  const tsc = new URL('node_modules/typescript/bin/tsc', repoRoot).pathname
  await promisify(execFile)(process.execPath, [tsc, '-p', dir]).catch((err: { stdout?: string }) =>
    assert.fail(`tsc:\n${err.stdout}`),
  )
})

test('the node:http receiver handles a signed delivery once, and refuses an altered one with a 400', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sdk-webhooks-receiver-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const port = await freePort()
  const code = receiver!
    .replaceAll("from '@petstore/sdk'", `from '${sources}'`)
    .replace('.listen(3000)', `.listen(${port})`)
  assert.ok(code.includes(sources) && code.includes(`.listen(${port})`))
  const file = join(dir, 'receiver.mts')
  await writeFile(file, code)
  const secret = newEndpointSecret()
  const child = spawn(process.execPath, ['--import', 'tsx', file], {
    cwd: repoRoot.pathname,
    env: { ...process.env, PETSTORE_WEBHOOK_SECRET: secret },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  t.after(() => void child.kill())
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => void (stdout += chunk.toString('utf8')))

  const body =
    '{"id":"evt_1","type":"pet.created","timestamp":"2030-01-01T00:00:00.000Z",' +
    '"data":{"id":9223372036854775807,"name":"Rex","categoryId":1}}'
  const deliver = async (raw: string) => {
    const headers = {
      'content-type': 'application/json',
      ...signDelivery({ eventId: 'evt_1', body, secrets: [secret], at: new Date() }),
    }
    for (let wait = 0; ; wait++) {
      try {
        return (await fetch(`http://127.0.0.1:${port}/`, { method: 'POST', headers, body: raw })).status
      } catch (err) {
        if (wait > 100) throw err
        await new Promise((resolve) => setTimeout(resolve, 100)) // the receiver is still starting
      }
    }
  }
  assert.equal(await deliver(body), 204)
  assert.equal(await deliver(body), 204, 'again (at least once): answered, not handled twice')
  assert.equal(await deliver(body.replace('Rex', 'Rey')), 400)
  assert.equal(stdout, 'pet 9223372036854775807 (Rex) was added\n')
})
