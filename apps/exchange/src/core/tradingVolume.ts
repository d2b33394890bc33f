// Each account's traded volume in euros over the last 30 days, which sets its fee tier
// (`feeTierForVolume` in packages/catalogue) and which `GET /account` reports. Kept by the core
// from the fills it settles, so it is rebuilt exactly from a snapshot and the journal after it,
// by UTC day: the volume "now" is that of the day of now and the 29 days before it.
import { ledgerDecimals } from '../ledger/ledger.ts'

const dayMs = 86_400_000
/** Days that count, today's included. */
export const volumeWindowDays = 30

/** An account's volume by UTC day (days since 1970), in ledger units of euros. */
type Days = Map<number, bigint>

export type TradingVolumeSnapshot = [accountId: number, days: [day: number, amount: string][]][]

export class TradingVolume {
  readonly #byAccount = new Map<number, Days>()

  /** Adds a fill's euros (ledger units) to its account's day. */
  record(accountId: number, timestampMs: number, amount: bigint): void {
    const day = Math.floor(timestampMs / dayMs)
    let days = this.#byAccount.get(accountId)
    if (days === undefined) {
      days = new Map()
      this.#byAccount.set(accountId, days)
    }
    const before = days.get(day)
    days.set(day, (before ?? 0n) + amount)
    // A new day: the days that have left the window go (at most 30 stay, and one more).
    if (before === undefined)
      for (const kept of days.keys()) if (kept <= day - volumeWindowDays) days.delete(kept)
  }

  /** The account's euros traded on the day of `nowMs` and the 29 before, in ledger units. */
  of(accountId: number, nowMs: number): bigint {
    const days = this.#byAccount.get(accountId)
    if (days === undefined) return 0n
    const today = Math.floor(nowMs / dayMs)
    let total = 0n
    for (const [day, amount] of days)
      if (day <= today && day > today - volumeWindowDays) total += amount
    return total
  }

  /** The same, in whole euros (what the fee tiers are stated in). */
  euros(accountId: number, nowMs: number): number {
    return Number(this.of(accountId, nowMs) / 10n ** BigInt(ledgerDecimals))
  }

  snapshot(): TradingVolumeSnapshot {
    return [...this.#byAccount].map(([accountId, days]) => [
      accountId,
      [...days].map(([day, amount]) => [day, amount.toString()]),
    ])
  }

  static restore(snapshot: TradingVolumeSnapshot | undefined): TradingVolume {
    const volume = new TradingVolume()
    for (const [accountId, days] of snapshot ?? [])
      volume.#byAccount.set(accountId, new Map(days.map(([day, amount]) => [day, BigInt(amount)])))
    return volume
  }
}
