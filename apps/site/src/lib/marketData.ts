// Build-time market data. `npm start` and the site tests take a snapshot from the running
// exchange (scripts/snapshot.ts writes it; POLDER_SITE_SNAPSHOT points the build at it), so every
// price, change and chart on the static pages is a real output of the exchange, labelled with
// the time it was taken. Without a snapshot the build falls back to the catalogue's reference
// prices and says so on the page.

import { readFileSync } from 'node:fs'
import { assets, markets } from '@polder/catalogue'
import { z } from 'zod'

const point = z.tuple([z.number(), z.string()])

export const marketSnapshotSchema = z.object({
  takenAt: z.string(),
  source: z.enum(['exchange', 'catalogue']),
  markets: z.record(
    z.string(),
    z.object({
      market: z.string(),
      last: z.string().nullable(),
      /** Percent with two decimals, null without trades in the window. */
      change24h: z.string().nullable(),
      volumeQuote24h: z.string(),
      /** The last 24 hours, oldest first: [timestamp ms, price]. */
      miniChart: z.array(point),
      /** The last 30 days, oldest first: [timestamp ms, close]. */
      chart30d: z.array(point),
    }),
  ),
})
export type MarketSnapshot = z.infer<typeof marketSnapshotSchema>
export type MarketFigures = MarketSnapshot['markets'][string]

function catalogueSnapshot(): MarketSnapshot {
  const bySymbol: MarketSnapshot['markets'] = {}
  for (const market of markets) {
    const asset = assets.find((candidate) => candidate.symbol === market.base)
    if (asset === undefined) continue
    bySymbol[asset.symbol] = {
      market: market.market,
      last: asset.referencePriceEur,
      change24h: null,
      volumeQuote24h: '0',
      miniChart: [],
      chart30d: [],
    }
  }
  return { takenAt: new Date().toISOString(), source: 'catalogue', markets: bySymbol }
}

let loaded: MarketSnapshot | undefined

/** The snapshot this build renders, keyed by base symbol. */
export function marketSnapshot(): MarketSnapshot {
  if (loaded !== undefined) return loaded
  const file = process.env.POLDER_SITE_SNAPSHOT
  loaded =
    file === undefined || file === ''
      ? catalogueSnapshot()
      : marketSnapshotSchema.parse(JSON.parse(readFileSync(file, 'utf8')))
  return loaded
}

export function figuresOf(symbol: string): MarketFigures | undefined {
  return marketSnapshot().markets[symbol]
}
