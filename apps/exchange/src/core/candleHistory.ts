// Simulated candle history: what the market simulator backfills on an exchange's first start, so
// that every chart range has data at once. It is not exchange state (no balance or order depends
// on it), so it is neither journaled nor snapshotted: it is stored once, in its own table, and
// read from here. MarketStats shows it before the first live candle of each market.
//
// One candle per hour is stored (60 days × 200 markets is about 290,000 candles). The 30m, 15m,
// 5m and 1m candles inside an hour are drawn when read: each candle splits into the next level's
// along a Brownian bridge seeded from the history's seed, the market and the candle, opening,
// closing, peaking and bottoming exactly where the candle does. Every interval therefore
// aggregates to the same chart, a request always gets the same candles, and 60 days of 1m
// candles (17 million for 200 markets) never need storing.
import { normalSource, seededRandom } from '../simulator/random.ts'
import {
  type Candle,
  type CandleInterval,
  candleStartMs,
  joinCandles,
  minuteAtOrAfter,
} from './marketStats.ts'

export const minuteMs = 60_000
export const hourMs = 3_600_000

/** One market's history. Prices in price units, volume in base units, volumeQuote in quote units. */
export type MarketHistory = {
  market: string
  /** The simulator seed it was generated with; the sub-hour candles are drawn from it too. */
  seed: number
  /** Start of the first hour (00:00 UTC). */
  startMs: number
  /** Where the history ends and live trading begins: a whole minute, so the last hour may be partial. */
  endMs: number
  /** The price grid of the market, so drawn prices are prices the market could trade at. */
  tickUnits: number
  pricePrecision: number
  /** Quote units per price unit × base unit (the quote volume of a stored hour is derived). */
  quotePerPriceBase: number
  /** Per hour, in order: open, high, low, close, volume, volumeQuote. */
  hours: Float64Array
}

export const hourFields = 6

/**
 * The nearest price at or above `tickUnits` that the market accepts: a multiple of the tick with
 * at most `pricePrecision` significant digits (0: no limit). Monotone and exact on valid prices,
 * so a value between two valid prices rounds to a price between them.
 */
export function validPrice(units: number, tickUnits: number, pricePrecision: number): number {
  const step = priceStep(units, tickUnits, pricePrecision)
  return Math.max(tickUnits, Math.round(units / step) * step)
}

/**
 * The distance between two neighbouring valid prices around `units`: the tick, or, where a
 * price has more digits than `pricePrecision`, the power of ten that leaves that many (a multiple
 * of the tick).
 */
export function priceStep(units: number, tickUnits: number, pricePrecision: number): number {
  if (pricePrecision <= 0) return tickUnits
  const digitsMax = 10 ** pricePrecision
  let power = 1
  while (units >= digitsMax * power) power *= 10
  return power > 1 ? lcm(power, tickUnits) : tickUnits
}

function lcm(a: number, b: number): number {
  let x = a
  let y = b
  while (y !== 0) [x, y] = [y, x % y]
  return (a / x) * b
}

/** FNV-1a: a 32-bit seed from text, so each market and hour gets its own random stream. */
export function hash32(text: string): number {
  let hash = 0x811c9dc5
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index)
    hash = Math.imul(hash, 0x01000193)
  }
  return hash >>> 0
}

/** A candle and how long it lasts (the history's last hour, and what it splits into, may be short). */
type Span = Candle & { durationMs: number }

/**
 * How an hour is drawn, level by level: its two 30m halves, their 15m halves, their three 5m
 * thirds, their five minutes. A candle of any level is reached in at most four splits, without
 * drawing the levels below it.
 */
const levels: readonly { interval: CandleInterval; lengthMs: number }[] = [
  { interval: '30m', lengthMs: 30 * minuteMs },
  { interval: '15m', lengthMs: 15 * minuteMs },
  { interval: '5m', lengthMs: 5 * minuteMs },
  { interval: '1m', lengthMs: minuteMs },
]

/** Intervals drawn inside one hour; every longer interval is a whole number of hours. */
const subHourIntervals = new Set(levels.map((level) => level.interval))

function hourSpan(history: MarketHistory, index: number): Span {
  const at = index * hourFields
  const hours = history.hours
  const timestamp = history.startMs + index * hourMs
  return {
    timestamp,
    open: hours[at]!,
    high: hours[at + 1]!,
    low: hours[at + 2]!,
    close: hours[at + 3]!,
    volume: hours[at + 4]!,
    volumeQuote: BigInt(hours[at + 5]!),
    durationMs: Math.min(hourMs, history.endMs - timestamp),
  }
}

function toCandle({ durationMs: _durationMs, ...candle }: Span): Candle {
  return candle
}

