// Rows of the markets tables: catalogue asset joined with the build-time figures.

import { cryptoAssets } from '@polder/catalogue'
import { popularityRank } from '../data/popular.ts'
import { figuresOf } from './marketData.ts'

export type MarketRow = {
  slug: string
  symbol: string
  name: string
  last: string | null
  change24h: string | null
  volumeQuote24h: string
  /** Prices of the last 24 hours, oldest first, for the mini chart. */
  miniChart: string[]
}

export function marketRows(): MarketRow[] {
  return cryptoAssets.map((asset) => {
    const figures = figuresOf(asset.symbol)
    return {
      slug: asset.slug,
      symbol: asset.symbol,
      name: asset.name,
      last: figures?.last ?? null,
      change24h: figures?.change24h ?? null,
      volumeQuote24h: figures?.volumeQuote24h ?? '0',
      miniChart: (figures?.miniChart ?? []).map(([, price]) => price),
    }
  })
}

/** The markets with the largest 24-hour euro volume, then the most popular. */
export function topMarkets(count: number): MarketRow[] {
  return marketRows()
    .sort(
      (a, b) =>
        Number(b.volumeQuote24h) - Number(a.volumeQuote24h) ||
        popularityRank(a.slug) - popularityRank(b.slug),
    )
    .slice(0, count)
}
