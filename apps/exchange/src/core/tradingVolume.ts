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

/** Flat: account id, day, amount (a decimal string), then the next account-day. */
export type TradingVolumeSnapshot = (number | string)[]

export class TradingVolume {
  readonly #byAccount = new Map<number, Days>()
  /** The newest day a fill has been recorded on: a clock stepping back does not hide it. */
  #newestDay = 0

  /** Adds a fill's euros (ledger units) to its account's day. */
  record(accountId: number, timestampMs: number, amount: bigint): void {
    const day = Math.floor(timestampMs / dayMs)
    if (day > this.#newestDay) this.#newestDay = day
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

  /**
   * The account's euros traded on the day of `nowMs` (or of the newest fill, if the clock reads
   * earlier) and the 29 before, in ledger units.
   */
  of(accountId: number, nowMs: number): bigint {
    const days = this.#byAccount.get(accountId)
    if (days === undefined) return 0n
    const today = Math.max(Math.floor(nowMs / dayMs), this.#newestDay)
    let total = 0n
    for (const [day, amount] of days) if (day > today - volumeWindowDays) total += amount
    return total
  }

  /** The same, in whole euros (what the fee tiers are stated in). */
  euros(accountId: number, nowMs: number): number {
    return Number(this.of(accountId, nowMs) / 10n ** BigInt(ledgerDecimals))
  }

  /**
   * The days still in the window (as of the newest fill), flat. Accounts with none left are
   * forgotten here, so that an account that stopped trading leaves memory and the snapshots.
   */
  snapshot(): TradingVolumeSnapshot {
    const flat: TradingVolumeSnapshot = []
    const oldest = this.#newestDay - volumeWindowDays + 1
    for (const [accountId, days] of this.#byAccount) {
      for (const [day, amount] of days) {
        if (day >= oldest) flat.push(accountId, day, amount.toString())
        else days.delete(day)
      }
      if (days.size === 0) this.#byAccount.delete(accountId)
    }
    return flat
  }

  static restore(snapshot: TradingVolumeSnapshot | undefined): TradingVolume {
    const volume = new TradingVolume()
    const flat = snapshot ?? []
    for (let at = 0; at + 2 < flat.length; at += 3) {
      const accountId = flat[at] as number
      const day = flat[at + 1] as number
      let days = volume.#byAccount.get(accountId)
      if (days === undefined) {
        days = new Map()
        volume.#byAccount.set(accountId, days)
      }
      days.set(day, BigInt(flat[at + 2] as string))
      if (day > volume.#newestDay) volume.#newestDay = day
    }
    return volume
  }

  /** Accounts with days kept (for tests). */
  get accounts(): number {
    return this.#byAccount.size
  }
}
