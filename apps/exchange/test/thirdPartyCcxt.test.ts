// Compatibility with the most used third-party client of the v2 API: ccxt (npm `ccxt` 4.5.84,
// its `bitvavo` class and the WebSocket `pro.bitvavo` built on it), unchanged, pointed at a Polder
// server on loopback by overriding its URLs as protocol §7.1 says. The simulator is off: every
// order in the books is one placed here, so each price, amount, fee and balance is known.
// REST: markets, currencies, time, tickers, book, public trades, candles, balances, the order
// life cycle (create limit/market/by cost, fetch, edit, list, cancel, cancel all), own trades,
// trading fees, deposit address, deposits, withdraw and withdrawals. WebSocket: the local book
// (subscribe, getBook, nonce-ordered deltas) kept equal to the REST book through trades, the
// 24-hour ticker, public trades, candles, the account's order and fill events, and trading
// through the request actions (createOrderWs and the like, replies matched by requestId).
// The fields ccxt looks for in an error reply and a waiting stop order: thirdPartyCcxtFields.test.ts.
import ccxt from 'ccxt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { type Bitvavo, ccxtFor as ccxtClient } from './fixtures/ccxtClient.ts'
import { serverSubscribed, subscriptionChanges } from './fixtures/serverSubscribed.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader } from './fixtures/trader.ts'

type OrderBook = Awaited<ReturnType<Bitvavo['watchOrderBook']>>
type Order = Awaited<ReturnType<Bitvavo['createOrder']>>

let server: ExchangeServer
let baseUrl: string
/** No credentials: public calls and the public WebSocket channels. */
let anonymous: Bitvavo
/** Sells BTC from a deposit of 2 BTC, buys with 20,000 EUR; may withdraw. */
let maker: Bitvavo
/** Buys and sells at market from 100,000 EUR. */
let taker: Bitvavo
let makerAccountId: number
const exchanges: Bitvavo[] = []
const operatorId = 42
/** A valid Bitcoin (bech32) address for withdrawals; ccxt's checkAddress also accepts it. */
const btcAddress = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'

/** A ccxt instance pointed at the test server, closed after the tests. */
async function ccxtFor(credentials?: { key: string; secret: string }): Promise<Bitvavo> {
  const exchange = await ccxtClient(baseUrl, { credentials, operatorId })
  exchanges.push(exchange)
  return exchange
}

/**
 * The first value that satisfies `done`: what ccxt holds already (`current`), else what `watch`
 * resolves with next, and so on; throws after `timeoutMs`.
 */
async function watchUntil<T>(
  current: () => T | undefined,
  watch: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  const held = current()
  if (held !== undefined && done(held)) return held
  for (;;) {
    const remaining = deadline - Date.now()
    if (remaining <= 0) throw new Error('condition not met in time')
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('watch did not resolve in time')), remaining)
    })
    try {
      const value = await Promise.race([watch(), timeout])
      if (done(value)) return value
    } finally {
      clearTimeout(timer)
    }
  }
}

/** An order's id (ccxt types it as possibly undefined). */
function idOf(order: Order): string {
  if (order.id === undefined) throw new Error('order without an id')
  return order.id
}

/** What `read` gives once it is not undefined, polling for at most `timeoutMs`. */
async function eventually<T>(read: () => Promise<T | undefined>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await read()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error('condition not met in time')
    await pause(20)
  }
}

