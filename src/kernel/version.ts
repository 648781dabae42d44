// The service's name and version, from package.json: one source for `GET /` and `petstore --version`; and the
// revision it was built from.
import { existsSync, readFileSync } from 'node:fs'

interface PackageInfo {
  name: string
  version: string
}

/**
 * Where package.json is seen from this file: the program (dist/petstore.mjs, one bundle) or the sources (src/kernel/).
 */
const PLACES = ['../package.json', '../../package.json'].map((path) => new URL(path, import.meta.url))

/**
 * The commit the program was built from: written by the build (scripts/bundle.mjs: dist/build-info.json, from git or
 * PETSTORE_REVISION), next to the bundle or the compiled kernel; `unknown` when there is none (the sources, a build
 * without git).
 */
const BUILD_INFO = ['./build-info.json', '../build-info.json'].map((path) => new URL(path, import.meta.url))

export function buildRevision(): string {
  const found = BUILD_INFO.find((url) => existsSync(url))
  if (!found) return 'unknown'
  try {
    const { revision } = JSON.parse(readFileSync(found, 'utf8')) as { revision?: unknown }
    return typeof revision === 'string' && revision !== '' ? revision : 'unknown'
  } catch {
    return 'unknown'
  }
}

/** Read when called. */
export function packageInfo(): PackageInfo {
  const found = PLACES.find((url) => existsSync(url)) ?? PLACES[0]!
  const pkg = JSON.parse(readFileSync(found, 'utf8')) as PackageInfo
  return { name: pkg.name, version: pkg.version }
}
