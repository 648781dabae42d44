// .env.example as src/kernel/config.ts's settings list makes it: every setting, its documentation and its default, in
// the list's order. test/deploy/env-example.test.ts holds the file to it; after changing a setting, write it again:
//   npx tsx test/deploy/env-example.ts > .env.example
import { settings } from '../../src/kernel/config.js'

const HEADER =
  '# Every setting of the service, with its default (src/kernel/config.ts is the source; ' +
  `test/deploy/env-example.test.ts
# keeps this file equal to it). Copy it to /etc/petstore/petstore.env (deploy/petstore.service reads it) or to .env,
# and uncomment what you change: a commented-out line keeps the default. A production deployment sets at least
# PETSTORE_ENV=production, DATABASE_URL, REDIS_URL with more than one instance, TRUST_PROXY behind a proxy, and
# PETSTORE_PUBLIC_URL. Keep the file readable by root and the service only: it holds passwords and secrets.
`

/** Words of `text` on lines of at most `width` characters, each starting with `# `. */
function comment(text: string, width = 118): string[] {
  const lines: string[] = []
  let line = '#'
  for (const word of text.split(/\s+/)) {
    if (line.length + 1 + word.length > width && line !== '#') {
      lines.push(line)
      line = '#'
    }
    line += ` ${word}`
  }
  return [...lines, line]
}

/** A value as systemd's EnvironmentFile and compose's env_file both read it: quoted when it has spaces or quotes. */
const quoted = (value: string) => (/[\s"'#$\\]/.test(value) ? `"${value.replace(/[\\"$]/g, '\\$&')}"` : value)

export function renderEnvExample(): string {
  const blocks = Object.values(settings).map((s) => {
    const unset = s.default === undefined ? ['# (no default: unset)'] : []
    return [...comment(s.doc), ...unset, `#${s.env}=${s.default === undefined ? '' : quoted(s.default)}`].join('\n')
  })
  return `${HEADER}\n${blocks.join('\n\n')}\n`
}

if (import.meta.url === `file://${process.argv[1]}`) process.stdout.write(renderEnvExample())
