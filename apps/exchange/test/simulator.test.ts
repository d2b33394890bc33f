import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer } from '../src/server.ts'
import { seededRandom } from '../src/simulator/marketSimulator.ts'
import { testListing } from './fixtures/testListing.ts'

describe('market simulator', () => {
  it('the price walk is reproducible from its seed', () => {
    const a = seededRandom(42)
    const b = seededRandom(42)
    const c = seededRandom(43)
    const first = Array.from({ length: 5 }, a)
    expect(Array.from({ length: 5 }, b)).toEqual(first)
    expect(Array.from({ length: 5 }, c)).not.toEqual(first)
    expect(first.every((value) => value >= 0 && value < 1)).toBe(true)
  })

  it('quotes layered books and trades through the real core, keeping the ledger balanced', async () => {
    let nowMs = 1_763_800_000_000
    const server = await createExchangeServer(
      {
        ...defaultConfig,
        port: 0,
        logLevel: 'silent',
        dataDir: undefined,
        simulator: true,
        seed: 7,
      },
      testListing,
      { nowMs: () => nowMs },
    )
    try {
      const simulator = server.simulator!
      for (let step = 0; step < 40; step += 1) {
        nowMs += 7_500
        await simulator.step()
      }
      const engine = server.service.core.engine
      for (const market of ['BTC-EUR', 'ETH-EUR']) {
        const bids = engine.depth(market, 'buy', 100)
        const asks = engine.depth(market, 'sell', 100)
        expect(bids.length, market).toBeGreaterThanOrEqual(3)
        expect(asks.length, market).toBeGreaterThanOrEqual(3)
        expect(bids[0]![0]).toBeLessThan(asks[0]![0]) // never crossed
        expect(
          new Map(server.service.core.history.recentTrades()).get(market)?.length,
          market,
        ).toBeGreaterThan(0)
      }
      server.service.core.ledger.checkInvariant()
      // Prices stay near the reference: a 3%/day walk over five minutes cannot wander far.
      const last = engine.ticker('BTC-EUR')!.lastPrice
      expect(last).toBeGreaterThan(55_000)
      expect(last).toBeLessThan(65_000)
    } finally {
      await server.close()
    }
  })
})

describe('backfilled history and the live simulator', () => {
  const startMs = Date.parse('2026-11-22T10:07:30Z')
  const dayMs = 86_400_000

  async function started(seed: number) {
    const server = await createExchangeServer(
      { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, simulator: true, seed },
      testListing,
      { nowMs: () => startMs },
    )
    const url = await server.listen()
    // The first pass trades every market once.
    for (let tries = 0; tries < 100; tries += 1) {
      const engine = server.service.core.engine
      if (engine.ticker('BTC-EUR')?.lastPrice && engine.ticker('ETH-EUR')?.lastPrice) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    return { server, url }
  }

  it('ends the history at the live start price: the chart joins the live trades without a jump', async () => {
    const { server, url } = await started(3)
    try {
      // biome-ignore lint/suspicious/noExplicitAny: wire JSON
      const get = async (path: string): Promise<any> => (await fetch(`${url}${path}`)).json()
      const [live, lastHistoric] = await get('/v2/BTC-EUR/candles?interval=1m&limit=2')
      expect(lastHistoric[0]).toBe(Date.parse('2026-11-22T10:06:00Z'))
      expect(lastHistoric[4]).toBe('60000') // the reference price, where the simulator starts
      expect(live[0]).toBe(Date.parse('2026-11-22T10:07:00Z'))
      expect(Math.abs(Number(live[1]) / 60_000 - 1)).toBeLessThan(0.001)
      // The 1h candle of 10:00 spans both: it opens in the history and closes on the live trade.
      const [hour] = await get('/v2/BTC-EUR/candles?interval=1h&limit=1')
      expect(hour[0]).toBe(Date.parse('2026-11-22T10:00:00Z'))
      expect(hour[4]).toBe(live[4])
      // The hour of 09:00, which ends at 10:00 (`end` is where the last candle wanted ends).
      const [historicHour] = await get(
        `/v2/BTC-EUR/candles?interval=1h&limit=1&end=${Date.parse('2026-11-22T10:00:00Z')}`,
      )
      expect(historicHour[0]).toBe(Date.parse('2026-11-22T09:00:00Z'))
      expect(hour[1]).toBe(historicHour[4])
      // The market list has a 24-hour change and mini chart at once.
      const [item] = await get('/exchange/proxy/v3/markets/data?markets=BTC-EUR&miniChart=true')
      expect(item.change24h).not.toBeNull()
      expect(item.miniChart).toHaveLength(48)
      server.service.core.ledger.checkInvariant()

      // The same seed and first start give the same history; another seed does not.
      const daily = await get(
        `/exchange/xp/v1/markets/price/candles?market=ETH-EUR&interval=1d&start=${startMs - 60 * dayMs}`,
      )
      expect(daily).toHaveLength(60) // 24 September to 22 November
      const twin = await started(3)
      const other = await started(4)
      try {
        const path = `/exchange/xp/v1/markets/price/candles?market=ETH-EUR&interval=1d&start=${startMs - 60 * dayMs}`
        const twinDaily = (await (await fetch(`${twin.url}${path}`)).json()) as unknown[]
        expect(twinDaily.slice(1)).toEqual(daily.slice(1)) // today's candle holds live trades
        const otherDaily = (await (await fetch(`${other.url}${path}`)).json()) as unknown[]
        expect(otherDaily.slice(1)).not.toEqual(daily.slice(1))
      } finally {
        await twin.server.close()
        await other.server.close()
      }
    } finally {
      await server.close()
    }
  }, 60_000)
})