/** A book side as plain [price, amount] pairs (ccxt's local book sides are array subclasses). */
const levels = (side: OrderBook['asks']) => side.map(([price, amount]) => [price, amount])
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** ccxt's local BTC/EUR book once it satisfies `done`, waiting on its updates for at most 5 s. */
async function localBookWhen(done: (book: OrderBook) => boolean): Promise<OrderBook> {
  return watchUntil<OrderBook>(
    () => {
      const book = anonymous.orderbooks['BTC/EUR']
      return book?.nonce === undefined ? undefined : book
    },
    () => anonymous.watchOrderBook('BTC/EUR'),
    done,
  )
}

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer({ simulator: false }))
  const makerTrader = await createTrader(server, 'ccxt-maker@example.com', {
    BTC: '2',
    EUR: '20000',
  })
  makerAccountId = makerTrader.accountId
  // The fixture's key may view and trade; this one may also withdraw.
  const makerKey = await server.accounts.createApiKey(makerAccountId, ['view', 'trade', 'withdraw'])
  const takerTrader = await createTrader(server, 'ccxt-taker@example.com', { EUR: '100000' })
  anonymous = await ccxtFor()
  maker = await ccxtFor(makerKey)
  taker = await ccxtFor(takerTrader)
})

afterAll(async () => {
  for (const exchange of exchanges) await exchange.close()
  await server?.close()
})

