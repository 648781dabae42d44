// The Dockerfile, compose.yaml and the systemd unit cannot be run here (no image registry, no systemd as PID 1):
// every file, script and command they name must exist, and compose must run the instances with the environment
// and HAProxy file that test/deploy/haproxy.test.ts runs. The image's health check is run for real.
import { randomBytes } from 'node:crypto'
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { test } from 'node:test'
import { promisify } from 'node:util'
import { loadConfig, settings } from '../../src/kernel/config.js'
import { runCli, tempDir } from '../helpers/cli.js'
import { spawnServe } from '../helpers/serve.js'
import { freePorts } from '../scale/support.js'
import { copyArgs, execForm, readDockerfile } from './dockerfile.js'
import { ADDRESS_SETTINGS, compose, composeInstanceEnv, deployFile, GIVEN_SETTINGS, untilReady } from './support.js'

const dockerfile = () => readDockerfile(deployFile('Dockerfile'))
const pkg = JSON.parse(readFileSync(deployFile('package.json'), 'utf8')) as { scripts: Record<string, string> }
const SETTING_NAMES = new Set(Object.values(settings).map((s) => s.env))
/**
 * What bin/petstore.js's first line gives node: `MALLOC_ARENA_MAX=2` and the V8 flags, as every way of starting it
 * should.
 */
const SHEBANG = /^#!\/usr\/bin\/env -S MALLOC_ARENA_MAX=(\d+) node (.*)$/m.exec(
  readFileSync(deployFile('bin/petstore.js'), 'utf8'),
)!
const [ARENAS, NODE_FLAGS] = [SHEBANG[1]!, SHEBANG[2]!.trim()]

