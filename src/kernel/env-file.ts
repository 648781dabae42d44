// `.env`: the settings file `petstore` and `npm start` read before any setting (copy .env.example to start one).
// The working directory's `.env` when it exists, or the file PETSTORE_ENV_FILE names (which must exist). Variables
// already in the environment win over the file, so a deploy's own settings, a shell's `PORT=… npm start` and the
// systemd unit's come first. The file is parsed by Node.js itself (process.loadEnvFile: `NAME=value` lines,
// comments, quotes).
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

/** Reads the settings file into `process.env`; returns its path, or undefined when there is none. */
export function loadEnvFile(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  const named = env.PETSTORE_ENV_FILE
  const path = resolve(cwd, named || '.env')
  if (!named && !existsSync(path)) return undefined
  try {
    process.loadEnvFile(path)
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message
    throw new Error(`cannot read the settings file ${named ? `PETSTORE_ENV_FILE=${named} (${path})` : path}: ${reason}`)
  }
  return path
}
