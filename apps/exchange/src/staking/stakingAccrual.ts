// Pays staking rewards once a day: after 00:00 UTC the day just ended is paid, by one journaled
// command the core accepts once per day. Days missed (the exchange stopped over a midnight, a
// payout lost to a crash) are paid by the next one, up to a year back.
import { assets } from '@polder/catalogue'
import { parseDecimal } from '@polder/engine'
import { stakingCatchUpDaysMax } from '../core/exchangeCore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { PeriodicTask } from '../core/periodicTask.ts'

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
  readonly #task = new PeriodicTask(() => this.#payDayEnded(), false)

  constructor(service: ExchangeService, nowMs: () => number, yields = stakingYieldsPpm()) {
    this.#service = service
    this.#nowMs = nowMs
    this.#yields = yields
  }

  start(onError: (error: unknown) => void, tickMs = 60_000): void {
    this.#task.start(tickMs, onError)
  }

  stop(): void {
    this.#task.stop()
  }

  /**
   * Pays the day that ended last midnight, if not paid yet; true when it paid. A tick while the
   * previous one is still submitting pays nothing (false): the core would refuse the same day.
   */
  tick(): Promise<boolean> {
    return this.#task.run()
  }

  async #payDayEnded(): Promise<boolean> {
    const nowMs = this.#nowMs()
    const dayMsEnded = Math.floor(nowMs / dayMs) * dayMs - dayMs
    // Every day since the last one paid (a first payout pays the day just ended only).
    const lastPaid = this.#service.core.lastAccruedDayMs
    if (lastPaid >= dayMsEnded) return false
    const fromDayMs =
      lastPaid === 0
        ? dayMsEnded
        : Math.max(lastPaid + dayMs, dayMsEnded - (stakingCatchUpDaysMax - 1) * dayMs)
    const outcome = await this.#service.submit({
      type: 'accrueStakingRewards',
      timestamp: nowMs,
      dayMs: dayMsEnded,
      ...(fromDayMs < dayMsEnded ? { fromDayMs } : {}),
      yieldPpm: this.#yields,
      rules: 3,
    })
    return outcome.ok
  }
}
