// The protocol's new-order limit (§2.3, error 104): at most 100 new orders a second and 100,000
// a day per account, on top of the weight budget. Every order an account's client sends counts,
// refused or not, as a rate limit counts requests; the simulator's and the savings plans' orders
// do not come this way. Counts are kept in memory and start over at a restart.

export type NewOrderLimits = { perSecondMax: number; perDayMax: number }

export const protocolNewOrderLimits: NewOrderLimits = { perSecondMax: 100, perDayMax: 100_000 }

type AccountCount = { second: number; inSecond: number; day: number; inDay: number }

export class NewOrderLimiter {
  readonly #limits: NewOrderLimits
  readonly #byAccount = new Map<number, AccountCount>()
  /** The newest day counted: when a later one comes, the accounts of earlier days go. */
  #day = 0

  constructor(limits: NewOrderLimits = protocolNewOrderLimits) {
    this.#limits = limits
  }

  /**
   * Counts a new order of the account at `nowMs`; false, counting nothing, past a limit. A
   * window starts over only when time moves past it: a clock stepping back does not.
   */
  allow(accountId: number, nowMs: number): boolean {
    const second = Math.floor(nowMs / 1_000)
    const day = Math.floor(nowMs / 86_400_000)
    if (day > this.#day) {
      this.#day = day
      for (const [id, count] of this.#byAccount) if (count.day < day) this.#byAccount.delete(id)
    }
    let count = this.#byAccount.get(accountId)
    if (count === undefined) {
      count = { second, inSecond: 0, day, inDay: 0 }
      this.#byAccount.set(accountId, count)
    }
    if (second > count.second) {
      count.second = second
      count.inSecond = 0
    }
    if (day > count.day) {
      count.day = day
      count.inDay = 0
    }
    if (count.inSecond >= this.#limits.perSecondMax || count.inDay >= this.#limits.perDayMax)
      return false
    count.inSecond += 1
    count.inDay += 1
    return true
  }

  /** Accounts counted today (for tests). */
  get accounts(): number {
    return this.#byAccount.size
  }
}
