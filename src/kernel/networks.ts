// Lists of addresses and CIDR ranges (`10.0.0.0/8,192.168.1.7,fd00::/8`): TRUST_PROXY's proxies and
// CONSOLE_ALLOWED_NETWORKS. Parsed strictly at boot; matched with Node's BlockList, which compares ranges by their
// bits (a string prefix would let 10.0.0.10 match 10.0.0.1).
import { BlockList, isIP } from 'node:net'

/** The entries of a comma-separated list; throws naming the first entry that is neither an address nor a CIDR. */
export function parseNetworkList(raw: string, alternatives = ''): string[] {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '')
  if (entries.length === 0) throw new Error(`must be ${alternatives}a comma-separated list of addresses and CIDRs`)
  for (const entry of entries) {
    const [address, bits, extra] = entry.split('/')
    const family = isIP(address ?? '')
    const maxBits = family === 6 ? 128 : 32
    const validBits = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !validBits || extra !== undefined) {
      throw new Error(
        `must be ${alternatives}a comma-separated list of addresses and CIDR ranges ("${entry}" is none of these)`,
      )
    }
  }
  return entries
}

/** IPv4 written as IPv6 (`::ffff:10.1.2.3`, what a dual-stack listener reports) is matched as IPv4. */
const unmapped = (address: string) =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address

/** Whether an address (request.ip) falls in one of the entries parseNetworkList accepted. */
export function networkMatcher(entries: readonly string[]): (address: string) => boolean {
  const list = new BlockList()
  for (const entry of entries) {
    const [address, bits] = entry.split('/') as [string, string | undefined]
    const family = isIP(address) === 6 ? 'ipv6' : 'ipv4'
    if (bits === undefined) list.addAddress(address, family)
    else list.addSubnet(address, Number(bits), family)
  }
  return (raw) => {
    const address = unmapped(raw)
    const family = isIP(address)
    if (family === 0) return false
    return list.check(address, family === 6 ? 'ipv6' : 'ipv4')
  }
}
