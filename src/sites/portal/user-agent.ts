// A browser's User-Agent header as a person reads it on the sessions table: "Chrome on Linux", "Safari on
// iPhone". Only the common browsers and systems are named; this is a label to recognise a session by, never a
// security decision (the header is whatever the client says). Order matters: Edge and Opera also say "Chrome",
// Chrome also says "Safari", Android also says "Linux".

const BROWSERS: ReadonlyArray<[RegExp, string]> = [
  [/\bEdg(e|A|iOS)?\//, 'Edge'],
  [/\bOPR\/|\bOpera\b/, 'Opera'],
  [/\bSamsungBrowser\//, 'Samsung Internet'],
  [/\bFirefox\/|\bFxiOS\//, 'Firefox'],
  [/\bChromium\//, 'Chromium'],
  [/\b(Headless)?Chrome\/|\bCriOS\//, 'Chrome'],
  [/\bVersion\/[\d.]+.*\bSafari\//, 'Safari'],
  [/^curl\//, 'curl'],
]

const SYSTEMS: ReadonlyArray<[RegExp, string]> = [
  [/\biPhone\b/, 'iPhone'],
  [/\biPad\b/, 'iPad'],
  [/\bAndroid\b/, 'Android'],
  [/\bWindows\b/, 'Windows'],
  [/\bCrOS\b/, 'ChromeOS'],
  [/\bMac OS X\b|\bMacintosh\b/, 'macOS'],
  [/\bLinux\b|\bX11\b/, 'Linux'],
]

const first = (table: ReadonlyArray<[RegExp, string]>, text: string) =>
  table.find(([pattern]) => pattern.test(text))?.[1]

/** "Browser on System", either part alone when the other is not recognised, or "Unknown browser". */
export function browserSummary(userAgent: string | null | undefined): string {
  // Long enough for every real browser's header; a giant one is not scanned whole.
  const text = (userAgent ?? '').slice(0, 512)
  const browser = first(BROWSERS, text)
  const system = first(SYSTEMS, text)
  if (browser && system) return `${browser} on ${system}`
  return browser ?? (system ? `A browser on ${system}` : 'Unknown browser')
}

/** A client address as people know it: an IPv4 address seen through an IPv6 socket loses its `::ffff:` prefix. */
export function readableAddress(address: string | null | undefined): string {
  if (!address) return 'unknown'
  return address.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/i, '$1')
}