/** Splits `total` into integer parts proportional to `weights` (the remainder goes to the last). */
function splitAmount(total: number, weights: readonly number[], weightSum: number): number[] {
  let given = 0
  return weights.map((weight, index) => {
    if (index === weights.length - 1) return total - given
    const part = Math.floor((total * weight) / weightSum)
    given += part
    return part
  })
}

/** An expected range of about 1.6 σ√T for a Brownian motion: σ per √step from a candle's range. */
const rangePerSigma = 1.6

/**
 * The candles of `lengthMs` that `parent` consists of, ascending. Their first open, last close,
 * highest high, lowest low and summed volumes are the parent's own; the prices between follow a
 * Brownian bridge from open to close at the parent's own volatility, kept inside its range.
 * Seeded by the history's seed, the market, the parent's start and the length: the same
 * candle always splits the same way.
 */
function split(history: MarketHistory, parent: Span, lengthMs: number): Span[] {
  const count = Math.ceil(parent.durationMs / lengthMs)
  if (count <= 1) return [parent]
  // A single unit traded (a market of whole units, a quiet stretch): one trade, in the first child.
  if (parent.volume < 2) return [{ ...parent, durationMs: Math.min(lengthMs, parent.durationMs) }]
  const random = seededRandom(
    hash32(`${history.seed} ${history.market} ${parent.timestamp} ${lengthMs}`),
  )
  const normal = normalSource(random)
  const round = (units: number) =>
    Math.min(
      parent.high,
      Math.max(parent.low, validPrice(units, history.tickUnits, history.pricePrecision)),
    )
  // Child durations in child lengths (the last may be short), and the boundaries between them.
  const steps = Array.from(
    { length: count },
    (_, k) => Math.min(lengthMs, parent.durationMs - k * lengthMs) / lengthMs,
  )
  const total = steps.reduce((sum, step) => sum + step, 0)
  const elapsed = new Float64Array(count + 1)
  const walk = new Float64Array(count + 1)
  for (let k = 0; k < count; k += 1) {
    elapsed[k + 1] = elapsed[k]! + steps[k]!
    walk[k + 1] = walk[k]! + normal() * Math.sqrt(steps[k]!)
  }
  const line = (k: number) => parent.open + ((parent.close - parent.open) * elapsed[k]!) / total
  const bridge = (k: number) => walk[k]! - (elapsed[k]! / total) * walk[count]!
  // The parent's volatility per step, narrowed where the bridge would leave the range; a fifth
  // of the room stays for the wicks.
  let scale = (parent.high - parent.low) / (rangePerSigma * Math.sqrt(total))
  for (let k = 1; k < count; k += 1) {
    const point = bridge(k)
    if (point > 0) scale = Math.min(scale, (0.8 * (parent.high - line(k))) / point)
    else if (point < 0) scale = Math.min(scale, (0.8 * (line(k) - parent.low)) / -point)
  }
  const points = Array.from({ length: count + 1 }, (_, k) =>
    k === 0 ? parent.open : k === count ? parent.close : round(line(k) + scale * bridge(k)),
  )
  const weights = steps.map((step) => step * (0.25 + random()))
  const weightSum = weights.reduce((sum, weight) => sum + weight, 0)
  // Whole base units: the first and the last child get one at least (they carry the parent's open
  // and close); a child left without any traded nothing, and is no candle (as a live interval
  // without trades), its prices a stretch of the path no trade touched.
  const volumes = splitAmount(parent.volume - 2, weights, weightSum)
  volumes[0] = volumes[0]! + 1
  volumes[count - 1] = volumes[count - 1]! + 1
  const volumeQuotes = splitAmount(Number(parent.volumeQuote), volumes, parent.volume)
  const children = steps.map((step, k): Span => {
    const open = points[k]!
    const close = points[k + 1]!
    const wick = scale * Math.sqrt(step) * 0.5
    return {
      timestamp: parent.timestamp + k * lengthMs,
      open,
      high: round(Math.max(open, close) + Math.abs(normal()) * wick),
      low: round(Math.min(open, close) - Math.abs(normal()) * wick),
      close,
      volume: volumes[k]!,
      volumeQuote: BigInt(volumeQuotes[k]!),
      durationMs: step * lengthMs,
    }
  })
  // The parent's extremes happen in some child that traded: in the one that comes closest already.
  const traded = children.filter((child) => child.volume > 0)
  const highest = traded.reduce((best, child) => (child.high > best.high ? child : best))
  highest.high = parent.high
  const lowest = traded.reduce((best, child) => (child.low < best.low ? child : best))
  lowest.low = parent.low
  return traded
}

/** The candles of a sub-hour `interval` in hour `index`, ascending. */
export function candlesOfHour(
  history: MarketHistory,
  index: number,
  interval: CandleInterval,
): Candle[] {
  let spans = [hourSpan(history, index)]
  for (const level of levels) {
    spans = spans.flatMap((span) => split(history, span, level.lengthMs))
    if (level.interval === interval) return spans.map(toCandle)
  }
  throw new RangeError(`${interval} is not drawn inside an hour`)
}

