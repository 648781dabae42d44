// Bundles the compiled CLI and server (dist/main/cli.js and everything it imports, dependencies included) into
// one ES module, dist/petstore.mjs, which bin/petstore.js runs. Why: Node 20 loads an ES module graph file by
// file, and ours is ~1,400 files (262 of them kysely's, which alone took ~0.25 s to import): start-up to the
// first answered request was ~1.4 s, ~0.95 s bundled (/healthz polled every 10 ms, median of 7). Node 20 has no
// compile cache for ES modules (module.enableCompileCache is Node 22), so one file is the way to load less.
// Left out of the bundle and loaded from node_modules as before:
// - better-sqlite3: a native addon;
// - @fastify/swagger-ui: serves its own files found next to its code (__dirname);
// - pg-native: an optional peer of pg that we do not install;
// - what src/ loads on first use through createRequire (ioredis, nodemailer, qrcode, pino-pretty, zxcvbn's
//   dictionaries): esbuild leaves those calls alone, so they stay lazy.
// CommonJS dependencies inside an ES module bundle need a `require` for Node's built-ins: the banner makes one.
// scripts/build-tests.mjs bundles the test files with the same options (APP_BUNDLE), so what runs in a test is built
// the way what runs in production is.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { build } from 'esbuild'
import { pathToFileURL } from 'node:url'

/** The commit being built (petstore_build_info's revision): PETSTORE_REVISION, else git's, else unknown. */
function revision() {
  if (process.env.PETSTORE_REVISION) return process.env.PETSTORE_REVISION
  try {
    return execFileSync('git', ['rev-parse', '--short=12', 'HEAD'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return 'unknown' // no git, or not a checkout (the image's build stage has no .git)
  }
}

export const APP_BUNDLE = {
  bundle: true,
  platform: 'node',
  format: 'esm',
  target: 'node20',
  external: ['better-sqlite3', '@fastify/swagger-ui', 'pg-native'],
  banner: {
    js:
      "import { createRequire as __bundleRequire } from 'node:module'; const require = " +
      '__bundleRequire(import.meta.url);',
  },
  logLevel: 'warning',
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await build({
    ...APP_BUNDLE,
    entryPoints: ['dist/main/cli.js'],
    outfile: 'dist/petstore.mjs',
    // A separate map for reading a stack trace by hand; node does not load it (that would cost start-up time).
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'linked',
  })
  // The webhook worker's delivery thread (src/main/webhook-sender.ts), a module of its own beside the service's.
  await build({
    ...APP_BUNDLE,
    entryPoints: ['dist/main/webhook-sender-thread.js'],
    outfile: 'dist/webhook-sender.mjs',
    legalComments: 'linked',
  })
  writeFileSync('dist/build-info.json', `${JSON.stringify({ revision: revision() })}\n`)
}
