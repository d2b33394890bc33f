// The MiCA reports, /report/{market}/book and /report/{market}/trades, against a real server:
// the fields of Bitvavo's docs pages, the same book and trades the plain endpoints show, and the
// same errors for the same bad parameters.
import { randomBytes } from 'node:crypto'
import { reportBookResponse, reportTradesResponse } from '@polder/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { createTrader as createTraderOn, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field below
type Json = any
type Key = Trader

let server: ExchangeServer
let baseUrl: string
let buyer: Key
let seller: Key

const createTrader = (name: string, asset: string, amount: string) =>
  createTraderOn(server, `${name}-${randomBytes(4).toString('hex')}@example.com`, {
    [asset]: amount,
  })

async function place(who: Key, side: 'buy' | 'sell', amount: string, price: string) {
  const response = await signedRequest(baseUrl, who, 'POST', '/v2/order', {
    body: { market: 'BTC-EUR', side, orderType: 'limit', amount, price, operatorId: 1 },
    windowMs: 10_000,
  })
  expect(response.status).toBe(200)
  return response.json as Json
}

async function get(path: string): Promise<{ status: number; json: Json; headers: Headers }> {
  const response = await fetch(`${baseUrl}/v2${path}`)
  return { status: response.status, json: await response.json(), headers: response.headers }
}

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, venue: 'XTST' },
    testListing,
  )
  baseUrl = await server.listen()
  buyer = await createTrader('buyer', 'EUR', '100000')
  seller = await createTrader('seller', 'BTC', '10')
})
afterAll(() => server.close())

describe('GET /report/{market}/book', () => {
  it('lists every level best first with its quantity and number of orders, in the MiCA fields', async () => {
    await place(seller, 'sell', '0.1', '60000')
    const cancelLater = await place(seller, 'sell', '0.2', '60000')
    await place(seller, 'sell', '0.05', '61000')
    await place(buyer, 'buy', '0.1', '40000')
    await place(buyer, 'buy', '0.2', '40000')
    await place(buyer, 'buy', '0.3', '39000')

    const before = Date.now()
    const report = await get('/report/BTC-EUR/book')
    expect(report.status).toBe(200)
    expect(reportBookResponse.safeParse(report.json).error).toBeUndefined()
    expect(report.json).toEqual({
      submissionTimestamp: expect.any(String),
      assetCode: 'BTC',
      assetName: 'Bitcoin',
      bids: [
        { side: 'BUYI', price: '40000', quantity: '0.30000000', numOrders: 2 },
        { side: 'BUYI', price: '39000', quantity: '0.30000000', numOrders: 1 },
      ],
      asks: [
        { side: 'SELL', price: '60000', quantity: '0.30000000', numOrders: 2 },
        { side: 'SELL', price: '61000', quantity: '0.05000000', numOrders: 1 },
      ],
      priceCurrency: 'EUR',
      priceNotation: 'MONE',
      quantityCurrency: 'BTC',
      quantityNotation: 'CRYP',
      venue: 'XTST',
      tradingSystem: 'XTST',
      publicationTimestamp: report.json.submissionTimestamp,
    })
    const submitted = Date.parse(report.json.submissionTimestamp)
    expect(submitted).toBeGreaterThanOrEqual(before)
    expect(submitted).toBeLessThanOrEqual(Date.now())
    expect(report.headers.get('bitvavo-ratelimit-limit')).toBe('1000')

    // The same levels as the order book, once its batch is published.
    const deadline = Date.now() + 5_000
    let book = (await get('/BTC-EUR/book')).json
    while (book.bids.length < 2 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      book = (await get('/BTC-EUR/book')).json
    }
    const levels = (rows: Json[]) => rows.map((row: Json) => [row.price, row.quantity])
    expect(levels(report.json.bids)).toEqual(book.bids)
    expect(levels(report.json.asks)).toEqual(book.asks)

    // depth bounds each side; a cancel takes its order out of the count at once.
    const cancel = await signedRequest(
      baseUrl,
      seller,
      'DELETE',
      `/v2/order?market=BTC-EUR&orderId=${cancelLater.orderId}&operatorId=1`,
      { windowMs: 10_000 },
    )
    expect(cancel.status).toBe(200)
    const top = (await get('/report/BTC-EUR/book?depth=1')).json
    expect(top.bids).toEqual([
      { side: 'BUYI', price: '40000', quantity: '0.30000000', numOrders: 2 },
    ])
    expect(top.asks).toEqual([
      { side: 'SELL', price: '60000', quantity: '0.10000000', numOrders: 1 },
    ])
  })

  it('answers an empty market with empty sides', async () => {
    const report = await get('/report/ETH-EUR/book')
    expect(report.status).toBe(200)
    expect(report.json).toMatchObject({
      assetCode: 'ETH',
      assetName: 'Ethereum',
      bids: [],
      asks: [],
    })
  })

  it('refuses what GET /{market}/book refuses, with the same errors', async () => {
    for (const query of ['', '?depth=0', '?depth=1001', '?depth=x', '?deep=1']) {
      const plain = await get(`/DOGE-EUR/book${query}`)
      const report = await get(`/report/DOGE-EUR/book${query}`)
      expect(plain.status, query).toBeGreaterThanOrEqual(400)
      expect([report.status, report.json], query).toEqual([plain.status, plain.json])
    }
    for (const query of ['?depth=0', '?depth=1001', '?depth=x', '?deep=1']) {
      const plain = await get(`/BTC-EUR/book${query}`)
      const report = await get(`/report/BTC-EUR/book${query}`)
      expect(plain.status, query).toBeGreaterThanOrEqual(400)
      expect([report.status, report.json], query).toEqual([plain.status, plain.json])
    }
  })
})

