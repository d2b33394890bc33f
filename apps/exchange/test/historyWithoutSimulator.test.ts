// The stored simulated candle history belongs to the data directory, not to the simulator: a
// restart with --no-simulator loads it (and backfills nothing), so the charts keep their 60 days.
// The simulator's quotes do not outlive it: that restart withdraws them.
import { describe, expect, it } from 'vitest'
import { serverProcesses } from './fixtures/serverProcess.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const dayMs = 86_400_000
const servers = serverProcesses('polder-history-no-simulator-')

async function get(url: string): Promise<Json> {
  const response = await fetch(url)
  expect(response.status, url).toBe(200)
  return response.json()
}

describe('simulated history across a restart without the simulator', () => {
  it('a restart with --no-simulator still serves the stored 60 days of candles', async () => {
    const first = await servers.startMain(['--seed', '5'], { LOG_LEVEL: 'warn' })
    const backfilled: Json = (await get(`${first.url}/health`)).candleHistory
    expect(backfilled.backfilled).toBeGreaterThan(150)
    const startMs = Date.now() - 60 * dayMs
    const chart = (url: string, market: string) =>
      get(
        `${url}/exchange/xp/v1/markets/price/candles?market=${market}&interval=1d&start=${startMs}`,
      )
    const daily = new Map<string, Json[]>()
    // The days before the one the first read is in: the stored history (read after a midnight,
    // the day it was read in is not).
    const firstDayMs = Math.floor(Date.now() / dayMs) * dayMs
    const pastDays = (candles: Json[]) => candles.filter((candle) => candle[0] < firstDayMs)
    for (const market of ['BTC-EUR', 'ETH-EUR']) {
      const candles: Json[] = await chart(first.url, market)
      expect(candles.length, market).toBeGreaterThanOrEqual(60)
      daily.set(market, candles)
    }

    const quoted: Json = await get(`${first.url}/v2/BTC-EUR/book`)
    expect(quoted.bids.length).toBeGreaterThan(0)
    await first.stop('SIGTERM')

    const second = await servers.startMain(['--no-simulator'], { LOG_LEVEL: 'warn' })
    // The maker's quotes of the first start are withdrawn: nothing would move them.
    for (const market of ['BTC-EUR', 'ETH-EUR'])
      expect(await get(`${second.url}/v2/${market}/book`), market).toMatchObject({
        bids: [],
        asks: [],
      })
    for (const market of ['BTC-EUR', 'ETH-EUR']) {
      const candles: Json[] = await chart(second.url, market)
      expect(candles.length, market).toBeGreaterThanOrEqual(60)
      expect(candles.at(-1)[0], market).toBeLessThanOrEqual(Date.now() - 59 * dayMs)
      // Every day before today is the stored history, as the first start served it (today's
      // candle moved on with the first start's live trades after it was read).
      expect(pastDays(candles), market).toEqual(pastDays(daily.get(market)!))
      expect(pastDays(candles).length, market).toBeGreaterThanOrEqual(59)
    }
    expect((await get(`${second.url}/health`)).candleHistory).toEqual({
      markets: backfilled.markets,
      backfilled: 0,
      backfillMs: expect.any(Number),
    })
    // A closed terminal's SIGHUP stops it as SIGTERM does: flushed, and a clean exit.
    await second.stop('SIGHUP')
    expect([second.child.exitCode, second.child.signalCode]).toEqual([0, null])
  }, 120_000)
})
