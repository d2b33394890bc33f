// The simulator's backfilled history: deterministic from the seed, ending at the live start
// price, on the market's price grid, at the asset's volatility, and the same chart at every
// interval (sub-hour candles are drawn on read and must add up to the stored hours exactly).
import { significantDigits, type TradeEvent } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import {
  CandleHistory,
  candlesOfHour,
  hourFields,
  type MarketHistory,
  validPrice,
} from '../src/core/candleHistory.ts'
import { type Candle, candleStartMs, MarketStats } from '../src/core/marketStats.ts'
import {
  type BackfillMarket,
  backfillCandles,
  backfillDays,
  hourlyVolumeOfSimulator,
} from '../src/simulator/backfill.ts'
import {
  decodeHours,
  encodeHours,
  loadCandleHistory,
  saveCandleHistory,
} from '../src/storage/candleHistoryStore.ts'
import { openStorage } from '../src/storage/openStorage.ts'

const dayMs = 86_400_000
const endMs = Date.parse('2026-11-22T10:07:30Z')

const btc: BackfillMarket = {
  market: 'BTC-EUR',
  endPrice: 60_000,
  volatilityPercentPerDay: 3,
  tickUnits: 1,
  pricePrecision: 5,
  minPrice: 1,
  maxPrice: 1_000_000,
  minAmount: 10_000,
  quotePerPriceBase: 1,
  hourlyVolume: 3_600_000,
}
const pepe: BackfillMarket = {
  market: 'PEPE-EUR',
  endPrice: 8_500, // 0.0000085 EUR at a tick of 10^-9
  volatilityPercentPerDay: 9,
  tickUnits: 1,
  pricePrecision: 5,
  minPrice: 1,
  maxPrice: 15_000_000,
  minAmount: 590_000,
  quotePerPriceBase: 1,
  hourlyVolume: 212_400_000,
}

function hours(history: MarketHistory): Candle[] {
  return new CandleHistory([history]).candles(history.market, '1h', 0, history.endMs, 2_000)
}

/** Candles of `interval` folded by hand from ascending `candles`. */
function fold(interval: Parameters<typeof candleStartMs>[0], candles: readonly Candle[]): Candle[] {
  const result: Candle[] = []
  for (const candle of candles) {
    const start = candleStartMs(interval, candle.timestamp)
    const last = result.at(-1)
    if (last?.timestamp === start) {
      last.high = Math.max(last.high, candle.high)
      last.low = Math.min(last.low, candle.low)
      last.close = candle.close
      last.volume += candle.volume
      last.volumeQuote += candle.volumeQuote
    } else result.push({ ...candle, timestamp: start })
  }
  return result
}

