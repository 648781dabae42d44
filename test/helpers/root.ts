// The repository's root folder (a file: URL ending in /). Found by walking up to package-lock.json rather than as
// a path relative to this file, because the suite also runs from a compiled copy one folder deeper
// (.test-build/, see scripts/build-tests.mjs), where the repository's other files are not copied.
import { existsSync } from 'node:fs'

function findRoot(): URL {
  for (let dir = new URL('./', import.meta.url); dir.pathname !== '/'; dir = new URL('../', dir)) {
    if (existsSync(new URL('package-lock.json', dir))) return dir
  }
  throw new Error(`no package-lock.json above ${import.meta.url}`)
}

export const repoRoot: URL = findRoot()
