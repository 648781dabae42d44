#!/usr/bin/env -S MALLOC_ARENA_MAX=2 node --max-semi-space-size=4 --max-old-space-size=128
// The CLI runs the compiled output, bundled into one file (scripts/bundle.mjs says why); `npm install` / `npm ci`
// build it through the `prepare` script.
// Memory settings (above, taken when this file is run as a program, e.g. `npx petstore serve`): V8's young
// generation 4 MiB per semi-space and old generation at most 128 MiB, and two malloc arenas. The service's live
// heap is ~35 MiB; with V8's defaults it lets garbage pile up to ~100 MiB of old space before collecting, RSS
// under write load passes 180 MB, and every thread that writes the log gets a malloc arena of its own.
// To give it more heap, run `node --max-old-space-size=512 bin/petstore.js serve`. `npm start` runs node with the
// same settings (package.json, held equal by test/readme.test.ts), through `exec` so that node gets the stop signal.
import { existsSync } from 'node:fs'
const entry = new URL('../dist/petstore.mjs', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write('petstore: the build is missing; run `npm run build` first\n')
  process.exit(1)
}
await import(entry.href)
