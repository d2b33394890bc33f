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
        expect(server.service.core.history.tradesOf(market).length, market).toBeGreaterThan(0)
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
