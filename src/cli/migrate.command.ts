// `petstore migrate`: apply pending migrations, a line for each with how long it took. `petstore migrate status`:
// which migrations this version has applied (and when) and which are pending; it changes nothing. Migrations go
// forward only: to go back, restore the backup taken before the upgrade (docs/operators/operating.md, Upgrades).
import { Command } from 'commander'
import { loadConfig } from '../kernel/config.js'
import { openDatabase } from '../db/database.js'
import { migrateToLatest, migrationStatus } from '../db/migrate.js'
import { claimEnvironment } from '../db/settings.js'
import { openExisting, output } from './run.js'

export function migrateCommand(): Command {
  const migrate = new Command('migrate')
    .description('apply pending database migrations (forward only)')
    .action(async () => {
      const config = loadConfig()
      const handle = openDatabase(config.databaseUrl)
      try {
        const applied = await migrateToLatest(handle.db, {
          info: ({ migration, durationMs }) => process.stdout.write(`applied ${migration} (${durationMs} ms)\n`),
        })
        await claimEnvironment(handle.db, config.environment, handle.location)
        if (applied.length === 0) process.stdout.write('database is up to date\n')
      } finally {
        await handle.close()
      }
    })

  migrate
    .command('status')
    .description('list applied migrations (with when) and pending ones; changes nothing')
    .option('--json', 'print one JSON object')
    .action(async (opts: { json?: boolean }) => {
      // Read-only: status never creates or changes a file (a missing one is refused, naming DATABASE_URL).
      const handle = openExisting(loadConfig(), { readOnly: true })
      try {
        const all = await migrationStatus(handle.db)
        const applied = all.filter((m) => m.appliedAt !== null).map((m) => ({ name: m.name, appliedAt: m.appliedAt! }))
        const pending = all.filter((m) => m.appliedAt === null).map((m) => ({ name: m.name }))
        output(!!opts.json, { applied, pending }, () =>
          [
            ...applied.map((m) => `applied  ${m.name}  ${m.appliedAt}`),
            ...pending.map((m) => `pending  ${m.name}`),
            `${applied.length} applied, ${pending.length} pending (${handle.location})`,
          ].join('\n'),
        )
      } finally {
        await handle.close()
      }
    })

  return migrate
}
