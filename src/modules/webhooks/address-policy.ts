// Which IP addresses a webhook delivery may connect to. The integrator chooses the URL, so without this check a
// webhook would let anyone make our servers send requests into our own network (SSRF): the loopback interface,
// the private network, the cloud provider's metadata service. Only globally routable unicast addresses pass, plus
// the ranges the operator allows and, where the service allows it (outside production), loopback, so integrators
// can test against a receiver on their own machine. webhook-http.ts checks every address a host resolves to.
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

export type AddressVerdict = { ok: true } | { ok: false; range: string }

export interface AddressPolicy {
  check(address: string): AddressVerdict
}

type Address = ipaddr.IPv4 | ipaddr.IPv6
type Cidr = [Address, number]

const OK: AddressVerdict = { ok: true }

// ipaddr.js's range names, as the refusal names them (a name it adds later shows as it is: still refused).
const NAMES: Record<string, string> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link-local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier-grade NAT',
  private: 'private',
  reserved: 'reserved',
  as112: 'AS112',
  as112v6: 'AS112',
  amt: 'AMT',
  uniqueLocal: 'unique local',
  deprecatedSiteLocal: 'site-local',
  discard: 'discard-only',
  benchmarking: 'benchmarking',
  deprecatedOrchid: 'ORCHID',
  orchid2: 'ORCHIDv2',
  droneRemoteIdProtocolEntityTags: 'drone remote ID',
  segmentRouting: 'segment routing',
}

const cidrs = (list: string[]): Cidr[] => list.map((c) => ipaddr.parseCIDR(c))

// Named first, before ipaddr.js's ranges: the metadata services (which answer with the machine's credentials) so
// the refusal says what they are, and the parts of ipaddr.js's IPv4 `reserved` that have a better name.
const FIRST: Array<[name: string, ranges: Cidr[]]> = [
  // AWS, GCP, Azure, OpenStack… (IPv4 and AWS's IPv6); AWS ECS task metadata; Alibaba Cloud; Azure's WireServer,
  // which is a public address reachable from every Azure VM.
  [
    'cloud metadata',
    cidrs(['169.254.169.254/32', 'fd00:ec2::254/128', '169.254.170.2/32', '100.100.100.200/32', '168.63.129.16/32']),
  ],
  ['documentation', cidrs(['192.0.2.0/24', '198.51.100.0/24', '203.0.113.0/24', '2001:db8::/32', '3fff::/20'])],
  ['benchmarking', cidrs(['198.18.0.0/15'])],
]

// IPv6 ranges that carry an IPv4 address. Refused whatever they carry: the network may translate them to the IPv4
// address they wrap (NAT64, a 6to4 relay), and the checks above would have looked only at the IPv6 form.
const NAT64_LOCAL = ipaddr.parseCIDR('64:ff9b:1::/48')
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')
// Every IPv6 global unicast address is in 2000::/3 (IANA); anything outside it that ipaddr.js calls unicast is not.
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3')

const v4 = (high: number, low: number) => new ipaddr.IPv4([high >> 8, high & 0xff, low >> 8, low & 0xff])

/** The wrapping range's name and the IPv4 address it carries (when it says which), for an IPv6 address. */
function wrapped(addr: ipaddr.IPv6): { name: string; inner?: ipaddr.IPv4 } | undefined {
  const p = addr.parts as [number, number, number, number, number, number, number, number]
  switch (addr.range()) {
    case 'ipv4Mapped':
      return { name: 'IPv4-mapped', inner: v4(p[6], p[7]) }
    case 'rfc6145':
      return { name: 'IPv4-translated', inner: v4(p[6], p[7]) }
    case 'rfc6052':
      // 64:ff9b:1::/48 (local-use NAT64) places the IPv4 address by the operator's prefix length: unknown here.
      return addr.match(NAT64_LOCAL) ? { name: 'NAT64' } : { name: 'NAT64', inner: v4(p[6], p[7]) }
    case '6to4':
      return { name: '6to4', inner: v4(p[1], p[2]) }
    case 'teredo':
      // The Teredo client's address is stored inverted (RFC 4380).
      return { name: 'Teredo', inner: v4(p[6] ^ 0xffff, p[7] ^ 0xffff) }
    case 'unicast':
      return addr.match(IPV4_COMPATIBLE) ? { name: 'IPv4-compatible', inner: v4(p[6], p[7]) } : undefined
    default:
      return undefined
  }
}

