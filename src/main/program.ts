// The `petstore` command tree, and how every command of it reports a usage error: one line on stderr naming the
// unknown command or option (with Commander's suggestion), the bad value or the missing argument, and exit 2.
import { Command, Option } from 'commander'
import { loadConfig } from '../kernel/config.js'
import type { Interface } from './server.js'
import { packageInfo } from '../kernel/version.js'
import { accountsCommand } from '../cli/accounts.command.js'
import { auditCommand } from '../cli/audit.command.js'
import { backupCommand } from '../cli/backup.command.js'
import { keysCommand } from '../cli/keys.command.js'
import { migrateCommand } from '../cli/migrate.command.js'
import { operatorsCommand } from '../cli/operators.command.js'
import { positiveInteger } from '../cli/run.js'

/** Control and formatting characters of a value a user typed, made visible (`\u{202e}`) so the line stays one line. */
const visible = (text: string) =>
  text.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`)

/**
 * `error: unknown option '--jsn'\n(Did you mean --json?)\n` →
 * `petstore: unknown option '--jsn' (Did you mean --json?); see petstore keys list --help`.
 */
function oneLine(cmd: Command, text: string): string {
  const path: string[] = []
  for (let c: Command | null = cmd; c; c = c.parent) path.unshift(c.name())
  const parts = text
    .replace(/^error: /, '')
    .split('\n')
    .map((part) => visible(part).trim())
    .filter(Boolean)
  return `petstore: ${parts.join(' ').replace(/\.$/, '')}; see \`${path.join(' ')} --help\`\n`
}

/**
 * Commander's own hooks, on every command (a command added with addCommand inherits nothing from its parent):
 * throw instead of exiting (main.ts picks the exit code), one-line errors, suggestions for a mistyped name.
 */
function reportUsageErrors(cmd: Command): void {
  cmd
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: (text, write) => write(oneLine(cmd, text)) })
  for (const sub of cmd.commands) reportUsageErrors(sub)
}

export function buildProgram(): Command {
  const program = new Command('petstore')
    .description('Pet store API service. Every command reads DATABASE_URL and PETSTORE_ENV.')
    .version(packageInfo().version, '-V, --version', 'print the version')

  program
    .command('serve')
    .description('migrate the database and serve the pet store (HOST, PORT) and the messages interface (MESSAGES_PORT)')
    .addOption(new Option('--only <interface>', 'serve only one of the two').choices(['pets', 'messages']))
    .option(
      '--workers <n>',
      'processes on this machine (PETSTORE_WORKERS; more than 1 needs REDIS_URL)',
      positiveInteger,
    )
    .option(
      '--create',
      'start a new SQLite database if DATABASE_URL names none (without it only the default path, ./data/petstore.db, ' +
        'is created: a mistyped path is refused)',
    )
    .action(async (opts: { only?: Interface; workers?: number; create?: boolean }) => {
      const config = loadConfig(
        opts.workers === undefined ? process.env : { ...process.env, PETSTORE_WORKERS: String(opts.workers) },
      )
      // Loaded only to serve: the web framework and every route would otherwise cost every other command ~1 s of
      // start-up.
      const { serve } = await import('./cluster.js')
      // The first start of `npm start` (DATABASE_URL not set) makes its database; any other path must exist.
      await serve(config, { only: opts.only, create: opts.create === true || !process.env.DATABASE_URL })
    })

  program.addCommand(migrateCommand())
  program.addCommand(backupCommand())
  program.addCommand(accountsCommand())
  program.addCommand(keysCommand())
  program.addCommand(operatorsCommand())
  program.addCommand(auditCommand())
  reportUsageErrors(program)
  return program
}
