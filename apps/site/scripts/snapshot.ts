// Takes the build-time market snapshot from a running exchange through the client core's web API
// client: the market list with mini charts, and 30 days of 4-hour candles per market.
//   node apps/site/scripts/snapshot.ts --exchange http://127.0.0.1:8080 --out file.json

import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { createWebApiClient } from '@polder/client'
import type { MarketSnapshot } from '../src/lib/marketData.ts'

/** The site's exchange client timeout (spec §9: "site exchange client 6000 ms"). */
export const siteExchangeTimeoutMs = 6_000

export async function takeSnapshot(exchangeUrl: string): Promise<MarketSnapshot> {
  const api = createWebApiClient({ baseUrl: exchangeUrl, timeoutMs: siteExchangeTimeoutMs })
  const takenAt = new Date().toISOString()
  const list = await api.getMarketsData({ miniChart: true, theme: 'light' })
  const snapshot: MarketSnapshot = { takenAt, source: 'exchange', markets: {} }
  const queue = [...list]
  // A few requests in flight: the exchange answers each from memory, so this takes seconds.
  const worker = async (): Promise<void> => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) {
      const candles = await api.getPriceCandles({
        market: item.market,
        range: '30d',
        interval: '4h',
      })
      snapshot.markets[item.base.symbol] = {
        market: item.market,
        last: item.lastPrice ?? null,
        change24h: item.change24h ?? null,
        volumeQuote24h: item.volumeQuote24h ?? '0',
        miniChart: (item.miniChart ?? []).map((p) => [p.timestamp, p.price] as [number, string]),
        chart30d: candles
          .map((c) => [Number(c[0]), String(c[4])] as [number, string])
          .sort((a, b) => a[0] - b[0]),
      }
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
  return snapshot
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: { exchange: { type: 'string' }, out: { type: 'string' } },
  })
  if (!values.exchange || !values.out) {
    console.error('usage: snapshot.ts --exchange URL --out FILE')
    process.exit(2)
  }
  const snapshot = await takeSnapshot(values.exchange)
  writeFileSync(values.out, JSON.stringify(snapshot))
  console.log(
    `snapshot of ${Object.keys(snapshot.markets).length} markets written to ${values.out}`,
  )
}
