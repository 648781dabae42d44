// What every create operation shares for safe retries: the documented header and responses, and the
// handler step that runs the creation once per Idempotency-Key and replays it afterwards.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Kysely } from 'kysely'
import { Type } from 'typebox'
import type { Database } from '../../db/schema.js'
import { errorResponse } from '../contract/schemas.js'
import {
  fingerprintOf,
  IDEMPOTENCY_KEY_HEADER_MAX,
  IDEMPOTENCY_KEY_PATTERN,
  parseIdempotencyKey,
} from '../contract/idempotency-key.js'
import type { IdempotencyRepository } from '../../modules/idempotency/idempotency.repository.js'

export const IdempotencyKeyHeader = Type.Object({
  'idempotency-key': Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_HEADER_MAX,
      pattern: IDEMPOTENCY_KEY_PATTERN,
      examples: ['"8e03978e-40d5-43e8-bc93-6894a57f9324"'],
      description:
        'Makes the request safe to retry (draft-ietf-httpapi-idempotency-key-header): a key of 1–255 printable ASCII ' +
        'characters, best a quoted UUID (`"…"`, with `\\"` and `\\\\` escaped inside); a bare key may not contain ' +
        '`"`. Same key and body within 24 h: the first response is replayed with `Idempotent-Replayed: true`.',
    }),
  ),
})

export const replayedHeader = Type.String({
  description: '`true` when this is the stored response of an earlier request with the same `Idempotency-Key`.',
})

export const idempotencyResponses = {
  409: errorResponse('A request with the same `Idempotency-Key` is still in progress.', {}, [
    'idempotency_key_in_progress',
  ]),
  422: errorResponse('The `Idempotency-Key` was already used with a different body.', {}, ['idempotency_key_reused']),
}

/** Runs `create` (in a transaction) once per Idempotency-Key of the account, and answers with its response. */
export async function createOnce<T>(
  idempotency: IdempotencyRepository,
  request: FastifyRequest,
  reply: FastifyReply,
  create: (trx: Kysely<Database>) => Promise<{ status: number; body: T; location: string }>,
): Promise<FastifyReply> {
  const key = parseIdempotencyKey(request.headers['idempotency-key'])
  const accountId = request.auth!.accountId
  const scope = key === undefined ? undefined : { accountId, key, fingerprint: fingerprintOf(request.body) }
  const response = await idempotency.execute(scope, create)
  if (response.replayed) reply.header('idempotent-replayed', 'true')
  if (response.location) reply.header('location', response.location)
  return reply.code(response.status).send(response.body as T)
}
