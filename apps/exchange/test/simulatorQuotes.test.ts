// The market simulator's quotes follow the market's rules wherever its price walk takes it
// (README "Market simulator": five levels a side around the fair price): prices keep the
// market's 5 significant digits above a power of ten (error 214 otherwise), and every order is
// worth at least the market's 5 EUR minimum after a fall (error 217 otherwise).
import { describe, expect, it } from 'vitest'
import type { Listing } from '../src/api/exchangeActions.ts'
import { defaultConfig } from '../src/config.ts'
import { defaultListing } from '../src/listing.ts'
import { createExchangeServer } from '../src/server.ts'

/**
 * The real catalogue's `market` alone (its asset and EUR), with the simulator's fair price
 * starting at `fairEur` instead of the asset's reference price: where the price walk has taken
 * it after a while (the market's tick, precision and minimums stay the catalogue's).
 */
function catalogueMarketAt(market: string, fairEur: number): Listing {
  const full = defaultListing()
  const spec = full.markets.find((candidate) => candidate.market === market)!
  return {
    ...full,
    assets: full.assets.filter((asset) => asset.symbol === spec.base || asset.symbol === 'EUR'),
    markets: [spec],
    simulation: full
      .simulation!.filter((simulated) => simulated.market === market)
      .map((simulated) => ({ ...simulated, referencePrice: fairEur })),
  }
}

/** One re-quote of the only market, at a fixed clock (so the fair price does not move). */
async function requoteOnce(listing: Listing) {
  const nowMs = Date.parse('2026-11-22T10:00:00Z')
  const server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, simulator: true, seed: 1 },
    listing,
    { nowMs: () => nowMs },
  )
  const rejected: string[] = []
  server.service.onOutcome((command, outcome) => {
    if (command.type === 'placeOrder' && !outcome.ok)
      rejected.push(
        `${command.side} ${command.orderType} price ${command.price} amount ${command.amount}: ${JSON.stringify(outcome)}`,
      )
  })
  try {
    await server.simulator!.step()
    const market = listing.markets[0]!.market
    const engine = server.service.core.engine
    return {
      rejected,
      bids: engine.depth(market, 'buy', 100).length,
      asks: engine.depth(market, 'sell', 100).length,
    }
  } finally {
    await server.close()
  }
}

describe("the market simulator's quotes", () => {
  // BTC-EUR (reference 90,000, tick 1) above 100,000 EUR: 100,001 has six significant digits.
  it('keep the price precision above a power of ten: five levels a side', async () => {
    const { rejected, asks, bids } = await requoteOnce(catalogueMarketAt('BTC-EUR', 100_500))
    expect(rejected).toEqual([])
    expect(bids).toBeGreaterThanOrEqual(4) // a taker trade may take one level
    expect(asks).toBeGreaterThanOrEqual(4)
  })

  // BTC-EUR's base minimum is worth just over 5 EUR at its reference price, 90,000: at a tenth
  // of that price, a quote of a few times that minimum would be worth less than 5 EUR.
  it('are worth the 5 EUR minimum after a fall: five levels a side', async () => {
    const { rejected, asks, bids } = await requoteOnce(catalogueMarketAt('BTC-EUR', 9_000))
    expect(rejected).toEqual([])
    expect(bids).toBeGreaterThanOrEqual(4)
    expect(asks).toBeGreaterThanOrEqual(4)
  })

  // Before, seed 1 and 30 days (one re-quote of every market a day) left a dozen markets with
  // quotes refused for their precision (CSPR, ENJ, FLOKI, ONDO, UNI, WLD, ...) and five for
  // their worth (WIF, BOME, SCRT, DYDX, POPCAT), some with no book on one side or both.
  it('over thirty days of the whole catalogue: none refused, every book two-sided', async () => {
    const { rejectedByCode, oneSided } = await thirtyDaysOfTheCatalogue()
    expect(Object.fromEntries(rejectedByCode)).toEqual({})
    expect(oneSided).toEqual([])
  }, 60_000)
})

/** The whole catalogue under the simulator for 30 days (seed 1), one re-quote a market a day. */
async function thirtyDaysOfTheCatalogue() {
  let nowMs = Date.parse('2026-01-01T00:00:00Z')
  const listing = defaultListing()
  const server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, simulator: true, seed: 1 },
    listing,
    { nowMs: () => nowMs },
  )
  const rejectedByCode = new Map<number, string[]>()
  server.service.onOutcome((command, outcome) => {
    if (command.type !== 'placeOrder' || outcome.ok) return
    const code = (outcome as { errorCode: number }).errorCode
    const markets = rejectedByCode.get(code) ?? []
    if (!markets.includes(command.market)) markets.push(command.market)
    rejectedByCode.set(code, markets)
  })
  const trading = listing.markets.filter((market) => market.status === 'trading')
  const oneSided: string[] = []
  try {
    for (let day = 0; day < 30; day += 1) {
      nowMs += 86_400_000
      for (let index = 0; index < trading.length; index += 1) await server.simulator!.step()
    }
    const engine = server.service.core.engine
    for (const { market } of trading)
      if (
        engine.depth(market, 'buy', 1).length === 0 ||
        engine.depth(market, 'sell', 1).length === 0
      )
        oneSided.push(market)
    server.service.core.ledger.checkInvariant()
  } finally {
    await server.close()
  }
  return { rejectedByCode, oneSided }
}