/** The 1m-resolution summary of a stretch of history (for rolling 24-hour statistics). */
export type HistorySummary = {
  open: number
  openTimestamp: number
  high: number
  low: number
  close: number
  /** When the summarised stretch ends (the history's end). */
  closeTimestamp: number
  volume: number
  volumeQuote: bigint
}

export class CandleHistory {
  readonly #markets = new Map<string, MarketHistory>()
  readonly #lastCandles = new Map<string, Candle | undefined>()

  constructor(histories: Iterable<MarketHistory>) {
    for (const history of histories) this.#markets.set(history.market, history)
  }

  get size(): number {
    return this.#markets.size
  }

  has(market: string): boolean {
    return this.#markets.has(market)
  }

  market(market: string): MarketHistory | undefined {
    return this.#markets.get(market)
  }

  /** Candles of [startMs, endMs], newest first, at most `limit`. */
  candles(
    market: string,
    interval: CandleInterval,
    startMs: number,
    endMs: number,
    limit: number,
  ): Candle[] {
    const history = this.#markets.get(market)
    if (history === undefined || limit <= 0) return []
    const result: Candle[] = []
    const hourCount = history.hours.length / hourFields
    if (subHourIntervals.has(interval)) {
      for (let index = hourCount - 1; index >= 0 && result.length < limit; index -= 1) {
        const hourStart = history.startMs + index * hourMs
        if (hourStart > endMs) continue
        if (hourStart + hourMs <= startMs) break
        const candles = candlesOfHour(history, index, interval)
        for (let k = candles.length - 1; k >= 0 && result.length < limit; k -= 1) {
          const candle = candles[k]!
          if (candle.timestamp >= startMs && candle.timestamp <= endMs) result.push(candle)
        }
      }
      return result
    }
    // Longer intervals: whole hours, folded newest first into their interval.
    let current: Candle | undefined
    for (let index = hourCount - 1; index >= 0; index -= 1) {
      const hour = toCandle(hourSpan(history, index))
      const start = candleStartMs(interval, hour.timestamp)
      if (start > endMs) continue
      if (start < startMs) break
      if (current !== undefined && current.timestamp === start) {
        current = joinCandles({ ...hour, timestamp: start }, current)
        continue
      }
      if (current !== undefined) {
        result.push(current)
        if (result.length >= limit) return result
      }
      current = { ...hour, timestamp: start }
    }
    if (current !== undefined && result.length < limit) result.push(current)
    return result
  }

  /** The newest candle of `interval`: the one a live candle of the same start continues. */
  lastCandle(market: string, interval: CandleInterval): Candle | undefined {
    const key = `${market} ${interval}`
    if (!this.#lastCandles.has(key)) {
      const history = this.#markets.get(market)
      const candle =
        history === undefined ? undefined : this.candles(market, interval, 0, history.endMs, 1)[0]
      this.#lastCandles.set(key, candle)
    }
    return this.#lastCandles.get(key)
  }

  /**
   * The history from the first minute that starts at or after `fromMs` to its end, at 1m
   * resolution; undefined if none.
   */
  summarySince(market: string, fromMs: number): HistorySummary | undefined {
    const history = this.#markets.get(market)
    const fromMinute = minuteAtOrAfter(fromMs)
    if (history === undefined || fromMinute >= history.endMs) return undefined
    const hourCount = history.hours.length / hourFields
    const first = Math.max(0, Math.floor((fromMinute - history.startMs) / hourMs))
    let summary: HistorySummary | undefined
    const add = (candle: Candle) => {
      if (summary === undefined) {
        summary = {
          open: candle.open,
          openTimestamp: candle.timestamp,
          high: candle.high,
          low: candle.low,
          close: candle.close,
          closeTimestamp: history.endMs,
          volume: candle.volume,
          volumeQuote: candle.volumeQuote,
        }
        return
      }
      summary.high = Math.max(summary.high, candle.high)
      summary.low = Math.min(summary.low, candle.low)
      summary.close = candle.close
      summary.volume += candle.volume
      summary.volumeQuote += candle.volumeQuote
    }
    // Whole candles inside the window count as they are; the one the window starts in is split
    // down to the minute of `fromMs`, only along the way there.
    const visit = (span: Span, depth: number) => {
      if (span.timestamp >= fromMinute) add(span)
      else if (span.timestamp + span.durationMs > fromMinute && depth < levels.length)
        for (const child of split(history, span, levels[depth]!.lengthMs)) visit(child, depth + 1)
    }
    for (let index = first; index < hourCount; index += 1) visit(hourSpan(history, index), 0)
    return summary
  }
}
