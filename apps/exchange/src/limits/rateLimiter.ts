// Weight-based rate limiting of protocol §2.3: each call costs weight points from a budget per
// minute (per API key when authenticated, per IP otherwise). A caller that spends more than its
// budget is banned: keys until the end of the following minute, IPs for 15 minutes, and is
// answered with error 105, whose message carries the expiry the SDK parses.

import { addressBlock } from './addressBlock.ts'

export type RateLimitConfig = {
  weightPerMinuteMax: number
  keyBanMs: number
  ipBanMs: number
  /** Callers tracked at once; the oldest idle ones are forgotten beyond this. */
  callersTrackedMax: number
}

export const defaultRateLimitConfig: RateLimitConfig = {
  weightPerMinuteMax: 1000,
  keyBanMs: 60_000,
  ipBanMs: 15 * 60_000,
  callersTrackedMax: 100_000,
}

const minuteMs = 60_000
/** How long before a caller's minute began a charge may be dated and still count in it. */
const lateChargeMsMax = 10_000
/** Tracked callers looked at, at most, to find one that is not banned to forget. */
const forgetScanMax = 1_000

export type RateDecision =
  | { allowed: true; limit: number; remaining: number; resetAtMs: number }
  | { allowed: false; limit: number; remaining: 0; resetAtMs: number; bannedUntilMs: number }

type CallerState = { windowStartMs: number; spent: number; bannedUntilMs: number }

export class RateLimiter {
  readonly #config: RateLimitConfig
  readonly #callers = new Map<string, CallerState>()

  constructor(config: RateLimitConfig = defaultRateLimitConfig) {
    this.#config = config
  }

  /**
   * Charges `weight` to the caller; `caller` is `key:<apiKey>` or `ip:<address>`, an address
   * counted by its block (an IPv6 address by its /64: `addressBlock`).
   */
  charge(caller: string, weight: number, nowMs: number): RateDecision {
    if (caller.startsWith('ip:')) {
      // An IPv4 address is its own block: the caller's text is kept, not built again.
      const address = caller.slice(3)
      const block = addressBlock(address)
      if (block !== address) caller = `ip:${block}`
    }
    const limit = this.#config.weightPerMinuteMax
    const windowStartMs = nowMs - (nowMs % minuteMs)
    let state = this.#callers.get(caller)
    if (state === undefined) {
      if (this.#callers.size >= this.#config.callersTrackedMax) this.#forgetOldest(nowMs)
      state = { windowStartMs, spent: 0, bannedUntilMs: 0 }
      this.#callers.set(caller, state)
    }
    if (state.bannedUntilMs > nowMs) {
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetAtMs: state.bannedUntilMs,
        bannedUntilMs: state.bannedUntilMs,
      }
    }
    // Forward, or back past a few seconds: a charge dated just before the caller's minute began
    // (a request charged after its key's lookup) counts in that minute rather than starting the
    // one before afresh; a clock stepped back further starts its minute afresh, as a new one,
    // rather than counting every minute until the clock catches up against one budget.
    if (windowStartMs > state.windowStartMs || nowMs < state.windowStartMs - lateChargeMsMax) {
      state.windowStartMs = windowStartMs
      state.spent = 0
    }
    state.spent += weight
    const resetAtMs = state.windowStartMs + minuteMs
    if (state.spent > limit) {
      // Keys: until the end of the following minute. IPs: 15 minutes from now.
      state.bannedUntilMs = caller.startsWith('key:')
        ? resetAtMs + this.#config.keyBanMs
        : nowMs + this.#config.ipBanMs
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetAtMs: state.bannedUntilMs,
        bannedUntilMs: state.bannedUntilMs,
      }
    }
    return { allowed: true, limit, remaining: limit - state.spent, resetAtMs }
  }

  #forgetOldest(nowMs: number): void {
    // Map keeps insertion order: the first entries are the longest tracked. A ban still running
    // is not forgotten (one that has run out is), but scanning is bounded so that a flood of
    // bans cannot stall the limiter: past `forgetScanMax` banned callers, the next one goes.
    let scanned = 0
    for (const [caller, state] of this.#callers) {
      if (state.bannedUntilMs <= nowMs || scanned >= forgetScanMax) {
        this.#callers.delete(caller)
        return
      }
      scanned += 1
    }
  }
}

/** The header that tells a caller how much of its budget is left (set on every response). */
export const rateLimitRemainingHeader = 'bitvavo-ratelimit-remaining'

/** The response headers of protocol §2.3. */
export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'bitvavo-ratelimit-limit': String(decision.limit),
    [rateLimitRemainingHeader]: String(decision.remaining),
    'bitvavo-ratelimit-resetat': String(decision.resetAtMs),
  }
}