describe('ccxt REST against a Polder server', () => {
  it('reads the time, the markets and the currencies', async () => {
    const time = await anonymous.fetchTime()
    expect(Math.abs((time ?? 0) - Date.now())).toBeLessThan(5_000)

    const markets = await anonymous.loadMarkets()
    expect(Object.keys(markets).sort()).toEqual(['BTC/EUR', 'ETH/EUR'])
    expect(markets['BTC/EUR']).toMatchObject({
      id: 'BTC-EUR',
      base: 'BTC',
      quote: 'EUR',
      spot: true,
      active: true,
      precision: { amount: 1e-8, price: 1, cost: 0.01 },
      limits: { amount: { min: 0.0001, max: 50 }, cost: { min: 5, max: 1_000_000 } },
    })
    expect(markets['ETH/EUR']?.precision).toMatchObject({ amount: 1e-6, price: 0.01 })
    expect((await anonymous.fetchMarkets()).map((market) => market?.symbol)).toEqual([
      'BTC/EUR',
      'ETH/EUR',
    ])

    const currencies = await anonymous.fetchCurrencies()
    expect(Object.keys(currencies ?? {}).sort()).toEqual(['BTC', 'ETH', 'EUR'])
    expect(currencies?.BTC).toMatchObject({
      code: 'BTC',
      name: 'Bitcoin',
      type: 'crypto',
      active: true,
      deposit: true,
      withdraw: true,
      fee: 0.0001,
      precision: 1e-8,
      limits: { withdraw: { min: 0.001 } },
    })
    expect(Object.keys(currencies?.BTC?.networks ?? {})).toHaveLength(1)
    expect(currencies?.EUR).toMatchObject({ type: 'fiat', precision: 0.01, fee: 0 })
  })

  it('reads an empty book and the tickers of markets without trades', async () => {
    const book = await anonymous.fetchOrderBook('BTC/EUR')
    expect(book).toMatchObject({ symbol: 'BTC/EUR', bids: [], asks: [] })
    expect(Number.isInteger(book.nonce)).toBe(true)
    const ticker = await anonymous.fetchTicker('ETH/EUR')
    expect(ticker).toMatchObject({ symbol: 'ETH/EUR', last: undefined, bid: undefined })
    const tickers = await anonymous.fetchTickers()
    expect(Object.keys(tickers).sort()).toEqual(['BTC/EUR', 'ETH/EUR'])
  })

  it('places limit orders that hold balance and show in the book', async () => {
    const sell = await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.5, 60_000)
    expect(sell).toMatchObject({
      symbol: 'BTC/EUR',
      type: 'limit',
      side: 'sell',
      status: 'open',
      price: 60_000,
      amount: 0.5,
      filled: 0,
      remaining: 0.5,
      timeInForce: 'GTC',
      postOnly: false,
    })
    expect(sell.id).toMatch(/^[0-9a-f-]{36}$/)
    await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.25, 61_000)
    const bid = await maker.createOrder('BTC/EUR', 'limit', 'buy', 0.1, 59_000)
    expect(bid).toMatchObject({ status: 'open', side: 'buy', price: 59_000, amount: 0.1 })

    const balance = await maker.fetchBalance()
    expect(balance.BTC).toMatchObject({ free: 1.25, used: 0.75, total: 2 })
    // A buy holds its price and the most it may pay in fees: 5,900 + 0.25 %.
    expect(balance.EUR).toMatchObject({ free: 14_085.25, used: 5_914.75, total: 20_000 })

    // The REST book is the published one (protocol §6.4), up to one flush (100 ms) behind.
    const book = await eventually(async () => {
      const fetched = await anonymous.fetchOrderBook('BTC/EUR')
      return fetched.bids.length === 1 ? fetched : undefined
    })
    expect(book.asks).toEqual([
      [60_000, 0.5],
      [61_000, 0.25],
    ])
    expect(book.bids).toEqual([[59_000, 0.1]])
    expect((await anonymous.fetchOrderBook('BTC/EUR', 1)).asks).toEqual([[60_000, 0.5]])
  })

  it('buys and sells at market, by amount and by cost, with the taker fee', async () => {
    const bought = await taker.createOrder('BTC/EUR', 'market', 'buy', 0.2)
    expect(bought).toMatchObject({
      type: 'market',
      side: 'buy',
      status: 'closed',
      amount: 0.2,
      filled: 0.2,
      remaining: 0,
      cost: 12_000,
      average: 60_000,
      fee: { cost: 30, currency: 'EUR' }, // 0.25 % of 12,000
    })
    expect(bought.trades).toHaveLength(1)
    expect(bought.trades[0]).toMatchObject({ price: 60_000, amount: 0.2, takerOrMaker: 'taker' })

    const sold = await taker.createOrder('BTC/EUR', 'market', 'sell', 0.04)
    expect(sold).toMatchObject({ status: 'closed', filled: 0.04, cost: 2_360 })
    expect(sold.fee).toEqual({ cost: 5.9, currency: 'EUR' })

    // A market buy of 600 EUR: ccxt sends amountQuote, truncated to EUR's precision.
    // (ccxt's bitvavo has createMarketOrderWithCost but not createMarketBuyOrderWithCost.)
    const byCost = await taker.createMarketOrderWithCost('BTC/EUR', 'buy', 600)
    expect(byCost).toMatchObject({ status: 'closed', filled: 0.01, cost: 600 })

    const balance = await taker.fetchBalance()
    // 100,000 − 12,030 + 2,354.10 − 601.50
    expect(balance.EUR).toMatchObject({ free: 89_722.6, used: 0 })
    expect(balance.BTC).toMatchObject({ free: 0.17, used: 0 })
  })

  it('fetches, edits and cancels a resting order', async () => {
    const placed = await taker.createOrder('BTC/EUR', 'limit', 'buy', 0.01, 58_000)
    const fetched = await taker.fetchOrder(idOf(placed), 'BTC/EUR')
    expect(fetched).toMatchObject({ id: placed.id, status: 'open', price: 58_000, amount: 0.01 })

    const edited = await taker.editOrder(idOf(placed), 'BTC/EUR', 'limit', 'buy', 0.02, 58_500)
    expect(edited).toMatchObject({
      id: placed.id,
      status: 'open',
      price: 58_500,
      amount: 0.02,
      remaining: 0.02,
    })
    expect((await taker.fetchBalance()).EUR?.used).toBe(1_172.93) // 1,170 + 0.25 %, rounded up

    const canceled = await taker.cancelOrder(idOf(placed), 'BTC/EUR')
    expect(canceled.id).toBe(placed.id)
    expect(await taker.fetchOrder(idOf(placed), 'BTC/EUR')).toMatchObject({
      status: 'canceled',
      filled: 0,
    })
    expect((await taker.fetchBalance()).EUR?.used).toBe(0)
  })

  it('lists open orders, all orders and own trades', async () => {
    const open = await maker.fetchOpenOrders('BTC/EUR')
    expect(
      open.map((order) => [order.side, order.price, order.amount, order.filled, order.status]),
    ).toEqual(
      expect.arrayContaining([
        ['sell', 60_000, 0.5, 0.21, 'open'],
        ['sell', 61_000, 0.25, 0, 'open'],
        ['buy', 59_000, 0.1, 0.04, 'open'],
      ]),
    )
    expect(open).toHaveLength(3)
    expect(await maker.fetchOpenOrders()).toHaveLength(3)

    const takerOrders = await taker.fetchOrders('BTC/EUR')
    expect(takerOrders.map((order) => order.status).sort()).toEqual([
      'canceled',
      'closed',
      'closed',
      'closed',
    ])

    const takerTrades = await taker.fetchMyTrades('BTC/EUR')
    expect(takerTrades).toHaveLength(3)
    for (const trade of takerTrades) expect(trade.takerOrMaker).toBe('taker')
    const first = takerTrades.find((trade) => trade.amount === 0.2)
    expect(first).toMatchObject({
      symbol: 'BTC/EUR',
      side: 'buy',
      price: 60_000,
      cost: 12_000,
      fee: { cost: 30, currency: 'EUR' },
    })
    expect(first?.order).toBeDefined()

    const makerTrades = await maker.fetchMyTrades('BTC/EUR')
    const makerFirst = makerTrades.find((trade) => trade.amount === 0.2)
    expect(makerFirst).toMatchObject({
      side: 'sell',
      takerOrMaker: 'maker',
      fee: { cost: 18, currency: 'EUR' }, // 0.15 % of 12,000
    })
  })

  it('reads public trades, the ticker and candles after the trades', async () => {
    const trades = await anonymous.fetchTrades('BTC/EUR')
    expect(trades.map((trade) => [trade.side, trade.price, trade.amount]).sort()).toEqual(
      [
        ['buy', 60_000, 0.2],
        ['sell', 59_000, 0.04],
        ['buy', 60_000, 0.01],
      ].sort(),
    )
    // ccxt sorts ascending by time.
    expect(trades.map((trade) => trade.timestamp)).toEqual(
      [...trades.map((trade) => trade.timestamp)].sort((a, b) => (a ?? 0) - (b ?? 0)),
    )

    const ticker = await anonymous.fetchTicker('BTC/EUR')
    expect(ticker).toMatchObject({
      symbol: 'BTC/EUR',
      open: 60_000,
      high: 60_000,
      low: 59_000,
      last: 60_000,
      bid: 59_000,
      bidVolume: 0.06,
      ask: 60_000,
      askVolume: 0.29,
      baseVolume: 0.25,
      quoteVolume: 14_960,
    })
    const tickers = await anonymous.fetchTickers(['BTC/EUR'])
    expect(tickers['BTC/EUR']?.last).toBe(60_000)

    const candles = await anonymous.fetchOHLCV('BTC/EUR', '1m')
    const volume = candles.reduce((sum, candle) => sum + (candle[5] ?? 0), 0)
    expect(volume).toBeCloseTo(0.25, 10)
    const last = candles.at(-1)
    expect(last?.[4]).toBe(60_000) // close
    const since = (candles[0]?.[0] ?? 0) - 60_000
    const windowed = await anonymous.fetchOHLCV('BTC/EUR', '1m', since, 10)
    expect(windowed).toEqual(candles)
  })

  it('reads the trading fees', async () => {
    const fees = await taker.fetchTradingFees()
    expect(fees['BTC/EUR']).toMatchObject({ maker: 0.0015, taker: 0.0025 })
    expect(await taker.fetchTradingFee('BTC/EUR')).toMatchObject({ maker: 0.0015, taker: 0.0025 })
  })

  it('reads a deposit address and the deposits, withdraws and lists the withdrawals', async () => {
    const address = await maker.fetchDepositAddress('BTC')
    expect(address).toMatchObject({ currency: 'BTC' })
    expect(address.address).toMatch(/^bc1q/)

    const deposits = await maker.fetchDeposits()
    expect(
      deposits.map((deposit) => [deposit.currency, deposit.amount, deposit.status, deposit.type]),
    ).toEqual(
      expect.arrayContaining([
        ['BTC', 2, 'ok', 'deposit'],
        ['EUR', 20_000, 'ok', 'deposit'],
      ]),
    )
    expect(await maker.fetchDeposits('BTC')).toHaveLength(1)

    const withdrawal = await maker.withdraw('BTC', 0.01, btcAddress)
    expect(withdrawal).toMatchObject({ currency: 'BTC', amount: 0.01, type: 'withdrawal' })
    const withdrawals = await maker.fetchWithdrawals('BTC')
    expect(withdrawals).toHaveLength(1)
    expect(withdrawals[0]).toMatchObject({
      currency: 'BTC',
      amount: 0.0099, // the fee comes out of the amount
      fee: { cost: 0.0001, currency: 'BTC' },
      address: btcAddress,
      status: 'pending',
      type: 'withdrawal',
    })
  })

  it('cancels all of a market and maps errors to ccxt exceptions', async () => {
    const canceled = await maker.cancelAllOrders('BTC/EUR')
    expect(canceled).toHaveLength(3)
    expect(await maker.fetchOpenOrders('BTC/EUR')).toEqual([])
    expect((await maker.fetchBalance()).BTC?.used).toBe(0)

    await expect(taker.createOrder('BTC/EUR', 'limit', 'buy', 10, 60_000)).rejects.toBeInstanceOf(
      ccxt.InsufficientFunds,
    )
    await expect(
      taker.cancelOrder('00000000-0000-7000-8000-000000000000', 'BTC/EUR'),
    ).rejects.toBeInstanceOf(ccxt.OrderNotFound)
  })
})

