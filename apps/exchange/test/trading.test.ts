// Trading end to end over real HTTP and WebSocket: signed REST requests and an authenticated
// socket against a server on a random port, checking the protocol's shapes and errors.
import { randomBytes, randomUUID } from 'node:crypto'
import { get } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { sign } from '../src/auth/signature.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import {
  authenticateRequest,
  createTrader as createTraderOn,
  limitOrderBody,
  type Trader,
} from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field below
type Json = any

let server: ExchangeServer
let baseUrl: string
type Key = Trader
let alice: Key
let bob: Key
const createTrader = (email: string, deposits: Record<string, string>) =>
  createTraderOn(server, email, deposits)

const signed = (who: Key, method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, who, method, path, { body, windowMs: 10_000 })

/** POST /v2/order of a limit order (BTC-EUR unless `extra` says otherwise). */
const placeLimit = (
  who: Key,
  side: 'buy' | 'sell',
  amount: string,
  price: string,
  extra: Record<string, unknown> = {},
) => signed(who, 'POST', '/v2/order', limitOrderBody(side, amount, price, extra))

/** Waits (at most 5 s) until a recorded message matches. */
async function until(messages: Json[], match: (message: Json) => boolean): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!messages.some(match) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
}

/** An open socket at /v2 and the list its messages are recorded into, parsed. */
async function openRecordingSocket(): Promise<{ ws: WebSocket; replies: Json[] }> {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => ws.once('open', resolve))
  const replies: Json[] = []
  ws.on('message', (data) => replies.push(JSON.parse(data.toString())))
  return { ws, replies }
}

function authenticateSocket(ws: WebSocket, who: Key): void {
  ws.send(JSON.stringify(authenticateRequest(who)))
}

/** Sends a subscribe action for these channels. */
function subscribe(ws: WebSocket, ...channels: Record<string, unknown>[]): void {
  ws.send(JSON.stringify({ action: 'subscribe', channels }))
}

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
  )
  baseUrl = await server.listen()
  alice = await createTrader(`alice-${randomBytes(4).toString('hex')}@example.com`, {
    EUR: '10000',
  })
  bob = await createTrader(`bob-${randomBytes(4).toString('hex')}@example.com`, { BTC: '1' })
})
afterAll(() => server.close())

describe('public market data over REST', () => {
  it('GET /v2/markets lists every market with the fields ccxt needs', async () => {
    const markets: Json = await (await fetch(`${baseUrl}/v2/markets`)).json()
    expect(markets).toHaveLength(2)
    expect(markets[0]).toMatchObject({
      market: 'BTC-EUR',
      status: 'trading',
      tickSize: '1',
      quantityDecimals: 8,
      notionalDecimals: 2,
    })
    const one: Json = await (await fetch(`${baseUrl}/v2/markets?market=ETH-EUR`)).json()
    expect(one.market).toBe('ETH-EUR')
  })

  it('GET /v2/assets gives every asset a non-empty networks list', async () => {
    const assets: Json = await (await fetch(`${baseUrl}/v2/assets`)).json()
    expect(assets.every((asset: { networks: string[] }) => asset.networks.length > 0)).toBe(true)
  })

  it('an unknown market answers 205 naming the market', async () => {
    const response = await fetch(`${baseUrl}/v2/DOGE-EUR/book`)
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ errorCode: 205, error: 'market parameter is invalid.' })
  })

  it('every REST response carries the rate-limit headers', async () => {
    const response = await fetch(`${baseUrl}/v2/time`)
    expect(response.headers.get('bitvavo-ratelimit-limit')).toBe('1000')
    expect(Number(response.headers.get('bitvavo-ratelimit-remaining'))).toBeLessThan(1000)
  })
})

