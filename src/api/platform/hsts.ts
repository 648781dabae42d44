// Strict-Transport-Security (RFC 6797) when the service's public URL is https: browsers then reach this host over
// https alone, for a year (the least the preload lists take), including subdomains only when HSTS_INCLUDE_SUBDOMAINS
// says so. Every listener sends it, on every answer: HSTS is per host, not per port (the messages port shares the
// host), and a browser ignores it over plain http (a listener reached directly at a LAN address).
import type { Config } from '../../kernel/config.js'

const HSTS_MAX_AGE_SECONDS = 365 * 24 * 60 * 60

/** The header to send on every answer: none when the public URL is http. */
export function transportSecurityHeaders(
  config: Pick<Config, 'publicUrl' | 'hstsIncludeSubdomains'>,
): Record<string, string> {
  if (!config.publicUrl.startsWith('https:')) return {}
  const subdomains = config.hstsIncludeSubdomains ? '; includeSubDomains' : ''
  return { 'strict-transport-security': `max-age=${HSTS_MAX_AGE_SECONDS}${subdomains}` }
}
