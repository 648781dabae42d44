#!/usr/bin/env node
// The CLI runs the compiled output; `npm install` / `npm ci` build it through the `prepare` script.
import { existsSync } from 'node:fs'
const entry = new URL('../dist/cli/main.js', import.meta.url)
if (!existsSync(entry)) {
  process.stderr.write('petstore: the build is missing; run `npm run build` first\n')
  process.exit(1)
}
await import(entry.href)