describe('private REST', () => {
  it('a private endpoint without a key answers 300', async () => {
    const response = await fetch(`${baseUrl}/v2/balance`)
    expect(response.status).toBe(403)
    expect(((await response.json()) as Json).errorCode).toBe(300)
  })

  it('a wrong signature answers 309', async () => {
    const response = await fetch(`${baseUrl}/v2/balance`, {
      headers: {
        'bitvavo-access-key': alice.key,
        'bitvavo-access-timestamp': String(Date.now()),
        'bitvavo-access-signature': 'ab'.repeat(32),
      },
    })
    expect(((await response.json()) as Json).errorCode).toBe(309)
  })

  it('GET /v2/balance shows the deposit; GET /v2/account shows tier-0 fees as fractions', async () => {
    expect((await signed(alice, 'GET', '/v2/balance')).json).toEqual([
      { symbol: 'EUR', available: '10000.00', inOrder: '0.00' },
    ])
    expect((await signed(alice, 'GET', '/v2/account')).json).toEqual({
      fees: { tier: '0', volume: '0.00', maker: '0.0015', taker: '0.0025' },
    })
  })

  it('places, matches and settles: order objects, fills, balances', async () => {
    const sell = await signed(bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      amount: '0.1',
      price: '50000',
      operatorId: 1,
    })
    expect(sell.status).toBe(200)
    expect(sell.json).toMatchObject({
      market: 'BTC-EUR',
      status: 'new',
      side: 'sell',
      amount: '0.10000000',
      price: '50000',
      onHold: '0.10000000',
      onHoldCurrency: 'BTC',
      fills: [],
    })
    const buy = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.04',
      price: '51000',
      operatorId: 1,
    })
    expect(buy.json).toMatchObject({ status: 'filled', filledAmount: '0.04000000' })
    expect(buy.json.fills).toHaveLength(1)
    expect(buy.json.fills[0]).toMatchObject({
      price: '50000',
      amount: '0.04000000',
      taker: true,
      feeCurrency: 'EUR',
      settled: true,
    })
    // 2,000 EUR at 50,000 plus 5 EUR taker fee
    expect((await signed(alice, 'GET', '/v2/balance')).json).toEqual([
      { symbol: 'EUR', available: '7995.00', inOrder: '0.00' },
      { symbol: 'BTC', available: '0.04000000', inOrder: '0.00000000' },
    ])
    const open = await signed(bob, 'GET', '/v2/ordersOpen?market=BTC-EUR')
    expect(open.json).toHaveLength(1)
    expect(open.json[0]).toMatchObject({
      orderId: sell.json.orderId,
      status: 'partiallyFilled',
      amountRemaining: '0.06000000',
    })
    const trades = await signed(bob, 'GET', '/v2/trades?market=BTC-EUR')
    expect(trades.json[0]).toMatchObject({
      orderId: sell.json.orderId,
      market: 'BTC-EUR',
      side: 'sell',
      taker: false,
      fee: '3.00000000',
    })
    const publicTrades: Json = await (await fetch(`${baseUrl}/v2/BTC-EUR/trades`)).json()
    expect(publicTrades[0]).toMatchObject({ price: '50000', amount: '0.04000000', side: 'buy' })
    server.service.core.ledger.checkInvariant()
  })

  it('refuses an unfunded order with 216, a price off the tick with 422 and one past 15 decimals with 215', async () => {
    const big = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '10',
      price: '50000',
    })
    expect(big.json).toEqual({
      errorCode: 216,
      error: 'You do not have sufficient balance to complete this operation.',
    })
    const offTick = await signed(alice, 'POST', '/v2/order', {
      market: 'ETH-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '1',
      price: '100.001',
    })
    expect(offTick.json.errorCode).toBe(422)
    // On a whole-euro tick too, and past 15 decimals the protocol's own code (215); an amount
    // or a trigger with too many decimals stays 429.
    const refusal = async (body: Record<string, unknown>) =>
      (
        await signed(alice, 'POST', '/v2/order', {
          market: 'BTC-EUR',
          side: 'buy',
          orderType: 'limit',
          amount: '0.001',
          price: '50000',
          ...body,
        })
      ).json.errorCode
    expect(await refusal({ price: '50000.5' })).toBe(422)
    expect(await refusal({ price: '50000.0000000000000001' })).toBe(215)
    expect(await refusal({ amount: '0.000000001' })).toBe(429)
    const resting = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.001',
      price: '40000',
    })
    const update = (price: string) =>
      signed(alice, 'PUT', '/v2/order', { market: 'BTC-EUR', orderId: resting.json.orderId, price })
    expect((await update('40000.5')).json.errorCode).toBe(422)
    expect((await update('40000.0000000000000001')).json.errorCode).toBe(215)
    const cancel = `/v2/order?market=BTC-EUR&orderId=${resting.json.orderId}`
    expect((await signed(alice, 'DELETE', cancel)).status).toBe(200)
    expect(
      await refusal({
        orderType: 'stopLossLimit',
        triggerType: 'price',
        triggerReference: 'lastTrade',
        triggerAmount: '40000.5',
      }),
    ).toBe(429)
    // An order the market refuses is refused for that, not for the balance it would need.
    const tooHigh = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.001',
      price: '99999999999',
    })
    expect(tooHigh.json.errorCode).toBe(211)
  })

  it('refuses a body whose parameters come in a __proto__ key as an unknown parameter (201)', async () => {
    const order = { market: 'BTC-EUR', side: 'buy', orderType: 'limit', amount: '0.001' }
    const smuggled = await signed(alice, 'POST', '/v2/order', {
      price: '50000',
      ['__proto__']: order,
    })
    expect(smuggled.json).toEqual({
      errorCode: 201,
      error: '__proto__ body parameter is not supported',
    })
  })

  it('cancels an open order; a second cancel answers 233, an unknown id 240', async () => {
    const placed = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.01',
      price: '40000',
    })
    const id = placed.json.orderId
    const cancel = await signed(
      alice,
      'DELETE',
      `/v2/order?market=BTC-EUR&orderId=${id}&operatorId=1`,
    )
    expect(cancel.json).toEqual({ orderId: id, operatorId: 1 })
    expect(
      (await signed(alice, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${id}`)).json.errorCode,
    ).toBe(233)
    const unknown = await signed(
      alice,
      'DELETE',
      '/v2/order?market=BTC-EUR&orderId=00000000-0000-4000-8000-000000000000',
    )
    expect(unknown.status).toBe(404)
    expect(unknown.json.errorCode).toBe(240)
  })

  it("another account's order is invisible: 240", async () => {
    const placed = await signed(bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      amount: '0.01',
      price: '90000',
    })
    const peek = await signed(
      alice,
      'GET',
      `/v2/order?market=BTC-EUR&orderId=${placed.json.orderId}`,
    )
    expect(peek.json.errorCode).toBe(240)
  })
})

describe('WebSocket trading and events', () => {
  function open(): Promise<{
    ws: WebSocket
    messages: Json[]
    next: (match: (message: Json) => boolean) => Promise<Json>
  }> {
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2/`)
    const messages: Json[] = []
    const waiters: { match: (message: Json) => boolean; resolve: (message: Json) => void }[] = []
    ws.on('message', (data) => {
      const message = JSON.parse(data.toString())
      messages.push(message)
      for (const waiter of [...waiters]) {
        if (waiter.match(message)) {
          waiters.splice(waiters.indexOf(waiter), 1)
          waiter.resolve(message)
        }
      }
    })
    const next = (match: (message: Json) => boolean) =>
      new Promise<Json>((resolve, reject) => {
        const found = messages.find(match)
        if (found) {
          messages.splice(messages.indexOf(found), 1)
          resolve(found)
          return
        }
        waiters.push({ match, resolve })
        setTimeout(() => reject(new Error('no matching message within 5 s')), 5_000).unref()
      })
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve({ ws, messages, next }))
      ws.once('error', reject)
    })
  }

  it('authenticates, subscribes to the account and book, and sees order, fill and book events', async () => {
    const { ws, next } = await open()
    const timestamp = Date.now()
    ws.send(
      JSON.stringify({
        action: 'authenticate',
        key: alice.key,
        signature: sign(alice.secret, timestamp, 'GET', '/v2/websocket'),
        timestamp,
        window: 10000,
      }),
    )
    expect(await next((m) => m.event === 'authenticate')).toEqual({
      event: 'authenticate',
      authenticated: true,
    })
    subscribe(ws, { name: 'account', markets: ['BTC-EUR'] }, { name: 'book', markets: ['BTC-EUR'] })
    expect(await next((m) => m.event === 'subscribed')).toEqual({
      event: 'subscribed',
      subscriptions: { book: ['BTC-EUR'], account: ['BTC-EUR'] },
    })
    ws.send(JSON.stringify({ action: 'getBook', market: 'BTC-EUR', requestId: 5 }))
    const snapshot = (await next((m) => m.action === 'getBook')).response
    ws.send(
      JSON.stringify({
        action: 'privateCreateOrder',
        requestId: 6,
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        amount: '0.02',
        price: '50000',
        operatorId: 1,
      }),
    )
    const created = await next((m) => m.action === 'privateCreateOrder')
    expect(created).toMatchObject({ requestId: 6, response: { status: 'filled' } })
    expect(await next((m) => m.event === 'order')).toMatchObject({
      orderId: created.response.orderId,
      market: 'BTC-EUR',
    })
    expect(await next((m) => m.event === 'fill')).toMatchObject({
      orderId: created.response.orderId,
      amount: '0.02000000',
      taker: true,
    })
    // Changes made before the snapshot may still sit in the conflation window, and an event
    // whose commit was in flight when the snapshot was read may arrive after it: a local book
    // skips events at or below the snapshot's nonce (levels are absolute), and from there the
    // nonces continue the snapshot's by one per event until the fill's change arrives.
    let expectedNonce = snapshot.nonce + 1
    for (let events = 0; ; events += 1) {
      const book = await next((m) => m.event === 'book')
      if (book.nonce <= snapshot.nonce) continue
      expect(book.nonce).toBe(expectedNonce++)
      if (book.asks.some(([price, size]: string[]) => price === '50000' && size === '0.04000000'))
        break
      expect(events).toBeLessThan(10)
    }
    ws.close()
  })

  it('a private action on an unauthenticated socket answers 300, and the socket stays usable', async () => {
    const { ws, next } = await open()
    ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 1 }))
    expect(await next((m) => m.requestId === 1)).toMatchObject({
      action: 'privateGetBalance',
      errorCode: 300,
    })
    ws.send(JSON.stringify({ action: 'getTime', requestId: 2 }))
    expect(await next((m) => m.requestId === 2)).toHaveProperty('response.time')
    ws.close()
  })

  it('an unauthenticated private call answers 300 before its parameters are read, over the socket as over REST', async () => {
    const { ws, next } = await open()
    // No market, no side, an amount that is not a number: the missing authentication comes first.
    const order = { orderType: 'limit', amount: 'lots', operatorId: 1 }
    ws.send(JSON.stringify({ action: 'privateCreateOrder', requestId: 3, ...order }))
    expect(await next((m) => m.requestId === 3)).toEqual({
      action: 'privateCreateOrder',
      requestId: 3,
      errorCode: 300,
      error: 'Authentication is required for this endpoint.',
    })
    ws.close()
    const rest = await fetch(`${baseUrl}/v2/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(order),
    })
    expect(rest.status).toBe(403)
    expect(await rest.json()).toEqual({
      errorCode: 300,
      error: 'Authentication is required for this endpoint.',
    })
  })
})

describe('WebSocket error replies', () => {
  it('echo the action, the requestId and the market, as the live API does', async () => {
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    await new Promise((resolve) => ws.once('open', resolve))
    const reply = new Promise<string>((resolve) =>
      ws.once('message', (data) => resolve(data.toString())),
    )
    ws.send(JSON.stringify({ action: 'getBook', market: 'DOGE-EUR', requestId: 77 }))
    expect(JSON.parse(await reply)).toEqual({
      action: 'getBook',
      requestId: 77,
      market: 'DOGE-EUR',
      errorCode: 205,
      error: 'market parameter is invalid.',
    })
    ws.close()
  })
})

describe('candles and 24-hour tickers', () => {
  it('GET /v2/{market}/candles and /v2/ticker/24h reflect the trades so far', async () => {
    const candles: Json = await (await fetch(`${baseUrl}/v2/BTC-EUR/candles?interval=1h`)).json()
    expect(candles.length).toBeGreaterThanOrEqual(1)
    const [timestamp, open, high, low, close, volume] = candles[0]
    expect(Number.isInteger(timestamp)).toBe(true)
    expect([open, high, low, close].every((price: string) => /^\d+$/.test(price))).toBe(true)
    expect(Number(volume)).toBeGreaterThan(0)
    const ticker: Json = await (await fetch(`${baseUrl}/v2/ticker/24h?market=BTC-EUR`)).json()
    expect(ticker).toMatchObject({ market: 'BTC-EUR', last: '50000', high: '50000', low: '50000' })
    expect(Number(ticker.volume)).toBeGreaterThan(0)
    expect(Number(ticker.volumeQuote)).toBeCloseTo(Number(ticker.volume) * 50000, 2)
    const all: Json = await (await fetch(`${baseUrl}/v2/ticker/24h`)).json()
    expect(all.map((entry: Json) => entry.market)).toEqual(['BTC-EUR', 'ETH-EUR'])
  })

  it('pushes a ticker24h event (data is an array) right after the subscription, and candle events after trades', async () => {
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const messages: Json[] = []
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())))
    await new Promise((resolve) => ws.once('open', resolve))
    subscribe(
      ws,
      { name: 'ticker24h', markets: ['BTC-EUR'] },
      { name: 'candles', interval: ['1m'], markets: ['BTC-EUR'] },
    )
    await until(messages, (m) => m.event === 'ticker24h')
    const tickerEvent = messages.find((m) => m.event === 'ticker24h')
    expect(Array.isArray(tickerEvent.data)).toBe(true)
    expect(tickerEvent.data[0]).toMatchObject({ market: 'BTC-EUR', last: '50000' })
    await signed(bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      amount: '0.001',
      price: '49000',
    })
    await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'market',
      amount: '0.001',
    })
    await until(messages, (m) => m.event === 'candle')
    const candle = messages.find((m) => m.event === 'candle')
    expect(candle).toMatchObject({ event: 'candle', market: 'BTC-EUR', interval: '1m' })
    expect(candle.candle[0][4]).toBe('49000')
    ws.close()
  })

  it('pushes the 24-hour ticker in the same write as the book events of that flush', async () => {
    // Raw TCP reads of a subscriber to both channels of one market: each write of the server
    // arrives on loopback as one read, so a read that holds both events was one write.
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const messages: Json[] = []
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())))
    await new Promise((resolve) => ws.once('open', resolve))
    const reads: string[] = []
    ;(ws as unknown as { _socket: NodeJS.ReadableStream })._socket.on('data', (chunk: Buffer) =>
      reads.push(chunk.toString('latin1')),
    )
    subscribe(
      ws,
      { name: 'book', markets: ['BTC-EUR'] },
      { name: 'ticker24h', markets: ['BTC-EUR'] },
    )
    // The ticker pushed on subscribing goes alone; the one after a trade is what is looked at.
    await until(messages, (m) => m.event === 'ticker24h')
    reads.length = 0
    messages.length = 0
    const seller = await createTrader(`tick-s-${randomUUID()}@example.com`, { BTC: '1' })
    const buyer = await createTrader(`tick-b-${randomUUID()}@example.com`, { EUR: '10000' })
    await placeLimit(seller, 'sell', '0.001', '51000')
    await placeLimit(buyer, 'buy', '0.001', '51000')
    // A new price level every 20 ms until three tickers have come (at most one a second), so
    // that each flush has book events.
    const stop = Date.now() + 6_000
    const tickers = () => messages.filter((m) => m.event === 'ticker24h').length
    for (let price = 30_000; tickers() < 3 && Date.now() < stop; price += 1) {
      await placeLimit(buyer, 'buy', '0.001', String(price))
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const tickerReads = reads.filter((read) => read.includes('"event":"ticker24h"'))
    expect(tickerReads.length).toBeGreaterThanOrEqual(2)
    // Most of them (a flush that a slow moment left without a book change sends its ticker alone).
    const withBook = tickerReads.filter((read) => read.includes('"event":"book"'))
    expect(withBook.length).toBeGreaterThanOrEqual(Math.ceil(tickerReads.length / 2))
    ws.close()
  })
})

describe("the spec's web API", () => {
  it('GET /exchange/proxy/v3/markets/data lists markets with price, change, volume, mini chart and a themed icon', async () => {
    const items: Json = await (
      await fetch(
        `${baseUrl}/exchange/proxy/v3/markets/data?markets=BTC-EUR&theme=dark&miniChart=true`,
      )
    ).json()
    expect(items).toHaveLength(1)
    const [item] = items
    expect(item).toMatchObject({
      market: 'BTC-EUR',
      base: { symbol: 'BTC', name: 'Bitcoin', slug: 'bitcoin' },
      quote: { symbol: 'EUR', slug: 'euro' },
    })
    expect(item.lastPrice).toMatch(/^\d+$/)
    expect(item.change24h).toMatch(/^-?\d+\.\d\d$/)
    expect(item.miniChart.length).toBeGreaterThan(0)
    expect(item.theme.icon).toMatch(/\/exchange\/icons\/BTC-dark\.svg$/)
    expect(item.theme.icon).toBe(`${baseUrl}/exchange/icons/BTC-dark.svg`)
    const icon = await fetch(item.theme.icon)
    expect(icon.headers.get('content-type')).toBe('image/svg+xml')
    expect(await icon.text()).toContain('<svg')
    // A Host header of the client's choosing does not become the icons' address.
    const forged = await new Promise<Json>((resolve, reject) => {
      get(
        `${baseUrl}/exchange/proxy/v3/markets/data?markets=BTC-EUR`,
        { headers: { host: 'attacker.example' } },
        (response) => {
          let body = ''
          response.on('data', (chunk) => {
            body += chunk
          })
          response.on('end', () => resolve(JSON.parse(body)))
        },
      ).on('error', reject)
    })
    expect(forged[0].theme.icon).toBe(`${baseUrl}/exchange/icons/BTC-light.svg`)
    const byAsset: Json = await (
      await fetch(`${baseUrl}/exchange/proxy/v3/markets/data?assets=ETH`)
    ).json()
    expect(byAsset.map((entry: Json) => entry.market)).toEqual(['ETH-EUR'])
    expect(byAsset[0].miniChart).toBeUndefined()
  })

  it('refuses a bad theme with the field named', async () => {
    const response = await fetch(`${baseUrl}/exchange/proxy/v3/markets/data?theme=purple`)
    expect(response.status).toBe(400)
    expect(((await response.json()) as Json).error).toContain('theme')
    // A list with a malformed entry was sent: invalid (205), not missing (203).
    const lowerCase = await fetch(`${baseUrl}/exchange/proxy/v3/markets/data?markets=btc`)
    expect(lowerCase.status).toBe(400)
    expect(await lowerCase.json()).toEqual({
      errorCode: 205,
      error: 'markets parameter is invalid.',
    })
  })

  it('GET /exchange/xp/v1/markets/price/candles gives chart candles from start, newest first', async () => {
    const candles: Json = await (
      await fetch(
        `${baseUrl}/exchange/xp/v1/markets/price/candles?market=BTC-EUR&interval=1m&start=0`,
      )
    ).json()
    expect(candles.length).toBeGreaterThan(0)
    expect(candles[0]).toHaveLength(6)
    const bad = await fetch(
      `${baseUrl}/exchange/xp/v1/markets/price/candles?market=BTC-EUR&interval=5m&start=0`,
    )
    expect(bad.status).toBe(400)
  })
})

describe('more order paths over the wire', () => {
  it('PUT /v2/order changes the price of a resting order; the hold follows', async () => {
    const placed = await placeLimit(alice, 'buy', '0.01', '30000')
    const updated = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      price: '31000',
      operatorId: 1,
    })
    expect(updated.status).toBe(200)
    expect(updated.json).toMatchObject({
      orderId: placed.json.orderId,
      price: '31000',
      onHold: '310.78',
      onHoldCurrency: 'EUR',
    })
    const nothing = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
    })
    expect(nothing.json.errorCode).toBe(232)
    // An update the market refuses is refused for that, not for the balance it would need; one
    // the market allows but the balance does not is 216, and the order stays as it was.
    const tooHigh = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      price: '99999999999',
    })
    expect(tooHigh.json.errorCode).toBe(211)
    const unfunded = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      amount: '5',
    })
    expect(unfunded.json.errorCode).toBe(216)
    const unchanged = await signed(
      alice,
      'GET',
      `/v2/order?market=BTC-EUR&orderId=${placed.json.orderId}`,
    )
    expect(unchanged.json).toMatchObject({ price: '31000', amount: '0.01000000', onHold: '310.78' })
    // The id in upper case names the same order, as it does for GET and DELETE.
    const upper = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId.toUpperCase(),
      price: '31001',
    })
    expect(upper.json).toMatchObject({ orderId: placed.json.orderId, price: '31001' })
    await signed(alice, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${placed.json.orderId}`)
  })

  it('PUT /v2/order echoes the operatorId of the update and honours responseRequired: false', async () => {
    const placed = await placeLimit(alice, 'buy', '0.01', '30000', { operatorId: 1 })
    expect(placed.json.operatorId).toBe(1)
    const updated = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      price: '30001',
      operatorId: 7,
    })
    expect(updated.json).toMatchObject({ price: '30001', operatorId: 7 })
    const short = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      price: '30002',
      operatorId: 7,
      responseRequired: false,
    })
    expect(short.status).toBe(200)
    expect(short.json).toEqual({
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      created: placed.json.created,
      updated: expect.any(Number),
      operatorId: 7,
    })
    await signed(alice, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${placed.json.orderId}`)
  })

  it('filters must name something listed: /account/fees market and quote, /balance symbol, /ordersOpen market and base (205); a listed asset with nothing held is a zero row', async () => {
    const error = (param: string) => ({ errorCode: 205, error: `${param} parameter is invalid.` })
    expect((await signed(alice, 'GET', '/v2/account/fees?market=NOPE-EUR')).json).toEqual(
      error('market'),
    )
    expect((await signed(alice, 'GET', '/v2/account/fees?quote=XYZ')).json).toEqual(error('quote'))
    // The protocol's quotes are answered even with no market listed in them.
    expect((await signed(alice, 'GET', '/v2/account/fees?quote=USDC')).status).toBe(200)
    expect((await signed(alice, 'GET', '/v2/account/fees?market=BTC-EUR')).json).toMatchObject({
      tier: '0',
      taker: expect.any(String),
    })
    expect((await signed(alice, 'GET', '/v2/balance?symbol=NOPE')).json).toEqual(error('symbol'))
    const noEth = await createTrader(`frank-${randomBytes(4).toString('hex')}@example.com`, {
      EUR: '10',
    })
    expect((await signed(noEth, 'GET', '/v2/balance?symbol=ETH')).json).toEqual([
      { symbol: 'ETH', available: '0.00000000', inOrder: '0.00000000' },
    ])
    expect((await signed(noEth, 'GET', '/v2/balance')).json.map((row: Json) => row.symbol)).toEqual(
      ['EUR'],
    )
    expect((await signed(alice, 'GET', '/v2/ordersOpen?market=NOPE-EUR')).json).toEqual(
      error('market'),
    )
    expect((await signed(alice, 'GET', '/v2/ordersOpen?base=NOPE')).json).toEqual(error('base'))
    expect((await signed(alice, 'GET', '/v2/ordersOpen?base=ETH')).status).toBe(200)
  })

  it('a clientOrderId in use by an open order is 220; another account may use the same one', async () => {
    const clientOrderId = '2a4b6c8d-1e2f-4a5b-8c7d-9e0f1a2b3c4d'
    const first = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.001',
      price: '20000',
      clientOrderId,
    })
    expect(first.json.clientOrderId).toBe(clientOrderId)
    const retry = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.001',
      price: '20000',
      clientOrderId,
    })
    expect(retry.json.errorCode).toBe(220)
    const other = await signed(bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      amount: '0.001',
      price: '95000',
      clientOrderId,
    })
    expect(other.status).toBe(200)
    const cancel = await signed(
      alice,
      'DELETE',
      `/v2/order?market=BTC-EUR&clientOrderId=${clientOrderId}`,
    )
    expect(cancel.json).toEqual({ orderId: first.json.orderId, clientOrderId })
    expect(
      (await signed(bob, 'GET', '/v2/ordersOpen?market=BTC-EUR')).json.some(
        (order: Json) => order.clientOrderId === clientOrderId,
      ),
    ).toBe(true)
  })

  it('GET /v2/orders lists open and closed orders newest first, with limit and time range; a closed order is found by clientOrderId', async () => {
    const carol = await createTrader(`carol-${randomBytes(4).toString('hex')}@example.com`, {
      EUR: '100000',
    })
    const place = (price: string, clientOrderId: string) =>
      signed(carol, 'POST', '/v2/order', {
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        amount: '0.001',
        price,
        clientOrderId,
      })
    const ids: string[] = []
    // Far below any ask the other tests leave resting, so that every one of these rests.
    const prices = ['10000', '10001', '10002', '10003']
    const clientIds = prices.map(() => randomUUID())
    for (const [index, price] of prices.entries()) {
      const placed = await place(price, clientIds[index]!)
      expect(placed.json.errorCode).toBeUndefined()
      ids.push(placed.json.orderId)
      await new Promise((resolve) => setTimeout(resolve, 5)) // distinct creation times
    }
    // The first two are closed (cancelled), the last two stay open.
    for (const orderId of ids.slice(0, 2))
      expect(
        (await signed(carol, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${orderId}`)).status,
      ).toBe(200)
    const all = await signed(carol, 'GET', '/v2/orders?market=BTC-EUR')
    expect(all.json.map((order: Json) => order.orderId)).toEqual([...ids].reverse())
    expect(all.json.map((order: Json) => order.status)).toEqual([
      'new',
      'new',
      'canceled',
      'canceled',
    ])
    expect(all.json[3]).toMatchObject({ price: '10000', clientOrderId: clientIds[0] })
    const limited = await signed(carol, 'GET', '/v2/orders?market=BTC-EUR&limit=3')
    expect(limited.json.map((order: Json) => order.orderId)).toEqual([...ids].reverse().slice(0, 3))
    // A time range that holds only the second and third orders.
    const created = all.json.map((order: Json) => Number(order.created)).reverse()
    const ranged = await signed(
      carol,
      'GET',
      `/v2/orders?market=BTC-EUR&start=${created[1]}&end=${created[2]}`,
    )
    expect(ranged.json.map((order: Json) => order.orderId)).toEqual([ids[2], ids[1]])
    // A closed order, fetched by its clientOrderId, comes back whole.
    const closed = await signed(
      carol,
      'GET',
      `/v2/order?market=BTC-EUR&clientOrderId=${clientIds[1]}`,
    )
    expect(closed.json).toMatchObject({
      orderId: ids[1],
      clientOrderId: clientIds[1],
      status: 'canceled',
      price: '10001',
    })
    expect(
      (await signed(carol, 'GET', `/v2/order?market=BTC-EUR&clientOrderId=${randomUUID()}`)).json
        .errorCode,
    ).toBe(240)
  })

  it("cancelling another account's order over the WebSocket is 240 and changes nothing", async () => {
    const victimOrder = await signed(bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      amount: '0.001',
      price: '99000',
    })
    const { ws, replies } = await openRecordingSocket()
    authenticateSocket(ws, alice)
    ws.send(
      JSON.stringify({
        action: 'privateCancelOrder',
        requestId: 3,
        market: 'BTC-EUR',
        orderId: victimOrder.json.orderId,
      }),
    )
    await until(replies, (reply) => reply.requestId === 3)
    expect(replies.find((reply) => reply.requestId === 3)).toMatchObject({
      action: 'privateCancelOrder',
      errorCode: 240,
    })
    expect(
      (await signed(bob, 'GET', `/v2/order?market=BTC-EUR&orderId=${victimOrder.json.orderId}`))
        .json.status,
    ).toBe('new')
    ws.close()
  })

  it('id cursors select trades (tradeIdFrom, tradeIdTo, tradeId) and orders (orderIdFrom, orderIdTo, orderId), both ends inclusive; a cursor that cannot be ours is 205', async () => {
    const dave = await createTrader(`dave-${randomBytes(4).toString('hex')}@example.com`, {
      EUR: '1000',
    })
    const erin = await createTrader(`erin-${randomBytes(4).toString('hex')}@example.com`, {
      ETH: '1',
    })
    const sells: string[] = []
    for (const price of ['3000', '3001', '3002', '3003']) {
      const sell = await placeLimit(erin, 'sell', '0.01', price, { market: 'ETH-EUR' })
      expect(sell.json.errorCode).toBeUndefined()
      sells.push(sell.json.orderId)
    }
    const buy = await placeLimit(dave, 'buy', '0.04', '3003', { market: 'ETH-EUR' })
    expect(buy.json.status).toBe('filled')
    // One trade per resting sell, cheapest first: ids rise with time.
    const ids: string[] = buy.json.fills.map((fill: Json) => fill.id)
    expect(ids.map(Number)).toEqual([...ids.map(Number)].sort((a, b) => a - b))
    const publicIds = async (query: string) =>
      ((await (await fetch(`${baseUrl}/v2/ETH-EUR/trades${query}`)).json()) as Json[]).map(
        (trade) => trade.id,
      )
    expect((await publicIds('')).slice(0, 4)).toEqual([...ids].reverse())
    expect(await publicIds(`?tradeIdFrom=${ids[1]}&tradeIdTo=${ids[2]}`)).toEqual([ids[2], ids[1]])
    const ownIds = async (who: Key, query: string) =>
      (await signed(who, 'GET', `/v2/trades?market=ETH-EUR${query}`)).json.map(
        (trade: Json) => trade.id,
      )
    expect(await ownIds(erin, `&tradeIdFrom=${ids[2]}`)).toEqual([ids[3], ids[2]])
    expect(await ownIds(dave, `&tradeIdTo=${ids[1]}`)).toEqual([ids[1], ids[0]])
    // tradeId is the deprecated alias of tradeIdTo.
    expect(await ownIds(erin, `&tradeId=${ids[0]}`)).toEqual([ids[0]])
    for (const path of [
      '/v2/trades?market=ETH-EUR&tradeIdFrom=not-a-trade',
      '/v2/ETH-EUR/trades?tradeIdFrom=not-a-trade',
    ]) {
      const refused = path.startsWith('/v2/trades')
        ? await signed(erin, 'GET', path)
        : await fetch(`${baseUrl}${path}`).then(async (reply) => ({
            status: reply.status,
            json: await reply.json(),
          }))
      expect(refused.status).toBe(400)
      expect(refused.json).toEqual({ errorCode: 205, error: 'tradeIdFrom parameter is invalid.' })
    }
    // Orders: newest first, from orderIdFrom on, up to orderIdTo (alias orderId).
    const orderIds = async (query: string) => {
      const reply = await signed(erin, 'GET', `/v2/orders?market=ETH-EUR${query}`)
      return reply.status === 200 ? reply.json.map((order: Json) => order.orderId) : reply.json
    }
    expect(await orderIds('')).toEqual([...sells].reverse())
    expect(await orderIds(`&orderIdFrom=${sells[1]}&orderIdTo=${sells[2]}`)).toEqual([
      sells[2],
      sells[1],
    ])
    expect(await orderIds(`&orderIdFrom=${sells[2]}`)).toEqual([sells[3], sells[2]])
    expect(await orderIds(`&orderId=${sells[1]}`)).toEqual([sells[1], sells[0]])
    expect(await orderIds(`&orderIdFrom=${sells[2]}&orderIdTo=${sells[1]}`)).toEqual([])
    // Either case, as the protocol allows.
    expect(await orderIds(`&orderIdFrom=${sells[2]!.toUpperCase()}`)).toEqual([sells[3], sells[2]])
    // With a time window too, both apply: up to the third order, created by the first's time.
    const all: Json[] = (await signed(erin, 'GET', '/v2/orders?market=ETH-EUR')).json
    const firstCreated = all.find((order) => order.orderId === sells[0]).created
    expect(await orderIds(`&orderIdTo=${sells[2]}&end=${firstCreated}`)).toEqual(
      all
        .filter((order) => sells.slice(0, 3).includes(order.orderId))
        .filter((order) => order.created <= firstCreated)
        .map((order) => order.orderId),
    )
    expect(await orderIds(`&orderIdFrom=${randomUUID()}`)).toEqual({
      errorCode: 205,
      error: 'orderIdFrom parameter is invalid.',
    })
    // Another account's order is not a cursor of this one (nor revealed as existing).
    expect(await orderIds(`&orderIdTo=${buy.json.orderId}`)).toEqual({
      errorCode: 205,
      error: 'orderIdTo parameter is invalid.',
    })
  })

  it('more subscriptions than a connection may hold are refused with 205, and the connection stays usable', async () => {
    const { ws, replies } = await openRecordingSocket()
    const markets = ['BTC-EUR', 'ETH-EUR']
    // 16 channels × 2 markets × 13 intervals would be 416 per request; send six requests of candles.
    for (let round = 0; round < 6; round += 1) {
      ws.send(
        JSON.stringify({
          action: 'subscribe',
          requestId: round,
          channels: [
            {
              name: 'candles',
              interval: [
                '1m',
                '5m',
                '15m',
                '30m',
                '1h',
                '2h',
                '4h',
                '6h',
                '8h',
                '12h',
                '1d',
                '1W',
                '1M',
              ],
              markets,
            },
          ],
        }),
      )
    }
    ws.send(JSON.stringify({ action: 'getTime', requestId: 99 }))
    await until(replies, (reply) => reply.requestId === 99)
    // Re-subscribing to the same set is a no-op, so this stays within the limit: all confirmed.
    expect(replies.filter((reply) => reply.event === 'subscribed')).toHaveLength(6)
    expect(replies.find((reply) => reply.requestId === 99)).toHaveProperty('response.time')
    ws.close()
  })
})

