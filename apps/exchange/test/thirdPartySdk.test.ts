// Compatibility with a published third-party client of the v2 API: the official Node SDK
// (npm `bitvavo` 1.4.1), unchanged, pointed at a Polder server on loopback. REST market data,
// balances, placing, listing and cancelling orders; over its WebSocket: its local order book
// (getBook + book deltas with consecutive nonces) and account order/fill events.
import createClient from 'bitvavo'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { serverSubscribed, subscriptionChanges } from './fixtures/serverSubscribed.ts'
import { testListing } from './fixtures/testListing.ts'

let server: ExchangeServer
let baseUrl: string
let maker: ReturnType<typeof createClient>
let taker: ReturnType<typeof createClient>

async function sdkFor(email: string, deposits: [string, bigint][]) {
  const account = await server.accounts.createAccount(email, 'a long enough password')
  const { key, secret } = await server.accounts.createApiKey(account.id, ['view', 'trade'])
  for (const [asset, amount] of deposits) {
    await server.service.submit({
      type: 'deposit',
      timestamp: Date.now(),
      accountId: account.id,
      asset,
      amount: amount.toString(),
      reference: `${email}-${asset}`,
    })
  }
  const client = createClient().options({
    APIKEY: key,
    APISECRET: secret,
    ACCESSWINDOW: 10000,
    RESTURL: `${baseUrl}/v2`,
    WSURL: `${baseUrl.replace('http', 'ws')}/v2/`,
    DEBUGGING: false,
  })
  client.getEmitter().on('error', (error) => {
    throw new Error(`SDK reported ${JSON.stringify(error)}`)
  })
  return client
}

async function eventually<T>(read: () => T | undefined, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
  )
  baseUrl = await server.listen()
  maker = await sdkFor('sdk-maker@example.com', [['BTC', toLedgerUnits(2, 0)]])
  taker = await sdkFor('sdk-taker@example.com', [['EUR', toLedgerUnits(100_000, 0)]])
})
afterAll(async () => {
  maker?.websocket.close() // the taker never opened its socket
  await server.close()
})

describe('the official Node SDK against a Polder server', () => {
  it('reads time, markets, assets and the book over REST', async () => {
    expect(typeof (await maker.time()).time).toBe('number')
    const markets = await maker.markets()
    expect(markets.map((market) => market.market)).toEqual(['BTC-EUR', 'ETH-EUR'])
    expect((await maker.assets()).length).toBe(3)
    expect(await maker.book('BTC-EUR')).toMatchObject({ market: 'BTC-EUR', bids: [], asks: [] })
  })

  it('keeps a local book through getBook and consecutive book nonces, and gets account events', async () => {
    let localBook: { bids: string[][]; asks: string[][]; nonce: number } | undefined
    await maker.websocket.subscriptionBook('BTC-EUR', (book) => {
      localBook = {
        bids: book.bids.map((level) => [...level]),
        asks: book.asks.map((level) => [...level]),
        nonce: book.nonce,
      }
    })
    const accountEvents: Record<string, unknown>[] = []
    const from = subscriptionChanges()
    await maker.websocket.subscriptionAccount('BTC-EUR', (event) => accountEvents.push(event))
    await eventually(() => localBook)
    await serverSubscribed(from, (subscriptions) => subscriptions.hasAccount('BTC-EUR'))

    const placed = await maker.placeOrder('BTC-EUR', 'sell', 'limit', {
      amount: '0.5',
      price: '60000',
      operatorId: 0,
    })
    expect(placed).toMatchObject({ status: 'new', amount: '0.50000000', price: '60000' })
    await maker.placeOrder('BTC-EUR', 'sell', 'limit', {
      amount: '0.25',
      price: '61000',
      operatorId: 0,
    })
    const bought = await taker.placeOrder('BTC-EUR', 'buy', 'market', {
      amount: '0.2',
      operatorId: 0,
    })
    expect(bought).toMatchObject({ status: 'filled', filledAmount: '0.20000000' })

    const book = await eventually(() =>
      localBook?.asks.length === 2 && localBook.asks[0]?.[1] === '0.30000000'
        ? localBook
        : undefined,
    )
    expect(book.asks).toEqual([
      ['60000', '0.30000000'],
      ['61000', '0.25000000'],
    ])
    const rest = await maker.book('BTC-EUR')
    expect(rest.asks).toEqual(book.asks)
    expect(rest.nonce).toBe(book.nonce)
    const fill = await eventually(() => accountEvents.find((event) => event.event === 'fill'))
    expect(fill).toMatchObject({
      market: 'BTC-EUR',
      orderId: placed.orderId,
      side: 'sell',
      amount: '0.20000000',
      taker: false,
    })
  })

  it('lists, fetches and cancels orders and shows balances over REST', async () => {
    const open = await maker.ordersOpen({ market: 'BTC-EUR' })
    expect(open).toHaveLength(2)
    const first = open[0]!
    expect(await maker.getOrder('BTC-EUR', String(first.orderId))).toMatchObject({
      orderId: first.orderId,
    })
    expect(await maker.cancelOrder('BTC-EUR', String(first.orderId))).toMatchObject({
      orderId: first.orderId,
    })
    expect(await maker.ordersOpen({ market: 'BTC-EUR' })).toHaveLength(1)
    const balances = await taker.balance({})
    expect(balances.find((row) => row.symbol === 'BTC')).toMatchObject({
      available: '0.20000000',
      inOrder: '0.00000000',
    })
    const account = await taker.account()
    expect(account).toMatchObject({ fees: { maker: '0.0015', taker: '0.0025' } })
    expect((await taker.trades('BTC-EUR')).length).toBe(1)
  })

  it('surfaces protocol errors the way the SDK expects: the message string', async () => {
    await expect(
      taker.placeOrder('BTC-EUR', 'buy', 'limit', { amount: '10', price: '60000' }),
    ).rejects.toBe('You do not have sufficient balance to complete this operation.')
  })
})
