import { PolderDecimal } from '../decimal/decimal.ts'
import { BookSide, type Level } from './bookSide.ts'

// A local order book of one market and the merge rules of spec §5:
// - an amount of 0 removes the price level;
// - bids are sorted descending, asks ascending;
// - an update without a nonce is rejected;
// - updates are ignored while the book is not loaded (no snapshot yet).
// Nonce continuity (gaps, stale updates) is the business of the desktop and mobile syncs, which
// decide between merging, ignoring and resynchronising before they call `merge`.

/** A book update as merged: the `book` event's levels and nonce (absent on a malformed update). */
export type BookUpdate = {
  readonly nonce?: number | undefined
  readonly bids: readonly Level[]
  readonly asks: readonly Level[]
}

/** A snapshot (`getBook` response): levels best-first and the nonce of the last published event. */
export type BookSnapshotInput = {
  readonly nonce: number
  readonly bids: readonly Level[]
  readonly asks: readonly Level[]
}

export type MergeResult = 'merged' | 'rejectedWithoutNonce' | 'ignoredNotLoaded'

/** What the store holds of a book: immutable level arrays, nonce, midPrice and spread. */
export type OrderBookSnapshot = {
  readonly market: string
  readonly nonce: number
  readonly bids: readonly Level[]
  readonly asks: readonly Level[]
  /** (best ask + best bid) / 2, or '0' when either side is empty. */
  readonly midPrice: string
  /** best ask − best bid, or '0' when either side is empty. */
  readonly spread: string
}

export class OrderBook {
  readonly market: string
  readonly bids = new BookSide(true)
  readonly asks = new BookSide(false)
  #nonce = -1
  #loaded = false

  constructor(market: string) {
    this.market = market
  }

  get loaded(): boolean {
    return this.#loaded
  }

  /** The nonce of the last merged update or snapshot; -1 before the first snapshot. */
  get nonce(): number {
    return this.#nonce
  }

  loadSnapshot(snapshot: BookSnapshotInput): void {
    this.bids.clear()
    this.asks.clear()
    // Applied level by level, so a snapshot in any order still ends sorted.
    for (const [price, amount] of snapshot.bids) this.bids.apply(price, amount)
    for (const [price, amount] of snapshot.asks) this.asks.apply(price, amount)
    this.#nonce = snapshot.nonce
    this.#loaded = true
  }

  /** Forget the levels; updates are ignored until the next snapshot. */
  unload(): void {
    this.bids.clear()
    this.asks.clear()
    this.#loaded = false
    this.#nonce = -1
  }

  merge(update: BookUpdate): MergeResult {
    if (update.nonce === undefined || !Number.isInteger(update.nonce)) {
      return 'rejectedWithoutNonce'
    }
    if (!this.#loaded) return 'ignoredNotLoaded'
    const bids = update.bids
    for (let index = 0; index < bids.length; index += 1) {
      const level = bids[index]!
      this.bids.apply(level[0], level[1])
    }
    const asks = update.asks
    for (let index = 0; index < asks.length; index += 1) {
      const level = asks[index]!
      this.asks.apply(level[0], level[1])
    }
    this.#nonce = update.nonce
    return 'merged'
  }

  snapshot(): OrderBookSnapshot {
    const bestBid = this.bids.priceAt(0)
    const bestAsk = this.asks.priceAt(0)
    const { midPrice, spread } = midPriceAndSpread(bestBid, bestAsk)
    return {
      market: this.market,
      nonce: this.#nonce,
      bids: this.bids.toLevels(),
      asks: this.asks.toLevels(),
      midPrice,
      spread,
    }
  }
}

/** Spec §3: from the best ask and best bid; both '0' when either side is missing. */
export function midPriceAndSpread(
  bestBid: string | undefined,
  bestAsk: string | undefined,
): { midPrice: string; spread: string } {
  if (bestBid === undefined || bestAsk === undefined) return { midPrice: '0', spread: '0' }
  const bid = new PolderDecimal(bestBid)
  const ask = new PolderDecimal(bestAsk)
  return { midPrice: ask.plus(bid).div(2).toFixed(), spread: ask.minus(bid).toFixed() }
}
