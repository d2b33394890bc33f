import type { Random, Timers } from '../environment.ts'

// Spec §8, §9: network and timeout errors are retried; the delay doubles from 100 ms, is capped
// at 20000 ms and gets up to 20 % jitter. The caller sets the count, base delay and cap.

export type RetryOptions = {
  /** Retries after the first attempt. */
  readonly retries: number
  readonly baseDelayMs: number
  readonly maxDelayMs: number
}

export const defaultRetryOptions: RetryOptions = {
  retries: 3,
  baseDelayMs: 100,
  maxDelayMs: 20_000,
}
/** Largest share of the delay added as jitter. */
export const backoffJitterMax = 0.2
/** Most retries a caller may ask for. */
export const retriesMax = 20

/** The delay before retry number `attempt` (0 for the first retry). */
export function backoffDelayMs(attempt: number, options: RetryOptions, random: Random): number {
  const exponential = Math.min(options.maxDelayMs, options.baseDelayMs * 2 ** attempt)
  const jittered = exponential * (1 + backoffJitterMax * random())
  return Math.min(options.maxDelayMs, Math.round(jittered))
}

export function sleep(timers: Timers, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    timers.setTimeout(resolve, delayMs)
  })
}
