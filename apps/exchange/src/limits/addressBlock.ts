// The block of addresses one client is taken to hold, for the limits kept per address (the rate
// budget of callers without an API key, sockets per address). An IPv4 address is its own block;
// an IPv6 address stands for its /64, the block one home or server is usually given and within
// which its holder may pick a new address for every request: limited per address, it would
// have 2^64 budgets. An IPv4 client seen on a dual-stack socket (`::ffff:198.51.100.7`) is
// its IPv4 address.
import { isIPv6 } from 'node:net'

/** IPv6 addresses whose block was worked out lately (the rate limiter asks at every request). */
const blocks = new Map<string, string>()
const blocksKeptMax = 10_000

/** `address`'s block as text: `198.51.100.7`, or `2001:db8:0:1::/64`; anything else as it is. */
export function addressBlock(address: string): string {
  // An IPv4 address (or a name such as `unknown`) has no colon: itself, at no cost.
  if (!address.includes(':')) return address
  let block = blocks.get(address)
  if (block === undefined) {
    block = ipv6Block(address)
    if (blocks.size >= blocksKeptMax) blocks.clear()
    blocks.set(address, block)
  }
  return block
}

function ipv6Block(address: string): string {
  const withoutZone = address.split('%')[0]!
  if (!isIPv6(withoutZone)) return address
  const groups = ipv6Groups(withoutZone)
  // An IPv4 client on a dual-stack socket, written with dots or in hex (`::ffff:c633:6407`).
  if (groups.slice(0, 5).every((group) => group === 0) && groups[5] === 0xffff)
    return [groups[6]! >> 8, groups[6]! & 0xff, groups[7]! >> 8, groups[7]! & 0xff].join('.')
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`
}

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, an IPv4 tail as two). */
function ipv6Groups(address: string): number[] {
  let text = address
  const tailAt = text.lastIndexOf(':') + 1
  const tail = text.slice(tailAt)
  if (tail.includes('.')) {
    const [a, b, c, d] = tail.split('.').map(Number) as [number, number, number, number]
    text = `${text.slice(0, tailAt)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`
  }
  const [head = '', rest] = text.split('::')
  const headGroups = head === '' ? [] : head.split(':')
  const restGroups = rest === undefined || rest === '' ? [] : rest.split(':')
  const zeros = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length
  return [...headGroups, ...Array.from({ length: zeros }, () => '0'), ...restGroups].map((group) =>
    Number.parseInt(group, 16),
  )
}
