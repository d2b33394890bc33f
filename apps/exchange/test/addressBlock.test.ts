// Limits per address count an IPv6 client by its /64 (within which it could pick a new address
// for every request), an IPv4 one by its address, and an IPv4 client seen on a dual-stack socket
// as IPv4.
import { describe, expect, it } from 'vitest'
import { addressBlock } from '../src/limits/addressBlock.ts'
import { RateLimiter } from '../src/limits/rateLimiter.ts'

describe('addressBlock', () => {
  it.each([
    ['198.51.100.7', '198.51.100.7'],
    ['::ffff:198.51.100.7', '198.51.100.7'],
    ['::FFFF:198.51.100.7', '198.51.100.7'],
    ['::ffff:c633:6407', '198.51.100.7'],
    ['2001:db8:0:1::5', '2001:db8:0:1::/64'],
    ['2001:db8:0:1:ffff:ffff:ffff:ffff', '2001:db8:0:1::/64'],
    ['2001:0db8:0000:0001:0:0:0:9', '2001:db8:0:1::/64'],
    ['2001:DB8::1', '2001:db8:0:0::/64'],
    ['fe80::1%eth0', 'fe80:0:0:0::/64'],
    ['::1', '0:0:0:0::/64'],
    ['::', '0:0:0:0::/64'],
    ['64:ff9b::198.51.100.7', '64:ff9b:0:0::/64'],
    ['unknown', 'unknown'],
    ['', ''],
  ])('%s is counted as %s', (address, block) => {
    expect(addressBlock(address)).toBe(block)
  })
})

describe('the rate budget of an address', () => {
  it('is shared by every address of one IPv6 /64, and not by the next /64', () => {
    const limiter = new RateLimiter({
      weightPerMinuteMax: 10,
      keyBanMs: 60_000,
      ipBanMs: 900_000,
      callersTrackedMax: 1_000,
    })
    for (let i = 1; i <= 10; i += 1)
      expect(limiter.charge(`ip:2001:db8:0:1::${i.toString(16)}`, 1, 0).allowed).toBe(true)
    // An eleventh address of the same /64 is over the budget: banned, the whole block.
    expect(limiter.charge('ip:2001:db8:0:1:abcd::1', 1, 0).allowed).toBe(false)
    expect(limiter.charge('ip:2001:db8:0:1::1', 1, 1).allowed).toBe(false)
    expect(limiter.charge('ip:2001:db8:0:2::1', 1, 1).allowed).toBe(true)
    expect(limiter.charge('ip:198.51.100.7', 1, 1).allowed).toBe(true)
  })
})
