import type { Ticker24h, Ticker24hEntry } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { PolderDecimal } from '../decimal/decimal.ts'
import {
  failed,
  initialized,
  type LoadError,
  type LoadState,
  received,
  requested,
  reset,
} from '../loadState.ts'

// Spec §3, §4: 24 h ticker entries of the -EUR markets, and the price-update map keyed by asset
// symbol ([last, change]; mobile updates carry only the last price). Updates apply only while the
// store is in state received: before the first full answer there is nothing to update.

export const tickerQuoteSuffix = '-EUR'

export type TickerEntry = {
  /** Always `<BASE>-EUR`. */
  readonly market: string
  readonly last: string | null
  readonly open: string | null
  /** (last − open) / open × 100 with 2 decimals; null without both prices or with open 0. */
  readonly change: string | null
  readonly high: string | null
  readonly low: string | null
  readonly volume: string
  readonly volumeQuote: string
}

/** `[last]` from mobile updates, `[last, change]` from the others. */
export type PriceUpdate = readonly [last: string, change?: string]

export type TickersByMarket = Readonly<Record<string, TickerEntry>>

export type Ticker24hState = {
  readonly load: LoadState<TickersByMarket>
  readonly priceUpdates: Readonly<Record<string, PriceUpdate>>
  request(): void
  receive(tickers: readonly (Ticker24h | Ticker24hEntry)[]): void
  fail(error: LoadError): void
  /** The `ticker24h` event. */
  applyTickers(entries: readonly Ticker24hEntry[]): void
  /** The `update` and `mobileUpdate` events. */
  applyPriceUpdates(data: Readonly<Record<string, PriceUpdate>>): void
  resetTicker24h(): void
}

export type Ticker24hStore = StoreApi<Ticker24hState>

function percentChange(open: string | null, last: string | null): string | null {
  if (open === null || last === null) return null
  const first = new PolderDecimal(open)
  if (first.isZero()) return null
  return new PolderDecimal(last).minus(first).div(first).times(100).toFixed(2)
}

function toEntry(ticker: Ticker24h | Ticker24hEntry): TickerEntry {
  return {
    market: ticker.market,
    last: ticker.last,
    open: ticker.open,
    change: percentChange(ticker.open, ticker.last),
    high: ticker.high,
    low: ticker.low,
    volume: ticker.volume,
    volumeQuote: ticker.volumeQuote,
  }
}

function mergeTickers(
  into: TickersByMarket,
  tickers: readonly (Ticker24h | Ticker24hEntry)[],
): TickersByMarket {
  const next: Record<string, TickerEntry> = { ...into }
  for (const ticker of tickers) {
    if (ticker.market.endsWith(tickerQuoteSuffix)) next[ticker.market] = toEntry(ticker)
  }
  return next
}

export function createTicker24hStore(): Ticker24hStore {
  return createStore<Ticker24hState>()((set, get) => ({
    load: initialized,
    priceUpdates: {},
    request: () => set({ load: requested() }),
    receive: (tickers) => set({ load: received(mergeTickers({}, tickers)) }),
    fail: (error) => set({ load: failed(error) }),
    applyTickers: (entries) => {
      const load = get().load
      if (load.status !== 'received') return
      set({ load: received(mergeTickers(load.data, entries)) })
    },
    applyPriceUpdates: (data) => {
      if (get().load.status !== 'received') return
      set({ priceUpdates: { ...get().priceUpdates, ...data } })
    },
    resetTicker24h: () => set({ load: reset(), priceUpdates: {} }),
  }))
}
