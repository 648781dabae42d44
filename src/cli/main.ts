// `npx petstore …`: serve the API, run migrations, manage accounts and keys.
import { Command, CommanderError, Option } from 'commander'
import { loadConfig } from '../config.js'
import { openDatabase } from '../db/database.js'
import { migrateToLatest } from '../db/migrate.js'
import { claimEnvironment } from '../db/settings.js'
import { serve } from '../cluster.js'
import type { Interface } from '../server.js'
import { accountsCommand } from './accounts.command.js'
import { keysCommand } from './keys.command.js'
import { packageInfo } from '../version.js'
import { fail } from './run.js'

const program = new Command('petstore')
  .description('Pet store API service. Every command reads DATABASE_URL and PETSTORE_ENV.')
  .version(packageInfo().version, '-V, --version', 'print the version')
  .exitOverride()
  // One line on stderr: Commander's message with the usage hint appended (showHelpAfterError would add a second line).
  .configureOutput({ outputError: (text, write) => write(`${text.split('\n')[0]} (run with --help for usage)\n`) })

program
  .command('serve')
  .description('migrate the database and serve the pet store (HOST, PORT) and the messages interface (MESSAGES_PORT)')
  .addOption(new Option('--only <interface>', 'serve only one of the two').choices(['pets', 'messages']))
  .option('--workers <n>', 'processes on this machine (PETSTORE_WORKERS; more than 1 needs REDIS_URL)')
  .action((opts: { only?: Interface; workers?: string }) =>
    serve(loadConfig(opts.workers === undefined ? process.env : { ...process.env, PETSTORE_WORKERS: opts.workers }), { only: opts.only }),
  )

program
  .command('migrate')
  .description('apply pending database migrations')
  .action(async () => {
    const config = loadConfig()
    const handle = openDatabase(config.databaseUrl)
    try {
      const applied = await migrateToLatest(handle.db)
      await claimEnvironment(handle.db, config.environment, handle.location)
      process.stdout.write(applied.length === 0 ? 'database is up to date\n' : `applied ${applied.join(', ')}\n`)
    } finally {
      await handle.close()
    }
  })

program.addCommand(accountsCommand())
program.addCommand(keysCommand())

try {
  await program.parseAsync(process.argv)
} catch (error) {
  // Commander has already printed its one-line message; help and version exit 0.
  if (error instanceof CommanderError) process.exit(error.exitCode)
  fail(error)
}
