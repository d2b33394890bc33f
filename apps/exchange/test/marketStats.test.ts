import type { TradeEvent } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import { candleStartMs, MarketStats } from '../src/core/marketStats.ts'

const at = (iso: string) => Date.parse(iso)
const trade = (timestamp: number, price: number, amount: number): TradeEvent => ({
  type: 'trade',
  market: 'BTC-EUR',
  tradeId: timestamp,
  timestamp,
  price,
  amount,
  side: 'buy',
})

describe('candles', () => {
  it.each([
    ['1m', '2026-11-22T10:17:42Z', '2026-11-22T10:17:00Z'],
    ['15m', '2026-11-22T10:17:42Z', '2026-11-22T10:15:00Z'],
    ['4h', '2026-11-22T10:17:42Z', '2026-11-22T08:00:00Z'],
    ['1d', '2026-11-22T10:17:42Z', '2026-11-22T00:00:00Z'],
    ['1W', '2026-11-22T10:17:42Z', '2026-11-16T00:00:00Z'], // weeks start on Monday (UTC)
    ['1M', '2026-11-22T10:17:42Z', '2026-11-01T00:00:00Z'],
  ] as const)('a %s candle containing %s starts at %s', (interval, time, start) => {
    expect(candleStartMs(interval, at(time))).toBe(at(start))
  })

  it('aggregates open, high, low, close and volumes; intervals without trades have no candle; newest first', () => {
    const stats = new MarketStats()
    stats.record(trade(at('2026-11-22T10:00:05Z'), 100, 2), 200)
    stats.record(trade(at('2026-11-22T10:00:30Z'), 120, 1), 120)
    stats.record(trade(at('2026-11-22T10:00:50Z'), 90, 1), 90)
    stats.record(trade(at('2026-11-22T10:03:00Z'), 95, 4), 380)
    const candles = stats.candles('BTC-EUR', '1m', 0, Number.MAX_SAFE_INTEGER, 10)
    expect(candles).toEqual([
      {
        timestamp: at('2026-11-22T10:03:00Z'),
        open: 95,
        high: 95,
        low: 95,
        close: 95,
        volume: 4,
        volumeQuote: 380n,
      },
      {
        timestamp: at('2026-11-22T10:00:00Z'),
        open: 100,
        high: 120,
        low: 90,
        close: 90,
        volume: 4,
        volumeQuote: 410n,
      },
    ])
    expect(stats.candles('BTC-EUR', '1h', 0, Number.MAX_SAFE_INTEGER, 10)).toHaveLength(1)
    expect(stats.candles('BTC-EUR', '1m', 0, Number.MAX_SAFE_INTEGER, 1)).toHaveLength(1)
  })

  it('24-hour statistics cover exactly the last 24 hours', () => {
    const stats = new MarketStats()
    stats.record(trade(at('2026-11-21T09:00:00Z'), 50, 1), 50) // older than 24 h at the time below
    stats.record(trade(at('2026-11-21T11:00:00Z'), 100, 1), 100)
    stats.record(trade(at('2026-11-22T09:00:00Z'), 110, 3), 330)
    const day = stats.stats24h('BTC-EUR', at('2026-11-22T10:00:00Z'))
    expect(day).toEqual({
      open: 100,
      openTimestamp: at('2026-11-21T11:00:00Z'),
      high: 110,
      low: 100,
      last: 110,
      closeTimestamp: at('2026-11-22T09:00:00Z'),
      volume: 4,
      volumeQuote: 430n,
    })
  })
})
