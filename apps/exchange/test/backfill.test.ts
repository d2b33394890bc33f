// The first start of the real server process (the `serve` command, the full catalogue, the
// simulator on) backfills 60 days of candles for every market before it listens; every market
// then has a two-sided book and a trade at once. A second start on the same data directory
// loads the stored history instead of backfilling again.
import { describe, expect, it } from 'vitest'
import { serverProcesses } from './fixtures/serverProcess.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const dayMs = 86_400_000
const servers = serverProcesses('polder-backfill-')

/** Starts `serve` on the data directory (seed 5); resolves with it once it listens. */
const serve = () => servers.startMain(['--seed', '5'], { LOG_LEVEL: 'warn' })

async function get(url: string): Promise<Json> {
  const response = await fetch(url)
  expect(response.status, url).toBe(200)
  return response.json()
}

describe('candle backfill on first start', () => {
  it('gives every market 60 days of candles, a two-sided book and a trade; a second start does not backfill again', async () => {
    const spawnedMs = Date.now()
    const first = await serve()
    const health: Json = await get(`${first.url}/health`)
    const markets: string[] = (await get(`${first.url}/v2/markets`))
      .filter((market: Json) => market.status === 'trading')
      .map((market: Json) => market.market)
    expect(markets.length).toBeGreaterThan(150)
    expect(health.candleHistory).toMatchObject({
      markets: markets.length,
      backfilled: markets.length,
    })

    // The simulator's first pass quotes and trades every market at once.
    let ready = false
    for (let tries = 0; tries < 100 && !ready; tries += 1) {
      const books: Json[] = await get(`${first.url}/v2/ticker/book`)
      const prices: Json[] = await get(`${first.url}/v2/ticker/price`)
      const twoSided = new Set(books.filter((b) => b.bid && b.ask).map((b) => b.market))
      const traded = new Set(prices.filter((p) => p.price).map((p) => p.market))
      ready = markets.every((market) => twoSided.has(market) && traded.has(market))
      if (!ready) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(ready).toBe(true)
    const readyMs = Date.now() - spawnedMs

    // The chart's longest range (2 months: 60 days of 1d candles) for every market.
    const nowMs = Date.now()
    const daily = new Map<string, Json[]>()
    for (const market of markets) {
      const candles: Json[] = await get(
        `${first.url}/exchange/xp/v1/markets/price/candles?market=${market}&interval=1d&start=${nowMs - 60 * dayMs}`,
      )
      expect(candles.length, market).toBeGreaterThanOrEqual(60)
      expect(candles.at(-1)[0], market).toBeLessThanOrEqual(nowMs - 59 * dayMs)
      daily.set(market, candles)
    }
    const minutes: Json[] = await get(
      `${first.url}/v2/BTC-EUR/candles?interval=1m&limit=1440&end=${nowMs - 120_000}`,
    )
    expect(minutes).toHaveLength(1440) // a full day of 1m candles, history included
    console.log(
      `first start: ${markets.length} markets backfilled in ${health.candleHistory.backfillMs} ms; every market two-sided, traded and charted ${readyMs} ms after spawn`,
    )

    await first.stop('SIGTERM')
    const second = await serve()
    expect((await get(`${second.url}/health`)).candleHistory).toEqual({
      markets: markets.length,
      backfilled: 0,
      backfillMs: expect.any(Number),
    })
    // The stored history comes back exactly: every day before the one it was read in (that
    // day's candle has moved on with live trades, and a midnight may have passed since).
    const pastDays = (candles: Json[]) =>
      candles.filter((candle) => candle[0] < Math.floor(nowMs / dayMs) * dayMs)
    for (const market of ['BTC-EUR', 'ETH-EUR', markets.at(-1)!]) {
      const again: Json[] = await get(
        `${second.url}/exchange/xp/v1/markets/price/candles?market=${market}&interval=1d&start=${nowMs - 60 * dayMs}`,
      )
      expect(pastDays(again), market).toEqual(pastDays(daily.get(market)!))
      expect(pastDays(again).length, market).toBeGreaterThanOrEqual(59)
    }
    expect(
      await get(`${second.url}/v2/BTC-EUR/candles?interval=1m&limit=1440&end=${nowMs - 120_000}`),
    ).toEqual(minutes)
    await second.stop('SIGTERM')
  }, 120_000)
})
