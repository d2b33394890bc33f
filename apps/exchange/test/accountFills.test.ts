// GET /v2/trades and GET /v2/account/history beyond the core's memory: the fill archive serves an
// account's every fill, where the core keeps only its newest 5,000 to 10,000 per account.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { fillsPerAccountMax } from '../src/core/orderHistory.ts'
import type { ExchangeServer } from '../src/server.ts'
import { serverWithManyTrades } from './fixtures/manyTrades.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { authenticateRequest } from './fixtures/trader.ts'

type PrivateTrade = { id: string; timestamp: number; side: string; taker: boolean; fee: string }

const startMs = Date.UTC(2026, 10, 20, 12)
let server: ExchangeServer
let baseUrl: string
let buyerKey: ApiKey
let sellerKey: ApiKey
let buyerId: number
/** More than the core ever keeps of one account (it trims back to 5,000 past 10,000). */
const fillCount = fillsPerAccountMax * 2 + 50

// On a data directory: the fill archive in a file, the ledger's reads on its reading thread.
const dataDir = mkdtempSync(join(tmpdir(), 'polder-fills-'))

beforeAll(async () => {
  ;({ server, baseUrl, buyerId, buyerKey, sellerKey } = await serverWithManyTrades({
    count: fillCount,
    startMs,
    dataDir,
  }))
}, 120_000)
afterAll(async () => {
  await server?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

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

type WsReply = {
  action?: string
  requestId: number
  errorCode?: number
  response: LedgerPage
}

type LedgerPage = {
  items: { transactionId: string; type: string; executedAt: string; receivedAmount: string }[]
  currentPage: number
  totalPages: number
  maxItems: number
}

describe('GET /v2/account/history beyond the core memory', () => {
  const ledger = async (query: string): Promise<LedgerPage> => {
    const response = await signedRequest(baseUrl, buyerKey, 'GET', `/v2/account/history?${query}`)
    expect(response.status, JSON.stringify(response.json)).toBe(200)
    return response.json
  }
  const ids = (page: LedgerPage) => page.items.map((item) => item.transactionId)

  it('counts every fill and the deposit, and its last page holds the oldest, which the core forgot', async () => {
    const entries = fillCount + 1 // the buyer's euro deposit, older than every fill
    const first = await ledger('maxItems=100')
    expect(first.totalPages).toBe(Math.ceil(entries / 100))
    expect(first.items[0]).toMatchObject({
      transactionId: `BTC-EUR-${fillCount}-buy`,
      type: 'buy',
      executedAt: new Date(startMs + fillCount).toISOString(),
      receivedAmount: '0.00100000',
    })
    const last = await ledger(`maxItems=100&page=${first.totalPages}`)
    expect(last.currentPage).toBe(first.totalPages)
    expect(ids(last).slice(-3)).toEqual(['BTC-EUR-2-buy', 'BTC-EUR-1-buy', `EUR-${buyerId}`])
    expect(last.items).toHaveLength(entries - (first.totalPages - 1) * 100)
    expect(await ledger(`maxItems=100&page=${first.totalPages + 1}`)).toMatchObject({
      items: [],
      totalPages: first.totalPages,
    })
  })

  it("answers 108 to a read asked while three of the account's are under way, and the rest in full", async () => {
    // Eight asked at once on one socket reach the server together; each read walks the account's
    // 10,000 fills on the archive's reading thread, one read of an account at a time.
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    await new Promise((resolve) => ws.once('open', resolve))
    const received: WsReply[] = []
    ws.on('message', (data) => received.push(JSON.parse(data.toString())))
    ws.send(JSON.stringify(authenticateRequest(buyerKey)))
    await expect.poll(() => received).toContainEqual({ event: 'authenticate', authenticated: true })
    const action = 'privateGetTransactionHistory'
    for (let requestId = 1; requestId <= 8; requestId += 1)
      ws.send(JSON.stringify({ action, requestId, maxItems: 100 }))
    await expect.poll(() => received.filter((reply) => reply.action === action).length).toBe(8)
    const replies = received.filter((reply) => reply.action === action)
    const busy = replies.filter((reply) => reply.errorCode !== undefined)
    expect(busy.length).toBeGreaterThan(0)
    for (const reply of busy)
      expect(reply).toMatchObject({
        errorCode: 108,
        error: expect.stringContaining('could not process your request in time'),
      })
    for (const reply of replies.filter((each) => each.errorCode === undefined))
      expect(reply.response.items).toHaveLength(100)
    expect(replies.map((reply) => reply.requestId).sort((a, b) => a - b)).toEqual([
      1, 2, 3, 4, 5, 6, 7, 8,
    ])
    ws.close()
    // Once they are done, the account reads again.
    expect((await ledger('maxItems=1')).items).toHaveLength(1)
  })

  it('filters by type and by a window of ISO or millisecond dates', async () => {
    const deposits = await ledger('type=deposit')
    expect(ids(deposits)).toEqual([`EUR-${buyerId}`])
    expect(deposits.totalPages).toBe(1)
    const early = await ledger(
      `type=buy&fromDate=${new Date(startMs + 1).toISOString()}&toDate=${startMs + 3}`,
    )
    expect(ids(early)).toEqual(['BTC-EUR-3-buy', 'BTC-EUR-2-buy', 'BTC-EUR-1-buy'])
    expect(await ledger('type=sell')).toMatchObject({ items: [], totalPages: 0 })
  })
})
