// The service's name and version, from package.json: one source for `GET /` and `petstore --version`.
import { readFileSync } from 'node:fs'

export interface PackageInfo {
  name: string
  version: string
}

/** Read when called: src/ (tests, tsx) and dist/ (the program) both sit one folder below package.json. */
export function packageInfo(): PackageInfo {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as PackageInfo
  return { name: pkg.name, version: pkg.version }
}
