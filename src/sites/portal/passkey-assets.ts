// The browser half of passkeys, @simplewebauthn/browser's own bundle, served from our origin (/portal/assets/
// webauthn.js: the CSP allows scripts from 'self' only, and no CDN is trusted with the log-in page). Read once, at
// start-up, from the installed package.
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'

export function webauthnBrowserScript(): string {
  // The package exports only its entry points: its bundle is found beside the CommonJS entry (script/index.js).
  const entry = createRequire(import.meta.url).resolve('@simplewebauthn/browser')
  return readFileSync(join(dirname(entry), '..', 'dist', 'bundle', 'index.umd.min.js'), 'utf8')
}
