// The simulator's backfill: on an exchange's first start, 60 days of hourly candles per market,
// so every chart range has data at once. Each market's price follows the same geometric random
// walk as the live simulator (the asset's daily volatility), walked backwards from the price the
// live simulator starts at, so the chart joins the live data without a jump. Volumes are sized
// like the simulator's own taker flow. Pure and deterministic: the seed, the end time and the
// markets give the same history every time.
import {
  hash32,
  hourFields,
  hourMs,
  type MarketHistory,
  minuteMs,
  validPrice,
} from '../core/candleHistory.ts'
import { normalSource, seededRandom } from './random.ts'

/** Days of history before the day the exchange first starts (that day's hours come on top). */
export const backfillDays = 60
const dayMs = 86_400_000

export type BackfillMarket = {
  market: string
  /** The price the live simulator starts from, in price units: the history ends exactly there. */
  endPrice: number
  volatilityPercentPerDay: number
  tickUnits: number
  pricePrecision: number
  minPrice: number
  maxPrice: number
  /** The smallest order, in base units. */
  minAmount: number
  /** Quote units per price unit × base unit. */
  quotePerPriceBase: number
  /** Base volume of an average hour, in base units (see `hourlyVolumeOfSimulator`). */
  hourlyVolume: number
}

/**
 * What the live simulator trades in an average hour, in base units: one taker order after
 * `takerProbability` of the re-quotes (one every `requoteIntervalMs`), of 1 to 5 minimum amounts
 * (3 on average). The history uses the same, so volume bars do not jump either.
 */
export function hourlyVolumeOfSimulator(
  minAmount: number,
  requoteIntervalMs: number,
  takerProbability: number,
): number {
  return (hourMs / requoteIntervalMs) * takerProbability * 3 * minAmount
}

/**
 * Hourly candles from 00:00 UTC `backfillDays` days before the day of `endMs` to the minute of
 * `endMs`, per market. The last hour is partial when `endMs` is not on a whole hour.
 */
export function backfillCandles(
  seed: number,
  endMs: number,
  markets: readonly BackfillMarket[],
): MarketHistory[] {
  const endMinuteMs = Math.floor(endMs / minuteMs) * minuteMs
  const startMs = Math.floor(endMinuteMs / dayMs) * dayMs - backfillDays * dayMs
  return markets.map((market) => backfillMarket(seed, startMs, endMinuteMs, market))
}

function backfillMarket(
  seed: number,
  startMs: number,
  endMs: number,
  market: BackfillMarket,
): MarketHistory {
  const normal = normalSource(seededRandom(hash32(`history ${seed} ${market.market}`)))
  const hourCount = Math.ceil((endMs - startMs) / hourMs)
  const volatility = market.volatilityPercentPerDay / 100
  const daysOf = (index: number) =>
    (Math.min(endMs, startMs + (index + 1) * hourMs) - (startMs + index * hourMs)) / dayMs
  // A generous band the walk may not leave, so no price leaves the market's grid.
  const lowest = Math.max(market.minPrice, market.tickUnits, market.endPrice / 50)
  const highest = Math.min(market.maxPrice, market.endPrice * 50)
  const price = (units: number) =>
    validPrice(Math.min(highest, Math.max(lowest, units)), market.tickUnits, market.pricePrecision)

  // Log prices at the hour boundaries, from the end backwards: the last one is the live start.
  const logPrices = new Float64Array(hourCount + 1)
  logPrices[hourCount] = Math.log(market.endPrice)
  for (let index = hourCount - 1; index >= 0; index -= 1) {
    const days = daysOf(index)
    const step = volatility * Math.sqrt(days) * normal() - (volatility ** 2 * days) / 2
    logPrices[index] = logPrices[index + 1]! - step
  }

  const hours = new Float64Array(hourCount * hourFields)
  for (let index = 0; index < hourCount; index += 1) {
    const days = daysOf(index)
    const spread = volatility * Math.sqrt(days)
    const open = price(Math.exp(logPrices[index]!))
    const close = index === hourCount - 1 ? market.endPrice : price(Math.exp(logPrices[index + 1]!))
    // The walk's excursion beyond its endpoints within the hour, about half a step each way.
    const high = Math.max(
      open,
      close,
      price(Math.max(open, close) * Math.exp(Math.abs(normal()) * spread * 0.5)),
    )
    const low = Math.min(
      open,
      close,
      price(Math.min(open, close) * Math.exp(-Math.abs(normal()) * spread * 0.5)),
    )
    // Lognormal around the simulator's rate (mean 1), never below one minimum order.
    const volume = Math.max(
      market.minAmount,
      Math.round(market.hourlyVolume * days * 24 * Math.exp(0.6 * normal() - 0.18)),
    )
    const volumeQuote = hourVolumeQuote(open, high, low, close, volume, market.quotePerPriceBase)
    const at = index * hourFields
    hours[at] = open
    hours[at + 1] = high
    hours[at + 2] = low
    hours[at + 3] = close
    hours[at + 4] = volume
    hours[at + 5] = volumeQuote
  }
  return {
    market: market.market,
    seed,
    startMs,
    endMs,
    tickUnits: market.tickUnits,
    pricePrecision: market.pricePrecision,
    quotePerPriceBase: market.quotePerPriceBase,
    hours,
  }
}

/** An hour's quote volume: its volume at the mean of its four prices (quote units). */
export function hourVolumeQuote(
  open: number,
  high: number,
  low: number,
  close: number,
  volume: number,
  quotePerPriceBase: number,
): number {
  return Math.round(((open + high + low + close) / 4) * volume * quotePerPriceBase)
}
