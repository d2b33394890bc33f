// Pays staking rewards once a day: after 00:00 UTC the day just ended is paid, by one journaled
// command the core accepts once per day.
import { assets } from '@polder/catalogue'
import { parseDecimal } from '@polder/engine'
import type { ExchangeService } from '../core/exchangeService.ts'

const dayMs = 86_400_000

/** Each staking asset's yield a year in parts per million (15% → 150,000). */
export function stakingYieldsPpm(): Record<string, number> {
  const yields: Record<string, number> = {}
  for (const asset of assets) {
    if (!asset.staking) continue
    const parsed = parseDecimal(asset.staking.yieldPercentPerYear, 4)
    // A percentage with four decimals is a whole number of parts per million.
    if (parsed.ok) yields[asset.symbol] = parsed.units
  }
  return yields
}

export class StakingAccrual {
  readonly #service: ExchangeService
  readonly #nowMs: () => number
  readonly #yields: Record<string, number>
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(service: ExchangeService, nowMs: () => number, yields = stakingYieldsPpm()) {
    this.#service = service
    this.#nowMs = nowMs
    this.#yields = yields
  }

  start(tickMs = 60_000): void {
    this.#timer ??= setInterval(() => void this.tick(), tickMs)
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** Pays the day that ended last midnight, if not paid yet; true when it paid. */
  async tick(): Promise<boolean> {
    const nowMs = this.#nowMs()
    const dayMsEnded = Math.floor(nowMs / dayMs) * dayMs - dayMs
    const outcome = await this.#service.submit({
      type: 'accrueStakingRewards',
      timestamp: nowMs,
      dayMs: dayMsEnded,
      yieldPpm: this.#yields,
    })
    return outcome.ok
  }
}
