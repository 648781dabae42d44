// The layers of src/ (docs/contributors/architecture.md) and the rules that keep them, checked by `npm run lint`.
// From the ground up: kernel < db, mail, ops < modules < api, sites, cli < main. Imports point down only;
// type-only imports count (tsPreCompilationDeps).
const layer = (name, path, mayUse) => ({
  name: `layers: ${name} imports only ${mayUse.join(', ')}`,
  severity: 'error',
  from: { path },
  to: { path: '^src/', pathNot: [path, ...mayUse.map((l) => `^src/${l}/`)] },
})
/** Files under `from` never import files under `to`. */
const never = (name, from, to, comment) => ({
  name,
  severity: 'error',
  ...(comment ? { comment } : {}),
  from: { path: from },
  to: { path: to },
})

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A type two files share goes in a file of its own.',
      from: {},
      to: { circular: true },
    },
    layer('kernel', '^src/kernel/', ['kernel']),
    layer('infrastructure (db)', '^src/db/', ['kernel']),
    layer('infrastructure (mail)', '^src/mail/', ['kernel', 'ops']),
    layer('infrastructure (ops)', '^src/ops/', ['kernel', 'db']),
    layer('modules', '^src/modules/', ['kernel', 'db', 'mail', 'ops', 'modules']),
    layer('the API', '^src/api/', ['kernel', 'db', 'mail', 'ops', 'modules', 'api']),
    layer('the sites', '^src/sites/', ['kernel', 'db', 'mail', 'ops', 'modules', 'sites']),
    layer('the CLI', '^src/cli/', ['kernel', 'db', 'mail', 'ops', 'modules', 'cli']),
    {
      name: 'modules: no HTTP framework or schema library',
      severity: 'error',
      comment: 'A module speaks its own outcomes; the API and the sites turn them into HTTP.',
      from: { path: '^src/modules/' },
      to: { path: ['(^|/)node_modules/(fastify|@fastify/|fastify-plugin|typebox|@sinclair/typebox)'] },
    },
    never('sites: the portal never imports the console', '^src/sites/portal/', '^src/sites/console/'),
    never('sites: the console never imports the portal', '^src/sites/console/', '^src/sites/portal/'),
    never('sites: the kit imports no site', '^src/sites/kit/', '^src/sites/(portal|console)/'),
    never(
      'api: the transport imports no route',
      '^src/api/(platform|contract|guard)/',
      '^src/api/(v1|messages|admin|ops)/',
    ),
    never(
      'api: the contract is below the guard and the transport',
      '^src/api/contract/',
      '^src/api/(guard|platform)/',
      'Errors, schemas and paging are what the guard and the transport speak; they import neither.',
    ),
    never('api: the guard is below the transport', '^src/api/guard/', '^src/api/platform/'),
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    exclude: { path: ['^dist/', '^\\.test-build/', '^sdk/'] },
  },
}
