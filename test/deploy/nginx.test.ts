// deploy/nginx.conf, the file itself with its addresses filled in as its header says (envsubst of the named
// variables), run unprivileged from a temporary prefix, in front of two real instances on PostgreSQL + Redis with
// compose.yaml's environment: see scenario.ts for what it must do.
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { postgresOnly } from '../helpers/backend.js'
import { proxyBehaviour, type StartProxy } from './scenario.js'
import { deployFile, installed, runningProxy } from './support.js'

const nginx = installed('nginx')

/** envsubst of the variables its header names, and only those: nginx's own $variables stay. */
export function renderNginxConf(values: Record<string, string>): string {
  const rendered = readFileSync(deployFile('deploy/nginx.conf'), 'utf8').replace(
    /\$\{(PETSTORE_\w+)\}/g,
    (all, name: string) => values[name] ?? all,
  )
  assert.doesNotMatch(rendered.replace(/^\s*#.*$/gm, ''), /\$\{/, 'a variable of deploy/nginx.conf is not filled in')
  return rendered
}

const startNginx: StartProxy = async (t, addresses) => {
  const prefix = mkdtempSync(join(tmpdir(), 'petstore-nginx-'))
  t.after(async () => rmSync(prefix, { recursive: true, force: true }))
  const conf = join(prefix, 'nginx.conf')
  writeFileSync(conf, renderNginxConf({ ...addresses, PETSTORE_ACCESS_LOG: join(prefix, 'access.log') }))
  // -p: temp files (client bodies, proxy buffers) under a folder we may write; -e: the error log on stderr.
  const child = spawn(
    nginx!,
    ['-p', prefix, '-e', 'stderr', '-c', conf, '-g', `daemon off; pid ${join(prefix, 'nginx.pid')};`],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  return runningProxy(t, child, 'nginx', addresses.PETSTORE_LISTEN)
}

test(
  'nginx with deploy/nginx.conf: /metrics refused, a GET answered 503 by an instance without its database retried ' +
    'on the other, X-Forwarded-For for TRUST_PROXY, no request lost when an instance stops, JSON 503 with none',
  async (t) => {
    if (postgresOnly(t)) return
    if (!nginx) return t.skip('nginx is not installed (apt-get install nginx; .ci/run installs it)')
    await proxyBehaviour(t, startNginx, { getsRetried: true })
  },
)