/** `.dockerignore` here is `*` then `!path` exceptions: what the build context holds. */
function inContext(source: string): boolean {
  const lines = readFileSync(deployFile('.dockerignore'), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'))
  assert.equal(lines[0], '*', '.dockerignore starts by leaving everything out')
  return lines.some(
    (l) =>
      l.startsWith('!') &&
      (l.slice(1).replace(/\/$/, '') === source.replace(/\/$/, '') || source.startsWith(l.slice(1))),
  )
}

test(
  'Dockerfile: two stages; every file it copies exists and ' + 'is in the build context; the npm scripts it runs exist',
  () => {
    const steps = dockerfile()
    assert.ok(steps.filter((s) => s.name === 'FROM').length >= 2, 'multi-stage')
    const builtInStage0 = new Set<string>(['/app/node_modules', '/app/dist'])
    for (const copy of steps.filter((s) => s.name === 'COPY')) {
      const { sources } = copyArgs(copy.rest)
      for (const source of sources) {
        if (copy.flags.from !== undefined)
          assert.ok(builtInStage0.has(source), `COPY --from=${copy.flags.from} ${source}: not made by the build stage`)
        else {
          assert.ok(existsSync(deployFile(source)), `COPY ${source}: no such file`)
          assert.ok(inContext(source), `COPY ${source}: left out by .dockerignore`)
          builtInStage0.add(`/app/${source.replace(/\/$/, '')}`)
        }
      }
    }
    for (const run of steps.filter((s) => s.name === 'RUN')) {
      for (const m of run.rest.matchAll(/npm run (\S+)/g))
        assert.ok(pkg.scripts[m[1]!], `RUN npm run ${m[1]}: no such script`)
    }
    // `npm run build` writes dist/ (tsconfig.build.json's outDir), which the last stage copies.
    assert.match(readFileSync(deployFile('tsconfig.build.json'), 'utf8'), /"outDir": "dist"/)
  },
)

test(
  'Dockerfile: the last stage runs `node bin/petstore.js serve` as PID 1 (exec form), ' +
    'as a user that is not root, with settings the service accepts',
  async () => {
    const steps = dockerfile()
    const last = Math.max(...steps.map((s) => s.stage))
    const final = steps.filter((s) => s.stage === last)
    const cmd = execForm(final.find((s) => s.name === 'CMD')!.rest)
    // --create: the first start makes the database in the volume (DATABASE_URL is the image's own path).
    assert.deepEqual(cmd, ['node', 'bin/petstore.js', 'serve', '--create'])
    const help = await runCli(['serve', '--help'])
    assert.equal(help.code, 0, `petstore serve --help: ${help.stderr}`)
    const user = final.filter((s) => s.name === 'USER').at(-1)?.rest
    assert.ok(user && !/^(root|0)(:|$)/.test(user), `USER ${user}`)
    const env = Object.fromEntries(
      final
        .filter((s) => s.name === 'ENV')
        .flatMap((s) => [...s.rest.matchAll(/(\w+)=("[^"]*"|\S+)/g)].map((m) => [m[1]!, m[2]!.replace(/^"|"$/g, '')])),
    )
    assert.doesNotThrow(() => loadConfig(Object.fromEntries(Object.entries(env).filter(([k]) => SETTING_NAMES.has(k)))))
    assert.equal(env.HOST, '0.0.0.0', 'reachable from outside the container')
    assert.deepEqual(
      [env.MALLOC_ARENA_MAX, env.NODE_OPTIONS],
      [ARENAS, NODE_FLAGS],
      "bin/petstore.js's memory settings",
    )
  },
)

test(
  "Dockerfile's HEALTHCHECK (node's fetch, the image has no " +
    'curl) passes on a ready instance and fails once it has stopped',
  async (t) => {
    const check = dockerfile().find((s) => s.name === 'HEALTHCHECK')!
    const [program, ...args] = execForm(check.rest.replace(/^CMD\s+/, ''))
    assert.equal(program, 'node')
    // Liveness, not readiness: a database outage makes every instance unready at once, and an orchestrator that
    // restarted unhealthy containers would restart them all (docs/operators/operating.md, Health and metrics).
    assert.match(args.join(' '), /\/healthz/)
    const { file } = tempDir(t)
    const [port, messagesPort] = await freePorts(2)
    const server = spawnServe(t, {
      DATABASE_URL: file,
      HOST: '127.0.0.1',
      PORT: String(port),
      MESSAGES_PORT: String(messagesPort),
      LOG_LEVEL: 'warn',
    })
    const instance = { origin: `http://127.0.0.1:${port}`, process: server }
    await untilReady(instance)
    const health = () =>
      promisify(execFile)(process.execPath, args, {
        env: { PATH: process.env.PATH, PORT: String(port) },
        timeout: 10_000,
      }).then(
        () => 0,
        (e: { code?: number }) => e.code,
      )
    assert.equal(await health(), 0)
    await server.stop()
    assert.equal(await health(), 1)
  },
)

test(
  'compose.yaml: both instances get x-petstore-env, ' + 'which is the HAProxy test environment except for addresses',
  () => {
    const c = compose()
    const env = composeInstanceEnv()
    for (const name of ['migrate', 'app1', 'app2']) {
      assert.deepEqual(c.services[name].environment, env, name)
      assert.equal(c.services[name].build, '.')
    }
    // Migrations first, once (the HAProxy test runs `petstore migrate` the same way), then the instances.
    assert.deepEqual(c.services.migrate.command, ['node', 'bin/petstore.js', 'migrate'])
    for (const name of ['app1', 'app2'])
      assert.equal(c.services[name].depends_on.migrate.condition, 'service_completed_successfully')
    assert.ok(existsSync(deployFile('Dockerfile')))
    for (const key of Object.keys(env)) assert.ok(SETTING_NAMES.has(key), `${key} is not a setting`)
    const resolved = {
      ...env,
      DATABASE_URL: env.DATABASE_URL!.replace(/\$\{POSTGRES_PASSWORD[^}]*\}/, 'secret'),
      PETSTORE_SECRETS_KEY: randomBytes(32).toString('base64'),
    }
    assert.match(env.PETSTORE_SECRETS_KEY!, /^\$\{PETSTORE_SECRETS_KEY:\?/, 'compose refuses to start without the key')
    assert.doesNotThrow(() => loadConfig(resolved))
    // What the HAProxy test sets itself is only where things are; each of these, here, points where compose puts it.
    const database = new URL(resolved.DATABASE_URL)
    const postgres = c.services[database.hostname].environment
    assert.deepEqual(
      [database.username, database.pathname, database.port],
      [postgres.POSTGRES_USER, `/${postgres.POSTGRES_DB}`, '5432'],
    )
    assert.equal(
      c.services[database.hostname].environment.POSTGRES_PASSWORD,
      env.DATABASE_URL!.match(/\$\{POSTGRES_PASSWORD[^}]*\}/)![0],
    )
    assert.ok(c.services[new URL(env.REDIS_URL!).hostname].image.startsWith('redis:'))
    const haproxy = c.services.haproxy
    assert.equal(env.TRUST_PROXY, haproxy.networks.petstore.ipv4_address, 'TRUST_PROXY is the proxy address')
    assert.equal(env.HOST, '0.0.0.0')
    assert.deepEqual(
      [haproxy.environment.PETSTORE_APP1, haproxy.environment.PETSTORE_APP2],
      [`app1:${env.PORT}`, `app2:${env.PORT}`],
    )
    const [published, inside] = String(haproxy.ports[0]).split(':')
    assert.equal(haproxy.environment.PETSTORE_LISTEN, `:${inside}`)
    assert.equal(new URL(env.PETSTORE_PUBLIC_URL!).port, published)
    // The console: its own port, published by app1 on the host's loopback only, at the origin its links name.
    assert.deepEqual(c.services.app1.ports, [`127.0.0.1:${env.CONSOLE_PORT}:${env.CONSOLE_PORT}`])
    assert.equal(c.services.app2.ports, undefined)
    assert.deepEqual([env.CONSOLE, env.CONSOLE_HOST], ['on', '0.0.0.0'])
    assert.equal(env.CONSOLE_PUBLIC_URL, `http://localhost:${env.CONSOLE_PORT}`)
    assert.deepEqual(
      Object.keys(env)
        .filter((k) => ![...ADDRESS_SETTINGS, ...GIVEN_SETTINGS].includes(k as never))
        .sort(),
      ['CONSOLE', 'LOG_LEVEL', 'PETSTORE_ENV', 'PORTAL', 'RATE_LIMIT_FALLBACK_DIVISOR'],
      'the settings the HAProxy test takes from compose as they are',
    )
  },
)

test(
  'compose.yaml: HAProxy runs deploy/haproxy.cfg, ' + 'every variable it reads is set, every file it names exists',
  () => {
    const haproxy = compose().services.haproxy
    assert.deepEqual(
      haproxy.volumes,
      ['./deploy:/usr/local/etc/haproxy:ro'],
      'the official image reads /usr/local/etc/haproxy/haproxy.cfg',
    )
    const cfg = readFileSync(deployFile('deploy/haproxy.cfg'), 'utf8')
    const variables = [...cfg.matchAll(/"\$\{(\w+)\}"/g)].map((m) => m[1]!)
    assert.deepEqual([...new Set(variables)].sort(), Object.keys(haproxy.environment).sort())
    for (const m of cfg.matchAll(/^\s*errorfile \d+ (\S+)/gm)) assert.ok(existsSync(deployFile(`deploy/${m[1]}`)), m[1])
  },
)

test(
  'deploy/petstore.service: a dedicated user, restarts on failure, ' +
    'reads /etc/petstore/petstore.env, hardened, writes only its data directory',
  (t) => {
    const unit = readFileSync(deployFile('deploy/petstore.service'), 'utf8')
    const value = (key: string) => [...unit.matchAll(new RegExp(`^${key}=(.*)$`, 'gm'))].map((m) => m[1]!)
    assert.deepEqual(value('User'), ['petstore'])
    assert.deepEqual(value('Restart'), ['on-failure'])
    assert.deepEqual(value('EnvironmentFile'), ['/etc/petstore/petstore.env'])
    for (const key of ['NoNewPrivileges', 'ProtectHome', 'PrivateTmp', 'PrivateDevices', 'RestrictSUIDSGID'])
      assert.deepEqual(value(key), ['yes'], key)
    assert.deepEqual(value('ProtectSystem'), ['strict'])
    assert.deepEqual(value('ReadWritePaths'), ['/var/lib/petstore'])
    assert.deepEqual(value('StateDirectory'), ['petstore'])
    // It runs in its data directory, so relative paths (the default database and outbox) land where it may write,
    // and its default database is there: an untouched .env.example (every line a comment) starts it.
    assert.deepEqual(value('WorkingDirectory'), ['/var/lib/petstore'])
    const [exec] = value('ExecStart')
    assert.equal(exec, `/usr/bin/node ${NODE_FLAGS} /opt/petstore/bin/petstore.js serve --create`)
    assert.deepEqual(value('Environment'), [`MALLOC_ARENA_MAX=${ARENAS}`, 'DATABASE_URL=/var/lib/petstore/petstore.db'])
    const example = readFileSync(deployFile('.env.example'), 'utf8')
    assert.deepEqual(
      example.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')),
      [],
      '.env.example sets nothing',
    )
    assert.ok(existsSync(deployFile('bin/petstore.js')))
    if (spawnSync('systemd-analyze', ['--version']).error)
      return t.skip('systemd-analyze is not installed: the unit is not verified')
    if (!existsSync('/usr/bin/node')) return t.skip('no /usr/bin/node here: systemd-analyze verify would only say so')
    const verify = spawnSync('systemd-analyze', ['verify', deployFile('deploy/petstore.service')], { encoding: 'utf8' })
    assert.equal(verify.status, 0, verify.stderr)
    assert.equal(verify.stderr.trim(), '', 'systemd-analyze verify has something to say')
  },
)

test('.ci/run installs haproxy and nginx when they are missing', () => {
  const run = readFileSync(deployFile('.ci/run'), 'utf8')
  assert.match(run, /apt-get install -y[^\n]*\bhaproxy\b/)
  assert.match(run, /apt-get install -y[^\n]*\bnginx\b/)
})

test(
  'installing downloads no binary: prebuild-install, ' +
    'as npm runs it for better-sqlite3 (npm ci, the image), is set to compile',
  () => {
    // prebuild-install's own settings, resolved from the package's folder as its install script runs there.
    const packageDir = deployFile('node_modules/better-sqlite3')
    const rc = JSON.stringify(deployFile('node_modules/prebuild-install/rc.js'))
    const readSettings = `process.stdout.write(JSON.stringify(require(${rc})(require('./package.json'))))`
    const resolved = spawnSync(process.execPath, ['-e', readSettings], {
      cwd: packageDir,
      encoding: 'utf8',
      env: { PATH: process.env.PATH },
    })
    assert.equal(resolved.status, 0, resolved.stderr)
    assert.equal(
      String((JSON.parse(resolved.stdout) as { buildFromSource: unknown }).buildFromSource),
      'true',
      resolved.stdout,
    )
    const installScript = (
      JSON.parse(readFileSync(`${packageDir}/package.json`, 'utf8')) as { scripts: { install: string } }
    ).scripts.install
    assert.match(
      installScript,
      /^prebuild-install \|\| node-gyp rebuild/,
      'better-sqlite3 still installs through prebuild-install',
    )
    // The image's build stage has the file before it compiles better-sqlite3.
    const steps = dockerfile()
    const copied = steps.findIndex((s) => s.name === 'COPY' && copyArgs(s.rest).sources.includes('.prebuild-installrc'))
    const rebuilt = steps.findIndex((s) => s.name === 'RUN' && /npm rebuild better-sqlite3/.test(s.rest))
    assert.ok(copied >= 0 && copied < rebuilt, 'COPY .prebuild-installrc comes before npm rebuild better-sqlite3')
  },
)