describe('ccxt pro (WebSocket) against a Polder server', () => {
  it('keeps a local book equal to the REST book through placements and trades', async () => {
    // ccxt's book starts only with the first change after the subscription (protocol §6.4).
    const from = subscriptionChanges()
    const first = anonymous.watchOrderBook('BTC/EUR')
    await serverSubscribed(from, (subscriptions) => subscriptions.has('book', 'BTC-EUR'))
    await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.5, 60_000)
    await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.3, 60_500)
    await maker.createOrder('BTC/EUR', 'limit', 'buy', 0.2, 59_000)
    await first
    const local = await localBookWhen((book) => book.bids.length === 1)
    expect(levels(local.asks)).toEqual([
      [60_000, 0.5],
      [60_500, 0.3],
    ])
    expect(levels(local.bids)).toEqual([[59_000, 0.2]])
    const rest = await anonymous.fetchOrderBook('BTC/EUR')
    expect(rest.nonce).toBe(local.nonce)
    expect(rest.asks).toEqual(levels(local.asks))

    // Trades take the first level and part of the second, and part of the bid.
    await taker.createOrder('BTC/EUR', 'market', 'buy', 0.6)
    await taker.createOrder('BTC/EUR', 'market', 'sell', 0.05)
    const after = await localBookWhen((book) => book.bids[0]?.[1] === 0.15)
    expect(levels(after.asks)).toEqual([[60_500, 0.2]])
    expect(levels(after.bids)).toEqual([[59_000, 0.15]])
    const restAfter = await anonymous.fetchOrderBook('BTC/EUR')
    expect(restAfter.nonce).toBe(after.nonce)
    expect(restAfter.asks).toEqual(levels(after.asks))
    expect(restAfter.bids).toEqual(levels(after.bids))
  })

  it('pushes the ticker, public trades and candles of a trade', async () => {
    const from = subscriptionChanges()
    const ticker = anonymous.watchTicker('BTC/EUR')
    const trades = anonymous.watchTrades('BTC/EUR')
    const candles = anonymous.watchOHLCV('BTC/EUR', '1m')
    await serverSubscribed(
      from,
      (subscriptions) =>
        subscriptions.has('ticker24h', 'BTC-EUR') &&
        subscriptions.has('trades', 'BTC-EUR') &&
        subscriptions.hasCandles('1m', 'BTC-EUR'),
    )
    await taker.createOrder('BTC/EUR', 'market', 'buy', 0.1)

    const [trade] = await trades
    expect(trade).toMatchObject({ symbol: 'BTC/EUR', side: 'buy', price: 60_500, amount: 0.1 })
    expect(trade?.id).toBeDefined()
    const candle = (await candles).at(-1)
    expect(candle?.[4]).toBe(60_500)
    const pushed = await watchUntil(
      () => anonymous.tickers['BTC/EUR'],
      () => anonymous.watchTicker('BTC/EUR'),
      (value) => value.last === 60_500,
    )
    expect(pushed).toMatchObject({ symbol: 'BTC/EUR', last: 60_500, ask: 60_500, askVolume: 0.1 })
    await ticker
  })

  it("pushes the account's order and fill events", async () => {
    const from = subscriptionChanges()
    const orders = maker.watchOrders('BTC/EUR')
    const myTrades = maker.watchMyTrades('BTC/EUR')
    await serverSubscribed(from, (subscriptions) => subscriptions.hasAccount('BTC-EUR'))
    await taker.createOrder('BTC/EUR', 'market', 'buy', 0.1)

    const [fill] = await myTrades
    expect(fill).toMatchObject({
      symbol: 'BTC/EUR',
      side: 'sell',
      price: 60_500,
      amount: 0.1,
      takerOrMaker: 'maker',
      fee: { cost: 9.08, currency: 'EUR' }, // 0.15 % of 6,050 is 9.075, to the cent
    })
    const [order] = await orders
    expect(order).toMatchObject({ symbol: 'BTC/EUR', side: 'sell', price: 60_500 })
    const filled = await watchUntil<Order[]>(
      () => maker.orders,
      () => maker.watchOrders('BTC/EUR'),
      (list) => list.some((o) => o.price === 60_500 && o.status === 'closed'),
    )
    expect(filled.find((o) => o.price === 60_500)).toMatchObject({ filled: 0.3, remaining: 0 })
  })

  it('trades over the WebSocket request actions, matched by requestId', async () => {
    const placed = await maker.createOrderWs('BTC/EUR', 'limit', 'sell', 0.1, 63_000)
    expect(placed).toMatchObject({ symbol: 'BTC/EUR', status: 'open', price: 63_000, amount: 0.1 })
    const edited = await maker.editOrderWs(idOf(placed), 'BTC/EUR', 'limit', 'sell', 0.2, 63_500)
    expect(edited).toMatchObject({ id: placed.id, price: 63_500, amount: 0.2, remaining: 0.2 })
    expect(await maker.fetchOrderWs(idOf(placed), 'BTC/EUR')).toMatchObject({ price: 63_500 })
    const open = await maker.fetchOpenOrdersWs('BTC/EUR')
    expect(open.map((order) => order.price)).toContain(63_500)
    const balance = await maker.fetchBalanceWs()
    expect(balance.BTC?.used).toBeCloseTo(
      open.filter((order) => order.side === 'sell').reduce((sum, o) => sum + (o.remaining ?? 0), 0),
      8,
    )
    const fees = await maker.fetchTradingFeesWs()
    expect(fees['BTC/EUR']).toMatchObject({ maker: 0.0015, taker: 0.0025 })
    const trades = await maker.fetchMyTradesWs('BTC/EUR')
    expect(trades.some((trade) => trade.takerOrMaker === 'maker')).toBe(true)
    const candles = await anonymous.fetchOHLCVWs('BTC/EUR', '1m')
    expect(candles.at(-1)?.[4]).toBe(60_500)
    await expect(maker.createOrderWs('BTC/EUR', 'limit', 'sell', 5, 63_000)).rejects.toBeInstanceOf(
      ccxt.InsufficientFunds,
    )

    const canceled = await maker.cancelOrderWs(idOf(placed), 'BTC/EUR')
    expect(canceled.id).toBe(placed.id)
    const rest = await maker.cancelAllOrdersWs('BTC/EUR')
    expect(rest.length).toBe(open.length - 1)
    expect(await maker.fetchOpenOrdersWs('BTC/EUR')).toEqual([])
  })
})
