import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  BookStreamError,
  createPolderClient,
  type PolderClient,
  UnknownSocketActionError,
  type WebSocketConstructor,
} from '../src/index.ts'
import {
  apiKey,
  bookSnapshot,
  fillEvent,
  orderEvent,
  orderId,
  recordingLogger,
  sequentialIds,
  signature,
} from './support/fixtures.ts'
import { waitUntil } from './support/waitUntil.ts'
import {
  account,
  asset,
  balance,
  market,
  openOrder,
  privateTrade,
  publicTrade,
  ticker24h,
  tickerEntry,
} from './support/wireFixtures.ts'
import { startWsServer, type TestWsServer } from './support/wsServer.ts'

// Spec §7, §8 over a real WebSocket: every action on the wire, every event and reply routed to
// its store, error replies to failed stores, unknown actions and events.

const WebSocketImpl = globalThis.WebSocket as unknown as WebSocketConstructor
let server: TestWsServer
let client: PolderClient
let logger: ReturnType<typeof recordingLogger>

const responses: Record<string, unknown> = {
  getAssets: [asset],
  getMarkets: [market],
  getBook: bookSnapshot('BTC-EUR', 7),
  getTrades: [publicTrade],
  privateGetTrades: [privateTrade],
  privateGetBalance: [balance],
  privateGetOrdersOpen: [openOrder],
  privateCreateOrder: openOrder,
  privateCancelOrder: { orderId },
  privateGetAccount: account,
  getTime: { time: 1_700_000_000_000 },
  getTicker24h: [ticker24h],
}

/** Answer like the exchange would; `failing` actions get an error reply instead. */
let failing: Record<string, { errorCode: number; error: string; market?: undefined }> = {}

beforeEach(async () => {
  failing = {}
  server = await startWsServer((message, socket) => {
    const action = String(message.action)
    const failure = failing[action]
    if (failure !== undefined) {
      socket.send(JSON.stringify({ action, market: message.market, ...failure }))
    } else if (action === 'authenticate') {
      socket.send(JSON.stringify({ event: 'authenticate', authenticated: true }))
    } else if (action in responses) {
      socket.send(JSON.stringify({ action, response: responses[action] }))
    }
  })
  logger = recordingLogger()
  client = createPolderClient({
    url: server.url,
    WebSocket: WebSocketImpl,
    logger,
    createId: sequentialIds(),
    reconnect: false,
    credentials: () => ({ key: apiKey, signature, timestamp: 1_700_000_000_000 }),
  })
  await client.connect()
})

afterEach(async () => {
  client.dispose()
  await server.close()
})

async function authenticate(): Promise<void> {
  await client.authenticate()
  await waitUntil(() => expect(client.stores.auth.getState().authenticated).toBe(true))
}

