import { z } from 'zod'
import { marketId, timestampParameter } from '../primitives.ts'
import { candle } from '../rest/marketData.ts'

// GET /exchange/xp/v1/markets/price/candles (spec §3, §7, §9): the candles of a price chart.
// The client picks a range; `start` is now minus the range's look-back.

/** Candle intervals of the chart (spec §3). */
export const chartInterval = z.enum(['1m', '30m', '4h', '12h', '1d'])
export type ChartInterval = z.infer<typeof chartInterval>

/** Chart ranges (spec §3). */
export const chartRange = z.enum(['1h', '1d', '7d', '30d', '2m'])
export type ChartRange = z.infer<typeof chartRange>

const hourMs = 60 * 60 * 1000
const dayMs = 24 * hourMs

/** Look-back per range (spec §9): 1h, 1d, 30 days for 30d, 60 days for 2m, 7 days otherwise. */
export const chartRangeLookbackMs: Readonly<Record<ChartRange, number>> = {
  '1h': hourMs,
  '1d': dayMs,
  '7d': 7 * dayMs,
  '30d': 30 * dayMs,
  '2m': 60 * dayMs,
}

export const priceCandlesRequest = z.strictObject({
  market: marketId,
  interval: chartInterval,
  /** ms since epoch (`now - chartRangeLookbackMs[range]`). */
  start: timestampParameter,
})
export type PriceCandlesRequest = z.input<typeof priceCandlesRequest>

/** `[timestamp, open, high, low, close, volume]`, newest first like `/v2/{market}/candles`. */
export const priceCandlesResponse = z.array(candle)
export type PriceCandlesResponse = z.infer<typeof priceCandlesResponse>