describe('pipelined WebSocket requests', () => {
  it('authenticate, create and cancel sent back to back are applied in the order sent', async () => {
    const { ws, replies } = await openRecordingSocket()
    const clientOrderId = '7c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5'
    authenticateSocket(ws, alice)
    ws.send(
      JSON.stringify({
        action: 'privateCreateOrder',
        requestId: 1,
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        amount: '0.001',
        price: '21000',
        clientOrderId,
      }),
    )
    ws.send(
      JSON.stringify({
        action: 'privateCancelOrder',
        requestId: 2,
        market: 'BTC-EUR',
        clientOrderId,
      }),
    )
    await until(replies, (reply) => reply.requestId === 2)
    expect(replies.find((reply) => reply.requestId === 1)).toMatchObject({
      response: { status: 'new', clientOrderId },
    })
    expect(replies.find((reply) => reply.requestId === 2)).toMatchObject({
      response: { clientOrderId },
    })
    ws.close()
  })

  it('a cancel and a create that arrive in one read are applied in that order: the cancel frees the funds the create needs', async () => {
    const carol = await createTrader(`carol-${randomBytes(4).toString('hex')}@example.com`, {
      EUR: '30',
    })
    const { ws, replies } = await openRecordingSocket()
    authenticateSocket(ws, carol)
    await until(replies, (reply) => reply.event === 'authenticate')
    const order = (requestId: number) => ({
      action: 'privateCreateOrder',
      requestId,
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.001',
      price: '20500',
    })
    ws.send(JSON.stringify(order(1)))
    await until(replies, (reply) => reply.requestId === 1)
    const first = replies.find((reply) => reply.requestId === 1)
    expect(first).toMatchObject({ response: { status: 'new' } })
    // Both frames in one write, so the server reads them together: the second order fits in
    // the balance only once the first is cancelled.
    const raw = (ws as unknown as { _socket: import('node:net').Socket })._socket
    raw.cork()
    ws.send(
      JSON.stringify({
        action: 'privateCancelOrder',
        requestId: 2,
        market: 'BTC-EUR',
        orderId: first.response.orderId,
      }),
    )
    ws.send(JSON.stringify(order(3)))
    raw.uncork()
    await until(replies, (reply) => reply.requestId === 3)
    expect(replies.find((reply) => reply.requestId === 2)).toMatchObject({
      response: { orderId: first.response.orderId },
    })
    expect(replies.find((reply) => reply.requestId === 3)).toMatchObject({
      response: { status: 'new' },
    })
    ws.close()
  })
})

describe('account history of trades', () => {
  it('lists each fill as a buy or sell with what was sent, received and paid', async () => {
    const history = await signed(alice, 'GET', '/v2/account/history?type=buy&maxItems=100')
    expect(history.json.items.length).toBeGreaterThan(0)
    const first = history.json.items.at(-1)
    expect(first).toMatchObject({
      type: 'buy',
      priceCurrency: 'EUR',
      priceAmount: '50000',
      sentCurrency: 'EUR',
      receivedCurrency: 'BTC',
      receivedAmount: '0.04000000',
      feesCurrency: 'EUR',
      address: null,
    })
    expect(Object.keys(first)).toHaveLength(12)
  })
})
