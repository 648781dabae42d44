// Response serializers: Fastify's own (fast-json-stringify), kept by the text of their schemas for the process.
// Generating a serializer is a large part of an app's start-up, and a process that builds more than one app from
// the same schemas (the test suite builds one per test) generates each once. A serializer keeps no state between
// calls, so apps can share it.
import { SerializerSelector } from '@fastify/fast-json-stringify-compiler'
import type { FastifySerializerCompiler } from 'fastify/types/schema.js'

const buildDefault = SerializerSelector()
const compilers = new Map<string, FastifySerializerCompiler<unknown>>()

/** The serializer compiler for the app's schema controller: Fastify's default, each schema generated once. */
export function buildSerializerCompiler(
  externalSchemas?: unknown,
  options?: Parameters<typeof buildDefault>[1],
): FastifySerializerCompiler<unknown> {
  const key = JSON.stringify([externalSchemas, options])
  let compiler = compilers.get(key)
  if (!compiler) {
    const generate = buildDefault(externalSchemas, options)
    const serializers = new Map<string, ReturnType<typeof generate>>()
    compiler = (route) => {
      const schemaKey = JSON.stringify(route.schema)
      let serialize = serializers.get(schemaKey)
      if (!serialize) {
        // Generated when first used (as validators are compiled: validation.ts), not at every start.
        let real: ReturnType<typeof generate> | undefined
        serialize = (data: unknown) => (real ??= generate(route as Parameters<typeof generate>[0]))(data)
        serializers.set(schemaKey, serialize)
      }
      return serialize
    }
    compilers.set(key, compiler)
  }
  return compiler
}
