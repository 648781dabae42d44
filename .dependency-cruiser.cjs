// The layers of src/ (docs/contributors/architecture.md) and the rules that keep them, checked by `npm run lint`.
// From the ground up: kernel < db, mail, ops < modules < api, sites, cli < main. Imports point down only;
// type-only imports count (tsPreCompilationDeps).
const layer = (name, path, mayUse) => ({
  name: `layers: ${name} imports only ${mayUse.join(', ')}`,
  severity: 'error',
  from: { path },
  to: { path: '^src/', pathNot: [path, ...mayUse.map((l) => `^src/${l}/`)] },
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
    {
      name: 'sites: the portal never imports the console',
      severity: 'error',
      from: { path: '^src/sites/portal/' },
      to: { path: '^src/sites/console/' },
    },
    {
      name: 'sites: the console never imports the portal',
      severity: 'error',
      from: { path: '^src/sites/console/' },
      to: { path: '^src/sites/portal/' },
    },
    {
      name: 'sites: the kit imports no site',
      severity: 'error',
      from: { path: '^src/sites/kit/' },
      to: { path: '^src/sites/(portal|console)/' },
    },
    {
      name: 'api: the transport imports no route',
      severity: 'error',
      from: { path: '^src/api/(platform|contract|guard)/' },
      to: { path: '^src/api/(v1|messages|admin|ops)/' },
    },
    {
      name: 'api: the contract is below the guard and the transport',
      severity: 'error',
      comment: 'Errors, schemas and paging are what the guard and the transport speak; they import neither.',
      from: { path: '^src/api/contract/' },
      to: { path: '^src/api/(guard|platform)/' },
    },
    {
      name: 'api: the guard is below the transport',
      severity: 'error',
      from: { path: '^src/api/guard/' },
      to: { path: '^src/api/platform/' },
    },
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
