import { compareDecimals, isZeroDecimal } from '../decimal/compareDecimal.ts'

// One side of a local order book: levels kept sorted best-first in parallel arrays (a float key,
// the price string, the amount string) and found by binary search.
//
// Exactness: the float key `Number(price)` only speeds up comparisons. Correctly rounded parsing
// is monotone (a < b implies Number(a) <= Number(b)), so different keys order the prices
// exactly; equal keys fall back to `compareDecimals` on the strings. Two prices that round to
// the same double stay two levels, and '1.50' and '1.5' are one level.
//
// Cost per level update: one parse, log2(depth) comparisons, and a shift of the arrays on insert
// or delete. No allocation except when the arrays grow (doubling, so amortised to nothing).

/** A `[price, amount]` pair as on the wire. */
export type Level = readonly [price: string, amount: string]

/** Most levels a side keeps; beyond it the worst level is dropped so the touch stays exact. */
export const bookLevelsPerSideMax = 10_000

const initialCapacity = 256

export class BookSide {
  /** Bids are best when highest (descending), asks when lowest (ascending). */
  readonly descending: boolean
  #keys = new Float64Array(initialCapacity)
  #prices: string[] = new Array<string>(initialCapacity)
  #amounts: string[] = new Array<string>(initialCapacity)
  #size = 0

  constructor(descending: boolean) {
    this.descending = descending
  }

  get size(): number {
    return this.#size
  }

  priceAt(index: number): string | undefined {
    return index < this.#size ? this.#prices[index] : undefined
  }

  amountAt(index: number): string | undefined {
    return index < this.#size ? this.#amounts[index] : undefined
  }

  clear(): void {
    this.#size = 0
  }

  /** Index of the level with this price, or `~insertionIndex` (negative) when absent. */
  #search(key: number, price: string): number {
    const keys = this.#keys
    const prices = this.#prices
    const direction = this.descending ? -1 : 1
    let low = 0
    let high = this.#size - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const middleKey = keys[middle]!
      let order =
        middleKey < key ? -1 : middleKey > key ? 1 : compareDecimals(prices[middle]!, price)
      order *= direction
      if (order < 0) low = middle + 1
      else if (order > 0) high = middle - 1
      else return middle
    }
    return ~low
  }

  /** Set the total amount at a price; an amount of zero removes the level (spec §5). */
  apply(price: string, amount: string): void {
    const key = Number(price)
    const index = this.#search(key, price)
    if (isZeroDecimal(amount)) {
      if (index >= 0) this.#removeAt(index)
      return
    }
    if (index >= 0) {
      this.#amounts[index] = amount
      return
    }
    this.#insertAt(~index, key, price, amount)
  }

  #removeAt(index: number): void {
    const size = this.#size
    this.#keys.copyWithin(index, index + 1, size)
    const prices = this.#prices
    const amounts = this.#amounts
    for (let at = index; at < size - 1; at += 1) {
      prices[at] = prices[at + 1]!
      amounts[at] = amounts[at + 1]!
    }
    this.#size = size - 1
  }

  #insertAt(index: number, key: number, price: string, amount: string): void {
    if (this.#size === bookLevelsPerSideMax) {
      if (index === this.#size) return // worse than every kept level
      this.#size -= 1
    }
    if (this.#size === this.#keys.length) this.#grow()
    const size = this.#size
    this.#keys.copyWithin(index + 1, index, size)
    const prices = this.#prices
    const amounts = this.#amounts
    for (let at = size; at > index; at -= 1) {
      prices[at] = prices[at - 1]!
      amounts[at] = amounts[at - 1]!
    }
    this.#keys[index] = key
    prices[index] = price
    amounts[index] = amount
    this.#size = size + 1
  }

  #grow(): void {
    const capacity = this.#keys.length * 2
    const keys = new Float64Array(capacity)
    keys.set(this.#keys)
    this.#keys = keys
    this.#prices.length = capacity
    this.#amounts.length = capacity
  }

  /** The levels best-first, as a fresh array (for the store; called per commit, not per update). */
  toLevels(depthMax = this.#size): Level[] {
    const count = Math.min(depthMax, this.#size)
    const levels = new Array<Level>(count)
    for (let index = 0; index < count; index += 1) {
      levels[index] = [this.#prices[index]!, this.#amounts[index]!]
    }
    return levels
  }
}
