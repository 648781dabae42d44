// The logger the modules are given: the log methods of pino's, which the server makes (Fastify's request and app
// loggers are pino loggers too). Modules name this type, never Fastify's.
import type { BaseLogger } from 'pino'

export type Logger = Pick<BaseLogger, 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace'>
