// @petstore/sdk in tests: a client of a listening harness (or of a proxy in front of it), imported from the
// package's sources, and the onResponse calls it made.
import { Petstore, type PetstoreOptions, type ResponseInfo } from '../../sdk/src/index.js'

export function clientOf(
  origin: string,
  key: string,
  options: PetstoreOptions = {},
): { ps: Petstore; responses: ResponseInfo[] } {
  const responses: ResponseInfo[] = []
  const ps = new Petstore({
    apiKey: key,
    baseUrl: `${origin}/v1`,
    onResponse: (info) => void responses.push(info),
    ...options,
  })
  return { ps, responses }
}

/** Runs `fn` and returns what it threw (fails when it does not throw). */
export async function thrownBy(fn: () => Promise<unknown>): Promise<unknown> {
  try {
    await fn()
  } catch (err) {
    return err
  }
  throw new Error('expected the call to throw')
}
