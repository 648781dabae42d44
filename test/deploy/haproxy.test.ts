// deploy/haproxy.cfg, the file itself (its addresses come from the environment), in front of two real instances
// on PostgreSQL + Redis running with compose.yaml's environment: see scenario.ts for what it must do.
import { spawn } from 'node:child_process'
import { test } from 'node:test'
import { postgresOnly } from '../helpers/backend.js'
import { proxyBehaviour, type StartProxy } from './scenario.js'
import { deployFile, installed, runningProxy } from './support.js'

const haproxy = installed('haproxy')

const startHaproxy: StartProxy = async (t, addresses) => {
  // -db: in the foreground, logs on stdout/stderr (as in a container).
  const child = spawn(haproxy!, ['-db', '-f', deployFile('deploy/haproxy.cfg')], {
    env: { ...process.env, ...addresses },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  return runningProxy(t, child, 'haproxy', addresses.PETSTORE_LISTEN)
}

test(
  'HAProxy with deploy/haproxy.cfg: /metrics refused, an instance without its database taken out (/readyz), ' +
    'X-Forwarded-For for TRUST_PROXY, no request lost when an instance stops, JSON 503 with none',
  async (t) => {
    if (postgresOnly(t)) return
    if (!haproxy) return t.skip('haproxy is not installed (apt-get install haproxy; .ci/run installs it)')
    await proxyBehaviour(t, startHaproxy, { takenOut: /Server instances\/app1 is DOWN/ })
  },
)
