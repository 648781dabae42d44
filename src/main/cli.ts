// `npx petstore …`: serve the API, run migrations, back up, manage accounts and keys. Exit codes: 0 done (also
// --help and --version), 2 a usage error (Commander's, or a value a command refuses), 1 a failure at run time.
import { CommanderError } from 'commander'
import { buildProgram } from './program.js'
import { fail, USAGE_EXIT } from '../cli/run.js'
import { loadEnvFile } from '../kernel/env-file.js'

try {
  // Before any setting is read: the working directory's .env, or PETSTORE_ENV_FILE's (the environment wins).
  loadEnvFile()
  await buildProgram().parseAsync(process.argv)
} catch (error) {
  // Commander has already printed its one line (or the help text, for a command given without a sub-command).
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : USAGE_EXIT)
  fail(error)
}
