// @petstore/sdk as a user installs it: `npm pack` of the workspace, installed in a fresh folder outside the
// repository, then used from an ES module, a CommonJS script (`require`) and a TypeScript `.cts` file (and an
// `.mts` one) compiled with `exactOptionalPropertyTypes`, each creating a pet in the real service. Nothing comes
// from the network: lossless-json is packed from node_modules too, and both tarballs are installed with --offline.
// Uses sdk/dist as built by `npm run build` (npm test builds first); the pack does not rebuild it.
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { startHarness } from '../helpers/harness.js'
import { repoRoot } from '../helpers/root.js'

const run = promisify(execFile)
const root = repoRoot.pathname
const tsc = join(root, 'node_modules/typescript/bin/tsc')

async function installedConsumer(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  assert.ok(
    existsSync(join(root, 'sdk/dist/cjs/index.js')),
    'sdk/dist is missing: run `npm run build` first (npm test does)',
  )
  const dir = await mkdtemp(join(tmpdir(), 'sdk-consumer-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const quiet = ['--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error']
  await run('npm', ['pack', '-w', '@petstore/sdk', '--pack-destination', dir, '--ignore-scripts', '--silent'], {
    cwd: root,
  })
  await run('npm', ['pack', join(root, 'node_modules/lossless-json'), '--ignore-scripts', '--silent'], { cwd: dir })
  await writeFile(join(dir, 'package.json'), '{ "name": "consumer", "private": true }\n')
  await run('npm', ['install', './petstore-sdk-1.0.0.tgz', './lossless-json-4.3.3.tgz', '--offline', ...quiet], {
    cwd: dir,
  })
  return dir
}

const createPet = (name: string) => `const ps = new Petstore({ apiKey: process.env.KEY, baseUrl: process.env.BASE })
ps.pets.create({ name: '${name}', categoryId: 9223372036854775807n }).then((pet) =>
  console.log(JSON.stringify({ pet, version: SDK_VERSION }, toJSON)))`

const typed =
  "import { Petstore, toJSON, type NewPet, type PetstoreOptions, type WithResponse, type Pet } from '@petstore/sdk'" +
  `
declare const settings: { key: string; base: string }
const options: PetstoreOptions = { apiKey: settings.key, baseUrl: settings.base, ` +
  `maxRetries: undefined, logger: undefined }
const pet: NewPet = { name: 'Typed', categoryId: 1, status: undefined }
export async function main(): Promise<string> {
  const created: WithResponse<Pet> = await new Petstore(options).pets.create(pet).withResponse()
  const page = await new Petstore(options).pets.listPage({ limit: 1, cursor: undefined })
  return JSON.stringify([created.data.name, typeof created.data.id, typeof page.nextCursor], toJSON)
}
`

test(
  'installed from npm pack in a fresh folder: ' + 'ES module, require(), and .cts/.mts TypeScript all work',
  async (t) => {
    const dir = await installedConsumer(t)
    const h = await startHarness(t, { listen: true })
    const env = {
      ...process.env,
      KEY: (await h.newAccount({ plan: 'enterprise', perMinute: 1000, perDay: 10_000 })).key,
      BASE: `${h.baseUrl}/v1`,
    }
    await writeFile(
      join(dir, 'esm.mjs'),
      `import { Petstore, SDK_VERSION, toJSON } from '@petstore/sdk'\n${createPet('Esm')}\n`,
    )
    await writeFile(
      join(dir, 'cjs.cjs'),
      `const { Petstore, SDK_VERSION, toJSON } = require('@petstore/sdk')\n${createPet('Cjs')}\n`,
    )
    for (const [file, name] of [
      ['esm.mjs', 'Esm'],
      ['cjs.cjs', 'Cjs'],
    ] as const) {
      const { stdout } = await run(process.execPath, [file], { cwd: dir, env })
      const { pet, version } = JSON.parse(stdout) as { pet: Record<string, unknown>; version: string }
      assert.deepEqual({ ...pet, id: typeof pet.id }, { id: 'string', name, categoryId: '9223372036854775807' }, file)
      assert.equal(version, '1.0.0')
    }
    const { stdout: required } = await run(
      process.execPath,
      [
        '-e',
        "const sdk = require('@petstore/sdk'); console.log(require.resolve('@petstore/sdk'), " +
          'typeof sdk.RateLimitError, ' +
          "new sdk.RateLimitError('x', 429, undefined, undefined, new Headers()) instanceof sdk.PetstoreError)",
      ],
      { cwd: dir },
    )
    assert.match(required.trim(), /node_modules\/@petstore\/sdk\/dist\/cjs\/index\.js function true$/)

    // TypeScript consumers: the .cts file resolves the `require` types, the .mts file the `import` ones; a wrong or
    // missing condition fails to compile (TS1479 or TS2307). Compiled, each runs against the service.
    await writeFile(join(dir, 'typed.cts'), typed)
    await writeFile(join(dir, 'typed.mts'), typed)
    const compilerOptions = {
      module: 'node16',
      moduleResolution: 'node16',
      target: 'ES2022',
      lib: ['ES2022', 'DOM'],
      types: [],
      strict: true,
      exactOptionalPropertyTypes: true,
      outDir: 'out',
    }
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions, files: ['typed.cts', 'typed.mts'] }))
    await run(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: dir }).catch((err: { stdout?: string }) =>
      assert.fail(`tsc: ${err.stdout}`),
    )
    const settings = `globalThis.settings = ${JSON.stringify({ key: env.KEY, base: env.BASE })}`
    for (const load of ["require('./out/typed.cjs')", "await import('./out/typed.mjs')"]) {
      const script = `${settings}; (async () => console.log(await (${load}).main()))()`
      const { stdout } = await run(process.execPath, ['-e', script], { cwd: dir })
      assert.deepEqual(JSON.parse(stdout), ['Typed', 'bigint', 'string'], load)
    }
  },
)
