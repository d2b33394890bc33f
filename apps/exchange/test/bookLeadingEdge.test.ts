// A market whose book has been quiet for a whole batch interval publishes its next change at
// once, in the same journal commit, instead of at the next tick of the batch timer; its later
// changes wait for the timer, and so do the changes of a book with more subscribers than a
// leading flush may have (here one). The timer's interval is a minute, so within a test only
// the leading edge can publish anything.
import { randomBytes } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { newOrderId } from '../src/core/orderIds.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { openRecordingSocket, readMetric } from './fixtures/recordingSocket.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let wsUrl: string
let trader: Trader

// A server each: a market stays 'recently flushed' for the whole minute after its first change.
beforeEach(async () => {
  const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir: undefined }
  server = await createExchangeServer(config, testListing, undefined, {
    bookFlushIntervalMs: 60_000,
    leadingFlushSubscribersMax: 1,
  })
  baseUrl = await server.listen()
  wsUrl = `${baseUrl.replace('http', 'ws')}/v2`
  trader = await createTrader(server, `leading-${randomBytes(4).toString('hex')}@example.com`, {
    EUR: '1000000',
  })
})
afterEach(() => server.close())

const openSocket = () => openRecordingSocket(wsUrl)

/** `polder_book_flushes_total` on /metrics, by edge. */
async function bookFlushes(): Promise<{ leading: number; timer: number }> {
  const read = (edge: string) => readMetric(baseUrl, `polder_book_flushes_total{edge="${edge}"}`)
  return { leading: await read('leading'), timer: await read('timer') }
}

/** A socket subscribed to both markets' books. */
async function watchBooks() {
  const watcher = await openSocket()
  const subscribed = watcher.next((m) => m.event === 'subscribed', 'subscribed')
  watcher.ws.send(
    JSON.stringify({
      action: 'subscribe',
      channels: [{ name: 'book', markets: ['BTC-EUR', 'ETH-EUR'] }],
    }),
  )
  await subscribed
  return watcher
}

/**
 * A limit buy of 0.01 straight to the exchange service, as the simulator places its quotes
 * (BTC-EUR's prices are whole euros, its amounts 10^-8 BTC; ETH-EUR's cents and 10^-6 ETH).
 */
function place(market: string, price: number) {
  const timestamp = Date.now()
  return server.service.submit({
    type: 'placeOrder',
    timestamp,
    market,
    orderId: newOrderId(timestamp),
    accountId: trader.accountId,
    side: 'buy',
    orderType: 'limit',
    amount: market === 'BTC-EUR' ? 1_000_000 : 10_000,
    price,
    makerFeePpm: 0,
    takerFeePpm: 0,
  })
}

describe('the leading edge of a book batch', () => {
  it('publishes a quiet market’s change at once, and its next changes with the timer', async () => {
    const watcher = await watchBooks()
    const orderer = await openSocket()
    const authenticated = orderer.next((m) => m.event === 'authenticate', 'authentication')
    orderer.ws.send(JSON.stringify(authenticateRequest(trader)))
    expect(await authenticated).toMatchObject({ authenticated: true })
    let requestId = 0
    const buy = (market: string, price: string) => {
      requestId += 1
      const id = requestId
      const reply = orderer.next((m) => m.requestId === id, `the reply to order ${id}`)
      orderer.ws.send(
        JSON.stringify({
          action: 'privateCreateOrder',
          requestId: id,
          market,
          side: 'buy',
          orderType: 'limit',
          amount: '0.01',
          price,
          operatorId: 1,
        }),
      )
      return reply
    }
    const snapshot = (market: string) => {
      const reply = orderer.next(
        (m) => m.action === 'getBook' && m.response?.market === market,
        'a book',
      )
      orderer.ws.send(JSON.stringify({ action: 'getBook', market }))
      return reply
    }
    const before = (await snapshot('BTC-EUR')).response.nonce

    // The first change of a quiet market: published now, not a minute from now.
    const first = watcher.next((m) => m.event === 'book' && m.market === 'BTC-EUR', 'a book event')
    expect((await buy('BTC-EUR', '1001')).response).toMatchObject({ status: 'new' })
    expect(await first).toMatchObject({
      market: 'BTC-EUR',
      nonce: before + 1,
      bids: [['1001', '0.01000000']],
      asks: [],
    })

    // Its next change waits for the timer; another quiet market's first change does not. The
    // watcher gets ETH-EUR's event, and none for BTC-EUR's second order before it.
    expect((await buy('BTC-EUR', '1002')).response).toMatchObject({ status: 'new' })
    const other = watcher.next(
      (m) => m.event === 'book' && m.market === 'ETH-EUR',
      'an ETH book event',
    )
    await buy('ETH-EUR', '501')
    const otherEvent = await other
    expect(otherEvent.bids).toHaveLength(1)
    expect(Number(otherEvent.bids[0][0])).toBe(501)
    const btcEvents = watcher.received.filter((m) => m.event === 'book' && m.market === 'BTC-EUR')
    expect(btcEvents).toHaveLength(1)
    // /metrics counts the two leading flushes, and none of the timer's (due in a minute).
    expect(await bookFlushes()).toEqual({ leading: 2, timer: 0 })
    watcher.ws.close()
    orderer.ws.close()
  })

  it('publishes everything one task applies to a quiet market as one event', async () => {
    const watcher = await watchBooks()
    // As the simulator re-quotes a market: several commands submitted in one go, without
    // waiting between them.
    const event = watcher.next((m) => m.event === 'book' && m.market === 'BTC-EUR', 'a book event')
    const placed = await Promise.all([place('BTC-EUR', 2001), place('BTC-EUR', 2002)])
    expect(placed.every((outcome) => outcome.ok)).toBe(true)
    expect(await event).toMatchObject({
      bids: [
        ['2002', '0.01000000'],
        ['2001', '0.01000000'],
      ],
      asks: [],
    })
    // Nothing more for BTC-EUR: by the time ETH-EUR's first change arrives, one event in all.
    const other = watcher.next(
      (m) => m.event === 'book' && m.market === 'ETH-EUR',
      'an ETH book event',
    )
    expect((await place('ETH-EUR', 50_100)).ok).toBe(true)
    await other
    expect(
      watcher.received.filter((m) => m.event === 'book' && m.market === 'BTC-EUR'),
    ).toHaveLength(1)
    watcher.ws.close()
  })

  it('leaves a book with more subscribers than a leading flush may have to the timer', async () => {
    const watcher = await watchBooks()
    const second = await openSocket()
    const subscribed = second.next((m) => m.event === 'subscribed', 'subscribed')
    second.ws.send(
      JSON.stringify({ action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] }),
    )
    await subscribed
    // BTC-EUR has two subscribers now, ETH-EUR one: only ETH-EUR's change is published at once.
    expect((await place('BTC-EUR', 3001)).ok).toBe(true)
    const other = watcher.next(
      (m) => m.event === 'book' && m.market === 'ETH-EUR',
      'an ETH book event',
    )
    expect((await place('ETH-EUR', 50_200)).ok).toBe(true)
    await other
    for (const socket of [watcher, second])
      expect(socket.received.filter((m) => m.event === 'book' && m.market === 'BTC-EUR')).toEqual(
        [],
      )
    watcher.ws.close()
    second.ws.close()
  })
})
