import { z } from 'zod'
import {
  assetSymbol,
  booleanParameter,
  decimalString,
  marketId,
  nonNegativeDecimalString,
  positiveDecimalString,
  timestampMs,
} from '../primitives.ts'

// GET /exchange/proxy/v3/markets/data (spec §3, §7): the market list of the trading app and the
// public site, with last price, 24 h change and volume, an optional mini chart and an icon for the
// requested theme. Money stays decimal strings.

/** Most markets or assets one request may filter on. */
export const marketsDataFilterMax = 500
/** Most points of one mini chart. */
export const miniChartPointsMax = 200

export const theme = z.enum(['light', 'dark'])
export type Theme = z.infer<typeof theme>

const splitComma = z.string().transform((text) => (text === '' ? [] : text.split(',')))

/**
 * Query: `markets` and `assets` are comma-separated filters (`BTC-EUR,ETH-EUR`, `BTC,ETH`);
 * `theme` picks the icon variant (default light); `miniChart=true` adds the chart points.
 */
export const marketsDataRequest = z.strictObject({
  markets: splitComma.pipe(z.array(marketId).max(marketsDataFilterMax)).optional(),
  assets: splitComma.pipe(z.array(assetSymbol).max(marketsDataFilterMax)).optional(),
  theme: theme.optional(),
  miniChart: booleanParameter.optional(),
})
export type MarketsDataRequest = z.input<typeof marketsDataRequest>

export const assetSummary = z.object({
  symbol: assetSymbol,
  name: z.string().min(1),
  /** The asset's page slug on the public site, e.g. `bitcoin`. */
  slug: z.string().regex(/^[a-z0-9-]+$/),
})
export type AssetSummary = z.infer<typeof assetSummary>

/** One point of a mini chart: a close price at a time. */
export const miniChartPoint = z.object({ timestamp: timestampMs, price: positiveDecimalString })
export type MiniChartPoint = z.infer<typeof miniChartPoint>

export const marketsDataItem = z.object({
  market: marketId,
  base: assetSummary,
  quote: assetSummary,
  /** Null while the market has no trade. */
  lastPrice: positiveDecimalString.nullable(),
  /** Change over 24 h in percent, e.g. `"-1.25"`; null without a price 24 h ago. */
  change24h: decimalString.nullable(),
  /** Volume over 24 h in base units. */
  volume24h: nonNegativeDecimalString,
  /** Volume over 24 h in quote units. */
  volumeQuote24h: nonNegativeDecimalString,
  /** Oldest first; present when requested with `miniChart=true`. */
  miniChart: z.array(miniChartPoint).max(miniChartPointsMax).optional(),
  /** Assets of the requested theme. */
  theme: z.object({ icon: z.url() }),
})
export type MarketsDataItem = z.infer<typeof marketsDataItem>

export const marketsDataResponse = z.array(marketsDataItem)
export type MarketsDataResponse = z.infer<typeof marketsDataResponse>
