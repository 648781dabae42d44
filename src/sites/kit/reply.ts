// How a page of the portal or the console answers: an HTML page with a status, a redirect, or a thrown PageError
// (a page too).
import type { FastifyReply } from 'fastify'

/** An answer a page means to give as an HTML page with this status. */
export class PageError extends Error {
  constructor(
    readonly status: number,
    readonly title: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message)
  }
}

export function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply.code(status).header('content-type', 'text/html; charset=utf-8').send(body)
}

export function redirect(reply: FastifyReply, to: string): FastifyReply {
  return reply.code(303).header('location', to).send()
}
