// Deprecated operations announce it on every response (RFC 9745 `Deprecation`, RFC 8594 `Sunset`,
// `Link` to the replacement and the docs) and answer 410 from their sunset instant on.
// A route opts in through `config.deprecation`; the hooks below do the rest.
import type { FastifyRequest, FastifyReply } from 'fastify'
import type { Clock } from '../../kernel/clock.js'
import { ApiError } from './errors.js'

interface DeprecationInfo {
  /** When the operation was deprecated (may be in the past). */
  deprecatedAt: Date
  sunset: Date
  /** Path of the replacing operation, e.g. `/v1/pets`. */
  successor: string
  /** Path of the human documentation of the deprecation, e.g. `/docs#/pets/getPet`. */
  docs: string
}

declare module 'fastify' {
  interface FastifyContextConfig {
    deprecation?: DeprecationInfo
  }
}

export function deprecationHooks({ clock, publicUrl }: { clock: Clock; publicUrl: string }) {
  return {
    /** Runs first, so that even a 401 of a deprecated operation carries the headers. */
    announce(request: FastifyRequest, reply: FastifyReply): void {
      const info = request.routeOptions.config.deprecation
      if (!info) return
      const origin = publicUrl
      reply.header('deprecation', `@${Math.floor(info.deprecatedAt.getTime() / 1000)}`)
      reply.header('sunset', info.sunset.toUTCString())
      reply.header(
        'link',
        `<${origin}${info.successor}>; rel="successor-version", <${origin}${info.docs}>; rel="deprecation"`,
      )
    },

    /** Runs after authentication: past the sunset the operation is gone. */
    enforceSunset(request: FastifyRequest): void {
      const info = request.routeOptions.config.deprecation
      if (info && clock.now() >= info.sunset.getTime()) {
        throw new ApiError(
          'operation_sunset',
          `This operation was removed on ${info.sunset.toISOString()}; use GET ${info.successor} instead.`,
        )
      }
    },
  }
}