describe('spec §7 socket actions', () => {
  test('every action of spec §7 is sent as its protocol message and its reply fills its store', async () => {
    await authenticate()
    const s = client.stores
    client.getAssets()
    client.getMarkets()
    client.getTrades('BTC-EUR')
    client.privateGetTrades('BTC-EUR')
    client.privateGetBalance()
    client.privateGetOrdersOpen('BTC-EUR')
    client.privateCreateOrder({
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '1',
      price: '30000',
    })
    client.privateCancelOrder({ market: 'BTC-EUR', orderId })
    client.getTime()
    client.getTicker24h()
    client.subscribeToBook('BTC-EUR')
    await waitUntil(() => {
      expect(s.assets.getState().load).toEqual({ status: 'received', data: [asset] })
      expect(s.markets.getState().load).toEqual({ status: 'received', data: [market] })
      expect(s.trades.getState().load).toEqual({
        status: 'received',
        data: { market: 'BTC-EUR', trades: [publicTrade] },
      })
      expect(s.privateTrades.getState().load).toEqual({ status: 'received', data: [privateTrade] })
      expect(s.balance.getState().load).toEqual({ status: 'received', data: [balance] })
      expect(s.openOrders.getState().load.status).toBe('received')
      expect(s.createOrder.getState().load).toEqual({ status: 'received', data: openOrder })
      expect(s.cancelOrder.getState().load).toEqual({ status: 'received', data: { orderId } })
      expect(s.time.getState().load).toEqual({
        status: 'received',
        data: { time: 1_700_000_000_000 },
      })
      expect(s.ticker24h.getState().load.status).toBe('received')
      expect(s.orderBooks.getState().books['BTC-EUR']?.status).toBe('received')
    })
    const wire = server.received.map((entry) => entry.message)
    expect(wire).toEqual([
      { action: 'authenticate', key: apiKey, signature, timestamp: 1_700_000_000_000 },
      { action: 'privateGetAccount' },
      { action: 'getAssets' },
      { action: 'getMarkets' },
      { action: 'getTrades', market: 'BTC-EUR' },
      { action: 'privateGetTrades', market: 'BTC-EUR' },
      { action: 'privateGetBalance' },
      { action: 'privateGetOrdersOpen', market: 'BTC-EUR' },
      {
        action: 'privateCreateOrder',
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        amount: '1',
        price: '30000',
      },
      { action: 'privateCancelOrder', market: 'BTC-EUR', orderId },
      { action: 'getTime' },
      { action: 'getTicker24h' },
      { action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
      { action: 'getBook', market: 'BTC-EUR' },
    ])
  })

  test('privateGetAccount is sent right after a successful authenticate and fills the fees', async () => {
    // Fees other than the defaults the store starts with, so that only the reply can fill them
    // (with the defaults, the wait below passed before the request had even reached the server).
    responses.privateGetAccount = {
      fees: { taker: '0.0020', maker: '0.0010', volume: '250000.00' },
    } satisfies typeof account
    try {
      await authenticate()
      await waitUntil(() => expect(client.stores.fees.getState().load.status).toBe('received'))
      expect(client.stores.fees.getState().fees).toEqual({
        maker: '0.1',
        taker: '0.2',
        required: '0',
      })
      expect(server.received.map((entry) => entry.message.action)).toEqual([
        'authenticate',
        'privateGetAccount',
      ])
    } finally {
      responses.privateGetAccount = account
    }
  })

  test('subscribe and unsubscribe for the book channel of a market and the account channel', async () => {
    await authenticate()
    client.subscribeToBook('ETH-EUR')
    client.unsubscribeFromBook('ETH-EUR')
    client.subscribeAccount(['BTC-EUR'])
    client.unsubscribeAccount()
    client.send('subscribe', { channels: [{ name: 'ticker24h', markets: ['BTC-EUR'] }] })
    await server.waitFor(
      (message) =>
        message.action === 'subscribe' && JSON.stringify(message.channels).includes('ticker24h'),
    )
    const subscriptions = server.received
      .map((entry) => entry.message)
      .filter((message) => message.action === 'subscribe' || message.action === 'unsubscribe')
    expect(subscriptions).toEqual([
      { action: 'subscribe', channels: [{ name: 'book', markets: ['ETH-EUR'] }] },
      { action: 'unsubscribe', channels: [{ name: 'book', markets: ['ETH-EUR'] }] },
      { action: 'subscribe', channels: [{ name: 'account', markets: ['BTC-EUR'] }] },
      { action: 'unsubscribe', channels: [{ name: 'account', markets: ['BTC-EUR'] }] },
      { action: 'subscribe', channels: [{ name: 'ticker24h', markets: ['BTC-EUR'] }] },
    ])
  })

  test('the spec names subscribeToBook and unsubscribeFromBook go out as protocol book subscriptions', async () => {
    client.send('subscribeToBook', { markets: ['BTC-EUR'] })
    client.send('unsubscribeFromBook', { markets: ['BTC-EUR'] })
    await server.waitFor((message) => message.action === 'unsubscribe')
    expect(server.received.map((entry) => entry.message)).toEqual([
      { action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
      { action: 'unsubscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
    ])
  })

  test('an unknown action raises an error', () => {
    expect(() => client.send('privateWithdrawEverything')).toThrow(UnknownSocketActionError)
    expect(() => client.send('toString')).toThrow(UnknownSocketActionError)
  })

  test('store actions clearTrades and resetTicker24h never reach the wire', async () => {
    expect(() => client.send('clearTrades')).toThrow(UnknownSocketActionError)
    client.getTrades('BTC-EUR')
    await waitUntil(() => expect(client.stores.trades.getState().load.status).toBe('received'))
    client.clearTrades()
    client.resetTicker24h()
    expect(client.stores.trades.getState().load).toEqual({ status: 'reset', error: undefined })
    expect(client.stores.ticker24h.getState().load.status).toBe('reset')
    expect(server.received.map((entry) => entry.message.action)).toEqual(['getTrades'])
  })
})

describe('spec §7 socket events', () => {
  test('every event of spec §7 is routed to its store', async () => {
    await authenticate()
    client.getTicker24h()
    client.subscribeToBook('BTC-EUR')
    client.privateGetOrdersOpen()
    await waitUntil(() => {
      expect(client.stores.ticker24h.getState().load.status).toBe('received')
      expect(client.stores.orderBooks.getState().books['BTC-EUR']?.status).toBe('received')
      expect(client.stores.openOrders.getState().load.status).toBe('received')
    })
    server.send({ event: 'update', data: { BTC: ['8400', '5'] } })
    server.send({ event: 'mobileUpdate', data: { ETH: ['2000'] } })
    server.send({ event: 'ticker24h', data: [tickerEntry()] })
    server.send({ event: 'subscribed', subscriptions: { book: ['BTC-EUR'] } })
    server.send({ event: 'book', market: 'BTC-EUR', nonce: 8, bids: [['100.5', '1']], asks: [] })
    server.send(orderEvent({ status: 'partiallyFilled', updated: 1_500 }))
    server.send(fillEvent())
    server.send({ event: 'unsubscribed', subscriptions: {} })
    server.send({ event: 'unauthenticate' })
    await waitUntil(() => expect(client.stores.auth.getState().authenticated).toBe(false))
    const s = client.stores
    expect(s.ticker24h.getState().priceUpdates).toEqual({ BTC: ['8400', '5'], ETH: ['2000'] })
    const tickers = s.ticker24h.getState().load
    expect(tickers.status === 'received' && tickers.data['BTC-EUR']?.last).toBe('8400')
    expect(s.socket.getState().serverSubscriptions).toEqual({})
    const orders = s.openOrders.getState()
    expect(orders.load.status === 'received' && orders.load.data[0]?.fills).toHaveLength(1)
    expect(orders.history.map((entry) => entry.type)).toEqual(['update', 'fill'])
    // The book update waits for the merge timer (1000 ms).
    await waitUntil(() =>
      expect(s.orderBooks.getState().books['BTC-EUR']).toMatchObject({
        status: 'received',
        data: { nonce: 8 },
      }),
    )
  })

  test('an unknown event is logged, not thrown', async () => {
    server.send({ event: 'surprise', data: 1 })
    server.send({ event: 'trade', market: 'BTC-EUR' })
    await waitUntil(() =>
      expect(logger.entries.filter((entry) => entry.level === 'warn')).toHaveLength(2),
    )
    expect(logger.entries.map((entry) => entry.message)).toContain(
      'Unknown socket event "surprise".',
    )
    expect(client.stores.socket.getState().connection).toBe('open')
  })
})

describe('spec §8 error replies', () => {
  const storeOf: Record<string, (client: PolderClient) => { load: unknown }> = {
    getAssets: (c) => c.stores.assets.getState(),
    getMarkets: (c) => c.stores.markets.getState(),
    getTrades: (c) => c.stores.trades.getState(),
    privateGetTrades: (c) => c.stores.privateTrades.getState(),
    privateGetBalance: (c) => c.stores.balance.getState(),
    privateGetOrdersOpen: (c) => c.stores.openOrders.getState(),
    getTicker24h: (c) => c.stores.ticker24h.getState(),
    getTime: (c) => c.stores.time.getState(),
    privateCreateOrder: (c) => c.stores.createOrder.getState(),
    privateCancelOrder: (c) => c.stores.cancelOrder.getState(),
  }

  test('responses carrying error and errorCode put the matching store into failed with message and code', async () => {
    await authenticate()
    for (const action of Object.keys(storeOf)) {
      failing[action] = { errorCode: 205, error: `${action} parameter is invalid.` }
    }
    client.getAssets()
    client.getMarkets()
    client.getTrades('BTC-EUR')
    client.privateGetTrades('BTC-EUR')
    client.privateGetBalance()
    client.privateGetOrdersOpen()
    client.getTicker24h()
    client.getTime()
    client.privateCreateOrder({ market: 'BTC-EUR', side: 'buy', orderType: 'market', amount: '1' })
    client.privateCancelOrder({ market: 'BTC-EUR', orderId })
    await waitUntil(() => {
      for (const [action, read] of Object.entries(storeOf)) {
        expect(read(client).load, action).toEqual({
          status: 'failed',
          error: { message: `${action} parameter is invalid.`, code: 205 },
        })
      }
    })
  })

  test('a failed authenticate puts authentication into failed with its message and code', async () => {
    failing.authenticate = { errorCode: 309, error: 'The signature is invalid.' }
    await client.authenticate()
    await waitUntil(() =>
      expect(client.stores.auth.getState().load).toEqual({
        status: 'failed',
        error: { message: 'The signature is invalid.', code: 309 },
      }),
    )
    expect(client.stores.auth.getState().authenticated).toBe(false)
  })

  test('a book error is passed on as a stream error', async () => {
    failing.getBook = { errorCode: 205, error: 'market parameter is invalid.' }
    const errors: BookStreamError[] = []
    client.onBookStreamError((error) => errors.push(error))
    client.subscribeToBook('BTC-EUR')
    await waitUntil(() => expect(errors).toHaveLength(1))
    expect(errors[0]).toBeInstanceOf(BookStreamError)
    expect(errors[0]).toMatchObject({ market: 'BTC-EUR', code: 205 })
    expect(client.stores.orderBooks.getState().books['BTC-EUR']).toEqual({
      status: 'failed',
      error: { message: 'market parameter is invalid.', code: 205 },
    })
  })

  test('a book error without a market is the answer to the oldest unanswered getBook', async () => {
    // Protocol §5: only the live API echoes `market` in error replies; replies come in order.
    failing.getBook = { errorCode: 205, error: 'market parameter is invalid.', market: undefined }
    const errors: BookStreamError[] = []
    client.onBookStreamError((error) => errors.push(error))
    client.subscribeToBook('BTC-EUR')
    client.subscribeToBook('ETH-EUR')
    await waitUntil(() => expect(errors).toHaveLength(2))
    expect(errors.map((error) => error.market)).toEqual(['BTC-EUR', 'ETH-EUR'])
    expect(client.stores.orderBooks.getState().books['ETH-EUR']).toEqual({
      status: 'failed',
      error: { message: 'market parameter is invalid.', code: 205 },
    })
  })
})
