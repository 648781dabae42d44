// Marks dist/cjs/ as CommonJS: the package is "type": "module", so without this file Node.js and TypeScript would
// read dist/cjs/*.js (and its .d.ts) as ES modules.
import { writeFileSync } from 'node:fs'

writeFileSync(
  new URL('../dist/cjs/package.json', import.meta.url),
  `${JSON.stringify({ type: 'commonjs' }, null, 2)}\n`,
)
