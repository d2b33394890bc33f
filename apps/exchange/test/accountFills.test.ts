// GET /v2/trades beyond the core's memory: the fill archive serves an account's every fill, where
// the core keeps only its newest 5,000 to 10,000 per account.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { fillsPerAccountMax } from '../src/core/orderHistory.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'

type PrivateTrade = { id: string; timestamp: number; side: string; taker: boolean; fee: string }

const startMs = Date.UTC(2026, 10, 20, 12)
let server: ExchangeServer
let baseUrl: string
let buyerKey: ApiKey
let sellerKey: ApiKey
let buyerId: number
/** More than the core ever keeps of one account (it trims back to 5,000 past 10,000). */
const fillCount = fillsPerAccountMax * 2 + 50

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, simulator: false },
    testListing,
    // The requests below are signed on the wall clock; the orders carry their own timestamps.
    { nowMs: () => Date.now() },
  )
  baseUrl = await server.listen()
  const seller = await server.accounts.createAccount('seller@example.com', 'a long enough password')
  const buyer = await server.accounts.createAccount('buyer@example.com', 'a long enough password')
  buyerId = buyer.id
  sellerKey = await server.accounts.createApiKey(seller.id, ['view'])
  buyerKey = await server.accounts.createApiKey(buyer.id, ['view'])
  for (const [accountId, asset, amount] of [
    [seller.id, 'BTC', toLedgerUnits(20, 0)],
    [buyer.id, 'EUR', toLedgerUnits(1_000_000, 0)],
  ] as const) {
    const deposit = await server.service.submit({
      type: 'deposit',
      timestamp: startMs,
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
      timestamp: startMs + index,
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
  // One large ask, then buys that each take a little of it: one fill for each side each time.
  expect((await order(seller.id, 'sell', 1_500_000_000, 0)).ok).toBe(true)
  for (let from = 1; from <= fillCount; from += 250) {
    const outcomes = await Promise.all(
      Array.from({ length: Math.min(250, fillCount - from + 1) }, (_, at) =>
        order(buyer.id, 'buy', 100_000, from + at),
      ),
    )
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true)
  }
}, 120_000)
afterAll(() => server.close())

const trades = async (who: ApiKey, query: string): Promise<PrivateTrade[]> => {
  const response = await signedRequest(baseUrl, who, 'GET', `/v2/trades?market=BTC-EUR&${query}`)
  expect(response.status, JSON.stringify(response.json)).toBe(200)
  return response.json
}

describe('GET /v2/trades beyond the core memory', () => {
  it('lists the oldest fills of both sides, which the core no longer holds', async () => {
    const kept = server.service.core.history.fillsOf(buyerId) // newest first
    expect(kept.length).toBeLessThan(fillCount)
    expect(kept.at(-1)!.fillId).toBeGreaterThan(1) // the core forgot the first fill
    const oldest = await trades(buyerKey, 'tradeIdTo=2')
    expect(oldest.map((fill) => [fill.id, fill.side, fill.taker, fill.timestamp])).toEqual([
      ['2', 'buy', true, startMs + 2],
      ['1', 'buy', true, startMs + 1],
    ])
    expect(oldest[0]!.fee).toBe('0.15000000') // 0.001 BTC × 60,000 EUR × 0.25%
    const makerSide = await trades(sellerKey, `start=${startMs + 1}&end=${startMs + 3}`)
    expect(makerSide.map((fill) => [fill.id, fill.side, fill.taker])).toEqual([
      ['3', 'sell', false],
      ['2', 'sell', false],
      ['1', 'sell', false],
    ])
  })

  it('pages through every fill of an account by id, newest first, none twice and none missing', async () => {
    const seen: number[] = []
    let query = 'limit=1000'
    for (;;) {
      const page = await trades(buyerKey, query)
      if (page.length === 0) break
      seen.push(...page.map((fill) => Number(fill.id)))
      query = `limit=1000&tradeIdTo=${Number(page.at(-1)!.id) - 1}`
    }
    expect(seen).toEqual(Array.from({ length: fillCount }, (_, index) => fillCount - index))
  })
})