describe('backfilled candle history', () => {
  const [btcHistory, pepeHistory] = backfillCandles(1, endMs, [btc, pepe]) as [
    MarketHistory,
    MarketHistory,
  ]

  it('is the same for the same seed and end, and different for another seed', () => {
    expect(backfillCandles(1, endMs, [btc, pepe])).toEqual([btcHistory, pepeHistory])
    const [other] = backfillCandles(2, endMs, [btc])
    expect(other!.hours).not.toEqual(btcHistory.hours)
    // A market's history does not depend on which other markets are backfilled with it.
    expect(backfillCandles(1, endMs, [pepe])[0]).toEqual(pepeHistory)
  })

  it(`starts at 00:00 UTC ${backfillDays} days before the first start's day and ends at its minute`, () => {
    expect(btcHistory.startMs).toBe(Date.parse('2026-09-23T00:00:00Z'))
    expect(btcHistory.endMs).toBe(Date.parse('2026-11-22T10:07:00Z'))
    expect(endMs - btcHistory.startMs).toBeGreaterThan(60 * dayMs)
    expect(btcHistory.hours.length / hourFields).toBe(60 * 24 + 11) // the last hour is partial
  })

  it('is one continuous walk ending at the live start price, on the market price grid', () => {
    for (const history of [btcHistory, pepeHistory]) {
      const series = hours(history).reverse()
      expect(series.at(-1)!.close).toBe(history.market === 'BTC-EUR' ? 60_000 : 8_500)
      series.forEach((hour, index) => {
        if (index > 0) expect(hour.open).toBe(series[index - 1]!.close)
        expect(hour.high).toBeGreaterThanOrEqual(Math.max(hour.open, hour.close))
        expect(hour.low).toBeLessThanOrEqual(Math.min(hour.open, hour.close))
        for (const price of [hour.open, hour.high, hour.low, hour.close]) {
          expect(Number.isInteger(price) && price > 0).toBe(true)
          expect(significantDigits(price)).toBeLessThanOrEqual(5)
        }
        expect(hour.volume).toBeGreaterThan(0)
      })
    }
  })

  it('moves at about the asset daily volatility', () => {
    for (const [market, history] of [
      [btc, btcHistory],
      [pepe, pepeHistory],
    ] as const) {
      const days = new CandleHistory([history])
        .candles(history.market, '1d', 0, history.endMs, 100)
        .reverse()
        .slice(0, backfillDays)
      const returns = days.map((day) => Math.log(day.close / day.open))
      const mean = returns.reduce((sum, value) => sum + value, 0) / returns.length
      const variance =
        returns.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (returns.length - 1)
      const dailyPercent = Math.sqrt(variance) * 100
      expect(dailyPercent, market.market).toBeGreaterThan(market.volatilityPercentPerDay * 0.6)
      expect(dailyPercent, market.market).toBeLessThan(market.volatilityPercentPerDay * 1.4)
    }
  })

  it('draws 30m, 15m, 5m and 1m candles that add up exactly to each stored hour', () => {
    const hourCount = btcHistory.hours.length / hourFields
    const stored = hours(btcHistory).reverse()
    for (const index of [0, 1, 700, hourCount - 2, hourCount - 1]) {
      const hour = stored[index]!
      for (const interval of ['30m', '15m', '5m', '1m'] as const) {
        const inside = candlesOfHour(btcHistory, index, interval)
        expect(fold('1h', inside), `${interval} of hour ${index}`).toEqual([hour])
        for (const candle of inside) {
          expect(candle.timestamp).toBe(candleStartMs(interval, candle.timestamp))
          expect(candle.high).toBeGreaterThanOrEqual(Math.max(candle.open, candle.close))
          expect(candle.low).toBeLessThanOrEqual(Math.min(candle.open, candle.close))
        }
        // Each level is the fold of the level below it, so every chart agrees.
        if (interval !== '1m')
          expect(fold(interval, candlesOfHour(btcHistory, index, '1m'))).toEqual(inside)
      }
    }
    // The partial last hour (10:00 to 10:07) has seven minutes.
    expect(candlesOfHour(btcHistory, hourCount - 1, '1m')).toHaveLength(7)
    expect(candlesOfHour(btcHistory, hourCount - 1, '5m')).toHaveLength(2)
  })

  it('draws no candle where nothing traded: a market of whole units leaves quiet minutes out', () => {
    // NEO-EUR's amounts are whole NEO (minimum 1): an hour of a few NEO cannot give each of its
    // minutes one. A minute without a unit is no candle (as live), and what is drawn still
    // adds up to the stored hour at every level.
    const neo: BackfillMarket = {
      market: 'NEO-EUR',
      endPrice: 55_130,
      volatilityPercentPerDay: 4,
      tickUnits: 1,
      pricePrecision: 5,
      minPrice: 1,
      maxPrice: 100_000_000,
      minAmount: 1,
      quotePerPriceBase: 100,
      hourlyVolume: hourlyVolumeOfSimulator(1, 15_000, 0.5),
    }
    const [neoHistory] = backfillCandles(1, endMs, [neo]) as [MarketHistory]
    const stored = hours(neoHistory).reverse()
    const hourCount = neoHistory.hours.length / hourFields
    let quietMinutes = 0
    for (let index = hourCount - 48; index < hourCount; index += 1) {
      const oneMinute = candlesOfHour(neoHistory, index, '1m')
      quietMinutes += (index === hourCount - 1 ? 7 : 60) - oneMinute.length
      for (const interval of ['30m', '15m', '5m', '1m'] as const) {
        const inside = candlesOfHour(neoHistory, index, interval)
        expect(inside.filter((candle) => candle.volume <= 0)).toEqual([])
        expect(fold('1h', inside), `${interval} of hour ${index}`).toEqual([stored[index]])
        if (interval !== '1m') expect(fold(interval, oneMinute)).toEqual(inside)
      }
    }
    expect(quietMinutes).toBeGreaterThan(0)
    const day = new CandleHistory([neoHistory]).candles('NEO-EUR', '1m', endMs - dayMs, endMs, 1440)
    expect(day.filter((candle) => candle.volume <= 0)).toEqual([])
  })

  it('serves every interval newest first, within [start, end] and the limit; longer ones folded from hours', () => {
    const history = new CandleHistory([btcHistory])
    const hourly = history.candles('BTC-EUR', '1h', 0, endMs, 2_000).reverse()
    for (const interval of ['2h', '4h', '12h', '1d', '1W', '1M'] as const) {
      expect(history.candles('BTC-EUR', interval, 0, endMs, 2_000).reverse()).toEqual(
        fold(interval, hourly),
      )
    }
    const from = Date.parse('2026-11-21T23:30:00Z')
    const minutes = history.candles('BTC-EUR', '1m', from, endMs, 10_000)
    expect(minutes).toHaveLength(10 * 60 + 37) // 23:30 to 10:06
    expect(minutes[0]!.timestamp).toBe(Date.parse('2026-11-22T10:06:00Z'))
    expect(minutes.at(-1)!.timestamp).toBe(from)
    expect(history.candles('BTC-EUR', '1m', 0, endMs, 5).map((c) => c.timestamp)).toEqual(
      minutes.slice(0, 5).map((c) => c.timestamp),
    )
    const to = Date.parse('2026-11-22T08:00:00Z')
    expect(history.candles('BTC-EUR', '30m', 0, to, 1)[0]!.timestamp).toBe(to)
  })

  it('gives the price grid: tick multiples with at most the market precision', () => {
    expect(validPrice(123_456, 1, 5)).toBe(123_460)
    expect(validPrice(99_999.6, 1, 5)).toBe(100_000)
    expect(validPrice(1_234_567, 25, 5)).toBe(1_234_600) // a multiple of 25 and of 100
    expect(validPrice(0.2, 5, 5)).toBe(5) // never below one tick
  })

  it('is stored compactly and read back exactly', async () => {
    expect(decodeHours(encodeHours(pepeHistory.hours), 1)).toEqual(pepeHistory.hours)
    const storage = await openStorage({ kind: 'embedded', dataDir: undefined })
    try {
      await saveCandleHistory(storage, [btcHistory, pepeHistory], endMs)
      await saveCandleHistory(storage, backfillCandles(9, endMs, [btc]), endMs) // kept as it was
      expect(await loadCandleHistory(storage)).toEqual([btcHistory, pepeHistory])
    } finally {
      await storage.close()
    }
  })
})

