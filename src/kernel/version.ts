// The service's name and version, from package.json: one source for `GET /` and `petstore --version`.
import { existsSync, readFileSync } from 'node:fs'

interface PackageInfo {
  name: string
  version: string
}

/**
 * Where package.json is seen from this file: the program (dist/petstore.mjs, one bundle) or the sources (src/kernel/).
 */
const PLACES = ['../package.json', '../../package.json'].map((path) => new URL(path, import.meta.url))

/** Read when called. */
export function packageInfo(): PackageInfo {
  const found = PLACES.find((url) => existsSync(url)) ?? PLACES[0]!
  const pkg = JSON.parse(readFileSync(found, 'utf8')) as PackageInfo
  return { name: pkg.name, version: pkg.version }
}
