// Candles and 24-hour statistics per market, aggregated from the engine's public trades. Fed
// inside the core, so a journal replay rebuilds them. Each interval keeps its most recent
// `candlesPerIntervalMax` candles: as many as one candles request may return, and enough for
// every chart range of the spec (1h of 1m candles up to 2 months of 1d candles).
// Before the first live candle of a market, the simulator's backfilled history (when attached)
// continues each series into the past; it is not part of the snapshot (see candleHistory.ts).
import type { TradeEvent } from '@polder/engine'
import { candleInterval, type CandleInterval as ProtocolCandleInterval } from '@polder/protocol'
import type { CandleHistory } from './candleHistory.ts'

/** Every interval of the protocol (§3.1), the candles channel and `/{market}/candles`. */
export const candleIntervals = candleInterval.options
export type CandleInterval = ProtocolCandleInterval

export const candlesPerIntervalMax = 1440
/**
 * The 1m series keeps one more: the rolling 24 hours count the minutes that begin within
 * [now − 24 h, now], 1,441 of them when now is a whole minute.
 */
const oneMinuteCandlesKept = candlesPerIntervalMax + 1
const minuteMs = 60_000
const dayMs = 86_400_000
/** 1970-01-05, the first Monday after the epoch: weeks start on Mondays (UTC). */
const firstMondayMs = 4 * dayMs

/** The length of every interval but 1M's (months differ). */
export const fixedIntervalMs: Partial<Record<CandleInterval, number>> = {
  '1m': minuteMs,
  '5m': 5 * minuteMs,
  '15m': 15 * minuteMs,
  '30m': 30 * minuteMs,
  '1h': 60 * minuteMs,
  '2h': 120 * minuteMs,
  '4h': 240 * minuteMs,
  '6h': 360 * minuteMs,
  '8h': 480 * minuteMs,
  '12h': 720 * minuteMs,
  '1d': dayMs,
  '1W': 7 * dayMs,
}

/** The first minute that starts at or after `timestampMs`. */
export function minuteAtOrAfter(timestampMs: number): number {
  return Math.ceil(timestampMs / minuteMs) * minuteMs
}

/** Start of the candle that contains `timestampMs` (UTC). */
export function candleStartMs(interval: CandleInterval, timestampMs: number): number {
  if (interval === '1M') {
    const date = new Date(timestampMs)
    return Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), 1)
  }
  const length = fixedIntervalMs[interval]!
  const offset = interval === '1W' ? firstMondayMs : 0
  return Math.floor((timestampMs - offset) / length) * length + offset
}

/** Prices in price units, volume in base units, volumeQuote in quote units. */
export type Candle = {
  timestamp: number
  open: number
  high: number
  low: number
  close: number
  volume: number
  volumeQuote: bigint
}

export type Stats24h = {
  open: number | null
  openTimestamp: number | null
  high: number | null
  low: number | null
  last: number | null
  closeTimestamp: number | null
  volume: number
  volumeQuote: bigint
}

/** `older` followed by `newer` in the same interval: one candle spanning both. */
export function joinCandles(older: Candle, newer: Candle): Candle {
  return {
    timestamp: older.timestamp,
    open: older.open,
    high: Math.max(older.high, newer.high),
    low: Math.min(older.low, newer.low),
    close: newer.close,
    volume: older.volume + newer.volume,
    volumeQuote: older.volumeQuote + newer.volumeQuote,
  }
}

type CandleJson = Omit<Candle, 'volumeQuote'> & { volumeQuote: string }
export type MarketStatsSnapshot = {
  candles: [market: string, intervals: [interval: CandleInterval, candles: CandleJson[]][]][]
  lastTrades: TradeEvent[]
}

export class MarketStats {
  readonly #candles = new Map<string, Map<CandleInterval, Candle[]>>()
  readonly #lastTrade = new Map<string, TradeEvent>()
  #history: CandleHistory | undefined
  /**
   * The time of the newest trade of any market: no command is stamped before it
   * (`ExchangeService.submit`), so trades and fills come in time order whatever the clock does.
   */
  newestTradeMs = Number.NEGATIVE_INFINITY

  /** Shows `history` before the live candles. It is read only, and not part of `snapshot()`. */
  attachHistory(history: CandleHistory): void {
    this.#history = history
  }