describe('history in the market statistics', () => {
  const [history] = backfillCandles(1, endMs, [btc]) as [MarketHistory]
  const trade = (timestamp: number, price: number, amount: number): TradeEvent => ({
    type: 'trade',
    market: 'BTC-EUR',
    tradeId: timestamp,
    timestamp,
    price,
    amount,
    side: 'buy',
  })

  it('continues the history with live candles, joining the candle both share', () => {
    const stats = new MarketStats()
    stats.attachHistory(new CandleHistory([history]))
    const live = Date.parse('2026-11-22T10:07:30Z')
    stats.record(trade(live, 60_010, 20_000), 1_200_200)
    const hour = Date.parse('2026-11-22T10:00:00Z')
    const [current, previous] = stats.candles('BTC-EUR', '1h', 0, live, 2)
    const stored = new CandleHistory([history]).candles('BTC-EUR', '1h', 0, live, 2)
    expect(current).toEqual({
      timestamp: hour,
      open: stored[0]!.open,
      high: Math.max(stored[0]!.high, 60_010),
      low: stored[0]!.low,
      close: 60_010,
      volume: stored[0]!.volume + 20_000,
      volumeQuote: stored[0]!.volumeQuote + 1_200_200n,
    })
    expect(previous).toEqual(stored[1])
    expect(stats.candleAt('BTC-EUR', '1h', live)).toEqual(current)
    // 1m: the live minute (10:07) follows the history's last one (10:06), nothing joined.
    const minutes = stats.candles('BTC-EUR', '1m', 0, live, 3)
    expect(minutes.map((candle) => candle.timestamp)).toEqual([
      Date.parse('2026-11-22T10:07:00Z'),
      Date.parse('2026-11-22T10:06:00Z'),
      Date.parse('2026-11-22T10:05:00Z'),
    ])
    expect(minutes[1]!.close).toBe(60_000)
    expect(stats.candleAt('BTC-EUR', '1m', live)!.open).toBe(60_010)
  })

  it('counts the history in the rolling 24 hours until live trading has filled them', () => {
    const stats = new MarketStats()
    stats.attachHistory(new CandleHistory([history]))
    const nowMs = Date.parse('2026-11-22T10:07:30Z')
    const before = stats.stats24h('BTC-EUR', nowMs)
    // The minutes that begin within the 24 hours: from 10:08, the first after 10:07:30.
    const minutes = new CandleHistory([history]).candles(
      'BTC-EUR',
      '1m',
      Date.parse('2026-11-21T10:08:00Z'),
      nowMs,
      2_000,
    )
    expect(before).toMatchObject({
      open: minutes.at(-1)!.open,
      openTimestamp: Date.parse('2026-11-21T10:08:00Z'),
      high: Math.max(...minutes.map((candle) => candle.high)),
      low: Math.min(...minutes.map((candle) => candle.low)),
      last: 60_000,
      volume: minutes.reduce((sum, candle) => sum + candle.volume, 0),
    })
    stats.record(trade(nowMs, 59_990, 10_000), 599_900)
    const after = stats.stats24h('BTC-EUR', nowMs)
    expect(after.last).toBe(59_990)
    expect(after.volume).toBe(before.volume + 10_000)
    // A day later the history has left the window.
    expect(stats.stats24h('BTC-EUR', nowMs + dayMs + 60_000).open).toBeNull()
  })
})
