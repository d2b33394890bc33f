// /{market}/trades beyond the core's memory: the trade archive serves every market's trades for
// the retention (7 days by default; the newest 1,000 whatever their age), where the core keeps
// only the newest 1,000 to 2,000.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { recentTradesPerMarketMax } from '../src/core/orderHistory.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { tradeManyTimes } from './fixtures/manyTrades.ts'
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
  await tradeManyTimes(server, { count: tradeCount, startMs: nowMs })
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