  snapshot(): MarketStatsSnapshot {
    return {
      candles: [...this.#candles].map(([market, intervals]) => [
        market,
        [...intervals].map(([interval, candles]) => [
          interval,
          candles.map((candle) => ({ ...candle, volumeQuote: candle.volumeQuote.toString() })),
        ]),
      ]),
      lastTrades: [...this.#lastTrade.values()],
    }
  }

  static restore(snapshot: MarketStatsSnapshot): MarketStats {
    const stats = new MarketStats()
    for (const [market, intervals] of snapshot.candles) {
      stats.#candles.set(
        market,
        new Map(
          intervals.map(([interval, candles]) => [
            interval,
            candles.map((candle) => ({ ...candle, volumeQuote: BigInt(candle.volumeQuote) })),
          ]),
        ),
      )
    }
    for (const trade of snapshot.lastTrades) {
      stats.#lastTrade.set(trade.market, trade)
      stats.newestTradeMs = Math.max(stats.newestTradeMs, trade.timestamp)
    }
    return stats
  }

  record(trade: TradeEvent, quoteUnits: number): void {
    let byInterval = this.#candles.get(trade.market)
    if (byInterval === undefined) {
      byInterval = new Map(candleIntervals.map((interval) => [interval, []]))
      this.#candles.set(trade.market, byInterval)
    }
    for (const [interval, candles] of byInterval) {
      const start = candleStartMs(interval, trade.timestamp)
      const last = candles.at(-1)
      if (last !== undefined && last.timestamp === start) {
        last.high = Math.max(last.high, trade.price)
        last.low = Math.min(last.low, trade.price)
        last.close = trade.price
        last.volume += trade.amount
        last.volumeQuote += BigInt(quoteUnits)
      } else if (last === undefined || start > last.timestamp) {
        candles.push({
          timestamp: start,
          open: trade.price,
          high: trade.price,
          low: trade.price,
          close: trade.price,
          volume: trade.amount,
          volumeQuote: BigInt(quoteUnits),
        })
        const kept = interval === '1m' ? oneMinuteCandlesKept : candlesPerIntervalMax
        if (candles.length > kept) candles.splice(0, candles.length - kept)
      }
      // A trade older than the newest candle cannot happen: no command is stamped before the
      // newest trade (only a journal of a build from before that rule could hold one).
    }
    this.#lastTrade.set(trade.market, trade)
    if (trade.timestamp > this.newestTradeMs) this.newestTradeMs = trade.timestamp
  }

  /** Candles of [startMs, endMs], newest first, at most `limit` (no candle where nothing traded). */
  candles(
    market: string,
    interval: CandleInterval,
    startMs: number,
    endMs: number,
    limit: number,
  ): Candle[] {
    return this.withHistory(
      market,
      interval,
      startMs,
      endMs,
      limit,
      this.liveCandles(market, interval, startMs, endMs, limit),
    )
  }

  /** The live candles kept in memory of [startMs, endMs], newest first, at most `limit`. */
  liveCandles(
    market: string,
    interval: CandleInterval,
    startMs: number,
    endMs: number,
    limit: number,
  ): Candle[] {
    const candles = this.#candles.get(market)?.get(interval) ?? []
    const result: Candle[] = []
    for (let index = candles.length - 1; index >= 0 && result.length < limit; index -= 1) {
      const candle = candles[index]!
      if (candle.timestamp > endMs) continue
      if (candle.timestamp < startMs) break
      // The newest may still be open (its trades change it while a caller awaits the archive):
      // it is copied; closed candles never change again.
      result.push(index === candles.length - 1 ? { ...candle } : candle)
    }
    return result
  }

  /** The start of the oldest live candle kept in memory, undefined when none is. */
  oldestLiveMs(market: string, interval: CandleInterval): number | undefined {
    return this.#candles.get(market)?.get(interval)?.[0]?.timestamp
  }

  /** The live candle of `interval` that starts at `startMs`, if it is kept in memory. */
  liveCandle(market: string, interval: CandleInterval, startMs: number): Candle | undefined {
    const candles = this.#candles.get(market)?.get(interval) ?? []
    for (let index = candles.length - 1; index >= 0; index -= 1) {
      const candle = candles[index]!
      if (candle.timestamp <= startMs) return candle.timestamp === startMs ? candle : undefined
    }
    return undefined
  }

  /** Every market's live candles of `interval` kept in memory, oldest first. */
  *liveSeries(interval: CandleInterval): Generator<[market: string, candles: readonly Candle[]]> {
    for (const [market, intervals] of this.#candles) {
      const candles = intervals.get(interval)
      if (candles !== undefined && candles.length > 0) yield [market, candles]
    }
  }

  /**
   * `live` (newest first, all of [startMs, endMs] newer than the history) continued into the past
   * by the simulated history, at most `limit` in all.
   */
  withHistory(
    market: string,
    interval: CandleInterval,
    startMs: number,
    endMs: number,
    limit: number,
    live: Candle[],
  ): Candle[] {
    const result = live
    if (this.#history?.has(market) !== true) return result
    // The history is older than every live candle, except that the live series may continue
    // the history's last candle (same start): that one is shown joined.
    for (const older of this.#history.candles(market, interval, startMs, endMs, limit)) {
      const oldest = result.at(-1)
      if (oldest !== undefined && oldest.timestamp === older.timestamp)
        result[result.length - 1] = joinCandles(older, oldest)
      else if (result.length >= limit) break
      else if (oldest === undefined || older.timestamp < oldest.timestamp) result.push(older)
    }
    return result
  }

  /**
   * The candle of `interval` that holds `timestampMs`, as it stands now: for a trade's event, the
   * candle that trade went into, even when a later trade of the same commit has begun the next
   * one (undefined when nothing traded in it, or it is older than the candles kept).
   */
  candleAt(market: string, interval: CandleInterval, timestampMs: number): Candle | undefined {
    const start = candleStartMs(interval, timestampMs)
    const candles = this.#candles.get(market)?.get(interval) ?? []
    let live: Candle | undefined
    for (let index = candles.length - 1; index >= 0; index -= 1) {
      const candle = candles[index]!
      if (candle.timestamp <= start) {
        if (candle.timestamp === start) live = candle
        break
      }
    }
    const older = this.#history?.lastCandle(market, interval)
    if (older === undefined || older.timestamp !== start) return live
    return live === undefined ? older : joinCandles(older, live)
  }

  /**
   * The end of a rolling 24 hours read at `clockMs`: the clock, or the newest trade's time while
   * the clock is behind it (it stepped back; the core stamps commands no earlier than that
   * trade), so that a ticker counts the trade it shows as its last.
   */
  windowEndMs(clockMs: number): number {
    return Math.max(clockMs, this.newestTradeMs)
  }

  /** Rolling 24 hours to `nowMs`, from the 1m candles (the history's, then the live ones). */
  stats24h(market: string, nowMs: number): Stats24h {
    const candles = this.#candles.get(market)?.get('1m') ?? []
    const fromMs = nowMs - dayMs
    const older = this.#history?.summarySince(market, fromMs)
    const stats: Stats24h =
      older === undefined || older.openTimestamp > nowMs
        ? {
            open: null,
            openTimestamp: null,
            high: null,
            low: null,
            last: null,
            closeTimestamp: null,
            volume: 0,
            volumeQuote: 0n,
          }
        : {
            open: older.open,
            openTimestamp: older.openTimestamp,
            high: older.high,
            low: older.low,
            last: older.close,
            closeTimestamp: older.closeTimestamp,
            volume: older.volume,
            volumeQuote: older.volumeQuote,
          }
    // At the candles' resolution: the minutes that begin within the window, so that nothing
    // counted is older than the window's start (`startTimestamp`); the trades of the partial
    // minute at its start are not counted.
    const fromMinute = minuteAtOrAfter(fromMs)
    for (const candle of candles) {
      if (candle.timestamp < fromMinute || candle.timestamp > nowMs) continue
      if (stats.open === null) {
        stats.open = candle.open
        stats.openTimestamp = candle.timestamp
      }
      stats.high = stats.high === null ? candle.high : Math.max(stats.high, candle.high)
      stats.low = stats.low === null ? candle.low : Math.min(stats.low, candle.low)
      stats.volume += candle.volume
      stats.volumeQuote += candle.volumeQuote
    }
    const lastTrade = this.#lastTrade.get(market)
    if (lastTrade !== undefined) {
      stats.last = lastTrade.price
      stats.closeTimestamp = lastTrade.timestamp
    }
    return stats
  }
}