/** The name of the refused range the address is in, or undefined when it is globally routable unicast. */
function refusedRange(addr: Address): string | undefined {
  for (const [name, ranges] of FIRST) if (ranges.some((r) => inCidr(addr, r))) return name
  if (addr.kind() === 'ipv6') {
    const wrapper = wrapped(addr as ipaddr.IPv6)
    if (wrapper) {
      const inner = wrapper.inner && refusedRange(wrapper.inner)
      return inner ? `${wrapper.name} ${inner}` : wrapper.name
    }
  }
  const range = addr.range()
  if (range !== 'unicast') return NAMES[range] ?? range
  if (addr.kind() === 'ipv6' && !addr.match(GLOBAL_UNICAST_V6)) return 'reserved'
  return undefined
}

function inCidr(addr: Address, [network, bits]: Cidr): boolean {
  return addr.kind() === network.kind() && addr.match(network, bits)
}

// ipaddr.js reads `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`; the system reads it as the IPv4-compatible
// `::a.b.c.d`, which is what would be connected to. Writing the IPv4 part in hex first gives the system's reading.
function hexTail(text: string): string {
  return text.replace(/:(\d+)\.(\d+)\.(\d+)\.(\d+)((?:%.*)?)$/, (_all, a, b, c, d, zone: string) => {
    const hex = (x: string, y: string) => ((Number(x) << 8) | Number(y)).toString(16)
    return `:${hex(a, b)}:${hex(c, d)}${zone}`
  })
}

/** The address, read only in the forms the system accepts as an IP address (not `127.1` or `0x7f.0.0.1`). */
function parseAddress(text: string): Address | undefined {
  const kind = isIP(text)
  if (kind === 0) return undefined
  return kind === 4 ? ipaddr.IPv4.parse(text) : ipaddr.IPv6.parse(hexTail(text))
}

function parseAllowed(entry: string): Cidr {
  const [address = '', bits, ...rest] = entry.trim().split('/')
  const addr = parseAddress(address)
  const full = addr?.kind() === 'ipv4' ? 32 : 128
  const prefix = bits === undefined ? full : /^\d{1,3}$/.test(bits) ? Number(bits) : Number.NaN
  if (!addr || rest.length > 0 || !(prefix <= full)) {
    throw new Error(`webhook allowed address "${entry}" is not an IP address or CIDR range (such as 10.0.0.0/8)`)
  }
  return [addr, prefix]
}

export function createAddressPolicy({
  allowed,
  allowLoopback,
}: {
  allowed: readonly string[]
  allowLoopback: boolean
}): AddressPolicy {
  const allowedRanges = allowed.map(parseAllowed)
  return {
    check(address) {
      const addr = parseAddress(address)
      if (!addr) return { ok: false, range: 'invalid' }
      // 127.0.0.0/8 and ::1 only: not the IPv4-mapped form of loopback, nor the unspecified address.
      if (allowLoopback && addr.range() === 'loopback') return OK
      const range = refusedRange(addr)
      if (range === undefined) return OK
      const allowedBy = allowedRanges.find((r) => inCidr(addr, r))
      // A metadata address passes only when it is allowed by itself, never as part of a wider range (an operator
      // who allows 169.254.0.0/16 for a link-local receiver has not meant to give out the machine's credentials).
      const full = addr.kind() === 'ipv4' ? 32 : 128
      if (allowedBy && (!range.endsWith('cloud metadata') || allowedBy[1] === full)) return OK
      return { ok: false, range }
    },
  }
}
