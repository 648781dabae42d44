// The webhook address policy: every address that is not globally routable unicast is refused, by name, in its
// IPv4 and IPv6 forms and in the IPv6 forms that wrap an IPv4 address; the operator's allowed ranges and (outside
// production) loopback let through what they name and nothing more.
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { type AddressVerdict, createAddressPolicy } from '../../../src/modules/webhooks/address-policy.js'

const strict = createAddressPolicy({ allowed: [], allowLoopback: false })
const refused = (range: string): AddressVerdict => ({ ok: false, range })

const refusals: Array<[address: string, range: string]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.0.9', 'loopback'],
  ['::1', 'loopback'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['10.0.0.1', 'private'],
  ['172.16.5.4', 'private'],
  ['192.168.1.1', 'private'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['169.254.1.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['169.254.169.254', 'cloud metadata'],
  ['fd00:ec2::254', 'cloud metadata'],
  ['fc00::1', 'unique local'],
  ['fd12:3456::1', 'unique local'],
  ['fec0::1', 'site-local'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['ff02::1', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['192.0.2.1', 'documentation'],
  ['198.51.100.7', 'documentation'],
  ['203.0.113.9', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['3fff::1', 'documentation'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['2001:2::1', 'benchmarking'],
  ['240.0.0.1', 'reserved'],
  ['192.0.0.8', 'reserved'],
  ['192.31.196.1', 'AS112'],
  ['192.52.193.1', 'AMT'],
  ['100::1', 'discard-only'],
  ['2001:20::1', 'ORCHIDv2'],
  ['5f00::1', 'segment routing'],
  ['4000::1', 'reserved'],
  // IPv6 forms that wrap an IPv4 address, named with the wrapped address's range.
  ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
  ['::ffff:7f00:1', 'IPv4-mapped loopback'],
  ['::ffff:10.1.2.3', 'IPv4-mapped private'],
  ['::ffff:169.254.169.254', 'IPv4-mapped cloud metadata'],
  ['::ffff:8.8.8.8', 'IPv4-mapped'],
  ['64:ff9b::7f00:1', 'NAT64 loopback'],
  ['64:ff9b::127.0.0.1', 'NAT64 loopback'],
  ['64:ff9b::808:808', 'NAT64'],
  ['64:ff9b:1::1', 'NAT64'],
  ['::127.0.0.1', 'IPv4-compatible loopback'],
  ['::7f00:1', 'IPv4-compatible loopback'],
  ['::ffff:0:7f00:1', 'IPv4-translated loopback'],
  ['2002:7f00:1::', '6to4 loopback'],
  ['2002:808:808::1', '6to4'],
  // Teredo stores the client's address inverted: 80ff:fffe is 127.0.0.1.
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo loopback'],
  ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo'],
]

test('every address that is not globally routable unicast is refused, with its range', () => {
  for (const [address, range] of refusals) assert.deepEqual(strict.check(address), refused(range), address)
})

test('public addresses pass', () => {
  for (const address of ['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e']) {
    assert.deepEqual(strict.check(address), { ok: true }, address)
  }
})

test('what the system would not read as an address is refused, not guessed at', () => {
  for (const text of ['localhost', '127.1', '0x7f.0.0.1', '2130706433', '[::1]', '', '1.2.3.4/32']) {
    assert.deepEqual(strict.check(text), refused('invalid'), text)
  }
})

test('allowLoopback lets through 127.0.0.0/8 and ::1 only', () => {
  const local = createAddressPolicy({ allowed: [], allowLoopback: true })
  for (const address of ['127.0.0.1', '127.1.2.3', '::1']) assert.deepEqual(local.check(address), { ok: true }, address)
  assert.deepEqual(local.check('::ffff:127.0.0.1'), refused('IPv4-mapped loopback'))
  assert.deepEqual(local.check('::127.0.0.1'), refused('IPv4-compatible loopback'))
  assert.deepEqual(local.check('0.0.0.0'), refused('unspecified'))
  assert.deepEqual(local.check('::'), refused('unspecified'))
  assert.deepEqual(local.check('10.0.0.1'), refused('private'))
})

test('allowed ranges let a refused range through, and only that range', () => {
  const policy = createAddressPolicy({
    allowed: ['10.20.0.0/16', ' 192.168.7.7 ', 'fd12::/16', '2001:db8::5', '169.254.0.0/16'],
    allowLoopback: false,
  })
  assert.deepEqual(policy.check('10.20.3.4'), { ok: true })
  assert.deepEqual(policy.check('10.21.0.1'), refused('private'))
  assert.deepEqual(policy.check('192.168.7.7'), { ok: true })
  assert.deepEqual(policy.check('192.168.7.8'), refused('private'))
  assert.deepEqual(policy.check('fd12:1::1'), { ok: true })
  assert.deepEqual(policy.check('fd13::1'), refused('unique local'))
  assert.deepEqual(policy.check('2001:db8::5'), { ok: true })
  assert.deepEqual(policy.check('169.254.3.3'), { ok: true })
  // An IPv4 range does not allow the IPv6 forms that wrap its addresses.
  assert.deepEqual(policy.check('::ffff:10.20.3.4'), refused('IPv4-mapped private'))
  assert.deepEqual(policy.check('127.0.0.1'), refused('loopback'))
})

test('a metadata address passes only when it is allowed by itself, not inside a wider allowed range', () => {
  const wide = createAddressPolicy({ allowed: ['169.254.0.0/16', 'fd00::/8'], allowLoopback: true })
  assert.deepEqual(wide.check('169.254.169.254'), refused('cloud metadata'))
  assert.deepEqual(wide.check('fd00:ec2::254'), refused('cloud metadata'))
  const exact = createAddressPolicy({ allowed: ['169.254.169.254', 'fd00:ec2::254/128'], allowLoopback: false })
  assert.deepEqual(exact.check('169.254.169.254'), { ok: true })
  assert.deepEqual(exact.check('fd00:ec2::254'), { ok: true })
})

test('an allowed entry that does not parse throws, naming it', () => {
  for (const entry of ['10.0.0.0/33', '::/129', 'intranet', '10.1/8', '10.0.0.0/8/8', '10.0.0.0/', '', '1.2.3.4/x']) {
    assert.throws(
      () => createAddressPolicy({ allowed: ['10.0.0.0/8', entry], allowLoopback: false }),
      (err: Error) => err.message.includes(`"${entry}"`),
      entry,
    )
  }
})
