// One way to send a request, whether the app is reached in-process (`inject`) or over a socket (`fetch`),
// and the assertion every error response shares: the Error shape, the status and the code.
import assert from 'node:assert/strict'
import { errorOf, type Harness } from './harness.js'

export interface HttpResponse {
  statusCode: number
  /** Lower-case header names. */
  headers: Record<string, string | undefined>
  body: string
}

export interface HttpRequest {
  method?: string
  url: string
  headers?: Record<string, string>
  /** A string is sent as is; anything else as JSON with `Content-Type: application/json`. */
  body?: unknown
}

type Send = (request: HttpRequest) => Promise<HttpResponse>

function encode(request: HttpRequest): { headers: Record<string, string>; body: string | undefined } {
  if (request.body === undefined || typeof request.body === 'string')
    return { headers: { ...request.headers }, body: request.body }
  return { headers: { 'content-type': 'application/json', ...request.headers }, body: JSON.stringify(request.body) }
}

/** Sends through `fetch` when the harness listens, else through `inject`. */
export function sender(h: Harness): Send {
  return h.baseUrl ? fetchSender(h.baseUrl) : injectSender(h)
}

export function injectSender(h: Harness): Send {
  return async (request) => {
    const { headers, body } = encode(request)
    const method = (request.method ?? 'GET') as 'GET'
    const response = await h.app.inject({
      method,
      url: request.url,
      headers,
      ...(body === undefined ? {} : { payload: body }),
    })
    const flat: Record<string, string | undefined> = {}
    for (const [name, value] of Object.entries(response.headers))
      flat[name] = value === undefined ? undefined : String(value)
    return { statusCode: response.statusCode, headers: flat, body: response.body }
  }
}

export function fetchSender(baseUrl: string): Send {
  return async (request) => {
    const { headers, body } = encode(request)
    const url = /^https?:/.test(request.url) ? request.url : baseUrl + request.url
    const response = await fetch(url, { method: request.method ?? 'GET', headers, body }).catch((error: unknown) => {
      // undici says only "fetch failed": name the request and the cause (a reset, a refusal, a parse error).
      const cause = (error as { cause?: { code?: string; message?: string } }).cause
      throw new Error(
        `${request.method ?? 'GET'} ${url}: fetch failed: ${cause?.code ?? ''} ${cause?.message ?? String(error)}`,
        { cause: error },
      )
    })
    return { statusCode: response.status, headers: Object.fromEntries(response.headers), body: await response.text() }
  }
}

/**
 * Asserts an error response: the one Error shape, the HTTP status, the code, and optionally that the
 * message names something (a field or parameter). Returns the body.
 */
export function expectError(response: HttpResponse, status: number, code: string, mentions?: string) {
  const body = errorOf({ statusCode: response.statusCode, headers: response.headers, body: response.body })
  assert.equal(response.statusCode, status, response.body)
  assert.equal(body.code, code, response.body)
  if (mentions !== undefined)
    assert.ok(body.message.includes(mentions), `message should name ${mentions}: ${body.message}`)
  return body
}