describe('GET /report/{market}/trades', () => {
  it('lists the public trades newest first, each as a MiCA post-trade row', async () => {
    // Takes 0.1 at 60,000 and 0.05 at 61,000: two trades.
    await place(buyer, 'buy', '0.15', '61000')
    const plain = await get('/BTC-EUR/trades')
    const report = await get('/report/BTC-EUR/trades')
    expect(report.status).toBe(200)
    expect(reportTradesResponse.safeParse(report.json).error).toBeUndefined()
    expect(plain.json).toHaveLength(2)
    expect(report.json).toEqual(
      plain.json.map((trade: Json) => ({
        tradeId: trade.id,
        transactTimestamp: new Date(trade.timestamp).toISOString(),
        assetCode: 'BTC',
        assetName: 'Bitcoin',
        price: trade.price,
        missingPrice: '',
        priceNotation: 'MONE',
        priceCurrency: 'EUR',
        quantity: trade.amount,
        quantityCurrency: 'BTC',
        quantityNotation: 'CRYP',
        venue: 'XTST',
        publicationTimestamp: new Date(trade.timestamp).toISOString(),
        publicationVenue: 'XTST',
      })),
    )
    expect(report.json.map((row: Json) => [row.price, row.quantity])).toEqual([
      ['61000', '0.05000000'],
      ['60000', '0.10000000'],
    ])
  })

  it('takes the parameters of /{market}/trades: limit, time window and trade id cursors', async () => {
    const all = (await get('/report/BTC-EUR/trades')).json
    const [newest, oldest] = all
    expect((await get('/report/BTC-EUR/trades?limit=1')).json).toEqual([newest])
    expect((await get(`/report/BTC-EUR/trades?tradeIdTo=${oldest.tradeId}`)).json).toEqual([oldest])
    expect((await get(`/report/BTC-EUR/trades?tradeIdFrom=${newest.tradeId}`)).json).toEqual([
      newest,
    ])
    const at = Date.parse(oldest.transactTimestamp)
    expect((await get(`/report/BTC-EUR/trades?start=${at + 1}&end=${at + 60_000}`)).json).toEqual(
      all.filter((row: Json) => Date.parse(row.transactTimestamp) > at),
    )
  })

  it('costs 5 weight points, as /{market}/trades does', async () => {
    // Two requests within one rate-limit minute (the budget starts over at each): a pair that
    // straddles a minute's end is asked again.
    for (let attempt = 0; ; attempt += 1) {
      const first = await get('/report/BTC-EUR/trades')
      const second = await get('/report/BTC-EUR/trades')
      const resetAt = (response: typeof first) => response.headers.get('bitvavo-ratelimit-resetat')
      if (resetAt(first) !== resetAt(second) && attempt < 3) continue
      expect(resetAt(second)).toBe(resetAt(first))
      expect(
        Number(first.headers.get('bitvavo-ratelimit-remaining')) -
          Number(second.headers.get('bitvavo-ratelimit-remaining')),
      ).toBe(5)
      return
    }
  })

  it('refuses what GET /{market}/trades refuses, with the same errors', async () => {
    for (const [market, query] of [
      ['DOGE-EUR', ''],
      ['BTC-EUR', '?limit=0'],
      ['BTC-EUR', '?limit=1001'],
      ['BTC-EUR', '?start=0&end=86400001'],
      ['BTC-EUR', '?tradeIdTo=abc'],
      ['BTC-EUR', '?side=buy'],
    ]) {
      const plain = await get(`/${market}/trades${query}`)
      const report = await get(`/report/${market}/trades${query}`)
      expect(plain.status, query).toBeGreaterThanOrEqual(400)
      expect([report.status, report.json], `${market}${query}`).toEqual([plain.status, plain.json])
    }
  })
})
