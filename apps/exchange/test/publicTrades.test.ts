// /{market}/trades beyond the core's memory: the trade archive serves every market's trades for
// the retention (7 days by default; the newest 1,000 whatever their age), where the core keeps
// only the newest 1,000 to 2,000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { recentTradesPerMarketMax } from '../src/core/orderHistory.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'

const dayMs = 86_400_000
let nowMs = Date.UTC(2026, 10, 20, 12)
let server: ExchangeServer
let baseUrl: string
/** More than the core ever keeps of one market (it trims back to 1,000 past 2,000). */
const tradeCount = recentTradesPerMarketMax * 2 + 50

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    { nowMs: () => nowMs },
  )
  baseUrl = await server.listen()
  const seller = await server.accounts.createAccount('seller@example.com', 'a long enough password')
  const buyer = await server.accounts.createAccount('buyer@example.com', 'a long enough password')
  for (const [accountId, asset, amount] of [
    [seller.id, 'BTC', toLedgerUnits(10, 0)],
    [buyer.id, 'EUR', toLedgerUnits(500_000, 0)],
  ] as const) {
    const deposit = await server.service.submit({
      type: 'deposit',
      timestamp: nowMs,
      accountId,
      asset,
      amount: amount.toString(),
      reference: `${asset}-${accountId}`,
    })
    expect(deposit.ok).toBe(true)
  }
  const order = (accountId: number, side: 'buy' | 'sell', amount: number, index: number) =>
    server.service.submit({
      type: 'placeOrder',
      timestamp: nowMs + index,
      market: 'BTC-EUR',
      orderId: `00000000-0000-4000-8000-${String(index).padStart(12, '0')}`,
      accountId,
      side,
      orderType: 'limit',
      amount,
      price: 60_000,
      makerFeePpm: 1_500,
      takerFeePpm: 2_500,
    })
  // One large ask, then buys that each take a little of it: one trade each.
  expect((await order(seller.id, 'sell', 500_000_000, 0)).ok).toBe(true)
  for (let from = 1; from <= tradeCount; from += 100) {
    const outcomes = await Promise.all(
      Array.from({ length: Math.min(100, tradeCount - from + 1) }, (_, at) =>
        order(buyer.id, 'buy', 100_000, from + at),
      ),
    )
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true)
  }
}, 60_000)
afterAll(() => server.close())

const publicTrades = async (query: string) => {
  const response = await fetch(`${baseUrl}/v2/BTC-EUR/trades?${query}`)
  expect(response.status).toBe(200)
  return (await response.json()) as { id: string; timestamp: number; amount: string }[]
}

describe('public trades beyond the core memory', () => {
  it('lists the oldest trades, which the core no longer holds', async () => {
    const inMemory = new Map(server.service.core.history.recentTrades()).get('BTC-EUR')!
    expect(inMemory[0]!.tradeId).toBeGreaterThan(1) // the core forgot trade 1
    expect((await publicTrades('tradeIdTo=3')).map((trade) => trade.id)).toEqual(['3', '2', '1'])
    const first = await publicTrades(`start=${nowMs}&end=${nowMs + 2}`)
    expect(first.map((trade) => [trade.id, trade.timestamp, trade.amount])).toEqual([
      ['2', nowMs + 2, '0.00100000'],
      ['1', nowMs + 1, '0.00100000'],
    ])
  })

  it('pages through every trade with the id cursor, newest first', async () => {
    const seen: string[] = []
    let page = await publicTrades('limit=1000')
    while (page.length > 0) {
      seen.push(...page.map((trade) => trade.id))
      page = await publicTrades(`limit=1000&tradeIdTo=${Number(page.at(-1)!.id) - 1}`)
    }
    expect(seen).toEqual(Array.from({ length: tradeCount }, (_, at) => String(tradeCount - at)))
  })

  it("forgets the trades older than the retention, but for the market's newest 1,000", async () => {
    nowMs += 6 * dayMs
    await server.tradePruning.run()
    expect(await publicTrades('tradeIdTo=1')).toHaveLength(1) // six days: kept
    nowMs += 2 * dayMs
    await server.tradePruning.run()
    expect(await publicTrades('tradeIdTo=1')).toEqual([])
    const kept = await publicTrades('limit=1000&tradeIdFrom=1')
    expect(kept).toHaveLength(recentTradesPerMarketMax)
    expect(kept.at(-1)!.id).toBe(String(tradeCount - recentTradesPerMarketMax + 1))
    expect(await publicTrades(`tradeIdTo=${tradeCount - recentTradesPerMarketMax}`)).toEqual([])
  })
})
