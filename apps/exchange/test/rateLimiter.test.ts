import { protocolError } from '@polder/protocol'
import { describe, expect, it } from 'vitest'
import { RateLimiter, rateLimitHeaders } from '../src/limits/rateLimiter.ts'

const minuteStartMs = 1_763_800_020_000 // a whole minute

describe('rate limits (protocol §2.3)', () => {
  it('charges weights against 1000 points per minute and reports what remains', () => {
    const limiter = new RateLimiter()
    const decision = limiter.charge('ip:127.0.0.1', 25, minuteStartMs + 5_000)
    expect(decision).toEqual({
      allowed: true,
      limit: 1000,
      remaining: 975,
      resetAtMs: minuteStartMs + 60_000,
    })
    expect(rateLimitHeaders(decision)).toEqual({
      'bitvavo-ratelimit-limit': '1000',
      'bitvavo-ratelimit-remaining': '975',
      'bitvavo-ratelimit-resetat': String(minuteStartMs + 60_000),
    })
  })

  it('starts a fresh budget each minute', () => {
    const limiter = new RateLimiter()
    limiter.charge('ip:a', 900, minuteStartMs)
    expect(limiter.charge('ip:a', 900, minuteStartMs + 60_000)).toMatchObject({
      allowed: true,
      remaining: 100,
    })
  })

  it('bans an API key until the end of the following minute once it overspends', () => {
    const limiter = new RateLimiter()
    limiter.charge('key:k', 1000, minuteStartMs + 1_000)
    const banned = limiter.charge('key:k', 1, minuteStartMs + 2_000)
    expect(banned).toMatchObject({ allowed: false, bannedUntilMs: minuteStartMs + 120_000 })
    expect(limiter.charge('key:k', 1, minuteStartMs + 119_999).allowed).toBe(false)
    expect(limiter.charge('key:k', 1, minuteStartMs + 120_000).allowed).toBe(true)
  })

  it('bans an IP for 15 minutes', () => {
    const limiter = new RateLimiter()
    const banned = limiter.charge('ip:b', 1001, minuteStartMs)
    expect(banned).toMatchObject({ allowed: false, bannedUntilMs: minuteStartMs + 15 * 60_000 })
  })

  it('a charge dated seconds before its minute counts in it; a clock stepped back further starts afresh', () => {
    const limiter = new RateLimiter()
    const t = 1_800_000_000_000 - (1_800_000_000_000 % 60_000)
    expect(limiter.charge('key:a', 600, t + 10 * 60_000).allowed).toBe(true)
    // Charged after its key's lookup, dated 2 s before the minute began: not a fresh budget.
    expect(limiter.charge('key:a', 600, t + 10 * 60_000 - 2_000).allowed).toBe(false)
    // The clock stepped back ten minutes (NTP, a VM resumed): each minute spends 600 of 1000.
    expect(limiter.charge('key:b', 600, t + 10 * 60_000).allowed).toBe(true)
    expect(limiter.charge('key:b', 600, t).allowed).toBe(true)
    expect(limiter.charge('key:b', 600, t + 60_000).allowed).toBe(true)
  })

  it('callers are independent', () => {
    const limiter = new RateLimiter()
    limiter.charge('ip:c', 1001, minuteStartMs)
    expect(limiter.charge('ip:d', 1, minuteStartMs).allowed).toBe(true)
  })

  it("the ban's error 105 carries the expiry where the SDK parses it", () => {
    const bannedUntilMs = minuteStartMs + 120_000
    const { status, body } = protocolError(105, { expiryInMs: bannedUntilMs })
    expect(status).toBe(429)
    expect(body.error.split(' at ')[1]!.split('.')[0]).toBe(String(bannedUntilMs))
  })

  it('past the callers it tracks, forgets one whose ban has run out before one still banned', () => {
    const limiter = new RateLimiter({
      weightPerMinuteMax: 10,
      keyBanMs: 60_000,
      ipBanMs: 15 * 60_000,
      callersTrackedMax: 3,
    })
    const at = minuteStartMs
    // Two callers banned: the first for 15 minutes from `at`, the second from 20 minutes later.
    expect(limiter.charge('ip:198.51.100.1', 11, at).allowed).toBe(false)
    expect(limiter.charge('ip:198.51.100.2', 1, at).allowed).toBe(true)
    expect(limiter.charge('ip:198.51.100.3', 1, at).allowed).toBe(true)
    const later = at + 20 * 60_000
    expect(limiter.charge('ip:198.51.100.2', 11, later).allowed).toBe(false)
    expect(limiter.charge('ip:198.51.100.3', 5, later).allowed).toBe(true)
    // A fourth caller: the first, whose ban ran out, is forgotten, not the third (whose spending
    // this minute is kept) nor the second (still banned).
    expect(limiter.charge('ip:198.51.100.4', 1, later).allowed).toBe(true)
    expect(limiter.charge('ip:198.51.100.2', 1, later + 1).allowed).toBe(false)
    expect(limiter.charge('ip:198.51.100.3', 1, later + 1)).toMatchObject({
      allowed: true,
      remaining: 4,
    })
  })
})
