// Public market data at the edges of its time windows: the rolling 24 hours of the ticker (at
// the 1m candles' resolution, never counting a trade from before its own startTimestamp), and the
// candle event of a trade whose commit also began the next candle.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { defaultConfig } from '../src/config.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const minuteMs = 60_000
const hourMs = 3_600_000
const dayMs = 86_400_000
/** 2026-11-20T10:00:00Z; each test works in its own day so that the clock only moves forward. */
const t0 = Date.UTC(2026, 10, 20, 10, 0, 0)
let nowMs = t0
let server: ExchangeServer
let baseUrl: string
let sellerId = 0
let buyerId = 0
let orderIndex = 0
const orderId = () => `00000000-0000-4000-8000-${String(++orderIndex).padStart(12, '0')}`

/** A limit order straight to the exchange service, at `timestamp`. */
const place = (
  accountId: number,
  side: 'buy' | 'sell',
  timestamp: number,
  price: number,
  sats: number,
) =>
  server.service.submit({
    type: 'placeOrder',
    timestamp,
    market: 'BTC-EUR',
    orderId: orderId(),
    accountId,
    side,
    orderType: 'limit',
    amount: sats,
    price,
    makerFeePpm: 1_500,
    takerFeePpm: 2_500,
  })

/** One BTC-EUR trade at `timestamp` (the clock moves there): `sats` satoshis at `price` EUR. */
async function trade(timestamp: number, price: number, sats: number): Promise<void> {
  nowMs = timestamp
  expect((await place(sellerId, 'sell', timestamp, price, sats)).ok).toBe(true)
  expect((await place(buyerId, 'buy', timestamp, price, sats)).ok).toBe(true)
}

async function get(path: string): Promise<{ status: number; body: Json }> {
  const response = await fetch(`${baseUrl}/v2${path}`)
  return { status: response.status, body: await response.json() }
}

async function openSocket() {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => socket.once('open', resolve))
  const received: Json[] = []
  socket.on('message', (data) => received.push(JSON.parse(data.toString())))
  let requestId = 1000
  const ask = async (request: object) => {
    const id = ++requestId
    socket.send(JSON.stringify({ ...request, requestId: id }))
    await expect.poll(() => received.find((reply) => reply.requestId === id)).toBeDefined()
    return received.find((reply) => reply.requestId === id)
  }
  const subscribe = (channels: object[]) =>
    socket.send(JSON.stringify({ action: 'subscribe', channels }))
  return { socket, received, ask, subscribe }
}

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    { nowMs: () => nowMs },
  )
  baseUrl = await server.listen()
  sellerId = (await server.accounts.createAccount('seller@example.com', 'a long enough password'))
    .id
  buyerId = (await server.accounts.createAccount('buyer@example.com', 'a long enough password')).id
  for (const [accountId, asset, amount] of [
    [sellerId, 'BTC', 100],
    [buyerId, 'EUR', 10_000_000],
  ] as const) {
    const outcome = await server.service.submit({
      type: 'deposit',
      timestamp: t0,
      accountId,
      asset,
      amount: toLedgerUnits(amount, 0).toString(),
      reference: `${asset}-${accountId}`,
    })
    expect(outcome.ok).toBe(true)
  }
}, 60_000)
afterAll(() => server.close())

describe('market data at the edges of its windows', () => {
  it('the 24h ticker counts nothing older than its startTimestamp: the minutes that begin within the 24 hours', async () => {
    // protocol.md line 206: GET `/ticker/24h` → `[{market, startTimestamp, timestamp, open,
    // openTimestamp, high, low, last, closeTimestamp, ..., volume, volumeQuote}]`: the figures of
    // the 24 hours from `startTimestamp` to `timestamp` (the server sends timestamp - 24 h there).
    const day = t0
    await trade(day + 10_000, 60_000, 100_000) // 10:00:10, at 60,000
    await trade(day + 12 * hourMs, 61_000, 200_000) // 22:00:00, at 61,000
    nowMs = day + dayMs + 20_000 // the next day 10:00:20: the first trade is 24 h 10 s old
    const rest = (await get('/ticker/24h?market=BTC-EUR')).body
    const ws = await openSocket()
    const viaWs = (await ws.ask({ action: 'getTicker24h', market: 'BTC-EUR' })).response
    ws.socket.close()
    for (const ticker of [rest, viaWs]) {
      expect(ticker.startTimestamp).toBe(nowMs - dayMs)
      // Only the 22:00 trade lies in [startTimestamp, timestamp].
      expect(ticker).toMatchObject({
        open: '61000',
        high: '61000',
        low: '61000',
        last: '61000',
        volume: '0.00200000',
        volumeQuote: '122.00',
      })
      expect(ticker.openTimestamp).toBeGreaterThanOrEqual(ticker.startTimestamp)
    }
  })

  it('a candle event carries the candle its trade went into, when a trade of the same commit began the next', async () => {
    // protocol.md line 570: candles | `candle` | `{event:"candle", market, interval:"1m",
    // candle:[[ts, o, h, l, c, v]]}`. Sent after each trade with the updated current candle
    const ws = await openSocket()
    ws.subscribe([{ name: 'candles', interval: ['1m'], markets: ['BTC-EUR'] }])
    await expect.poll(() => ws.received.find((m) => m.event === 'subscribed')).toBeDefined()
    const minute = t0 + 2 * dayMs // a whole minute
    const first = minute - 1 // the last millisecond of the minute before
    nowMs = minute
    // Submitted together, so that both trades are applied and published in one journal commit.
    const outcomes = await Promise.all([
      place(sellerId, 'sell', first, 50_000, 100_000),
      place(buyerId, 'buy', first, 50_000, 100_000),
      place(sellerId, 'sell', minute, 51_000, 100_000),
      place(buyerId, 'buy', minute, 51_000, 100_000),
    ])
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true)
    const candles = () => ws.received.filter((m) => m.event === 'candle')
    await expect.poll(() => candles().length).toBe(2)
    ws.socket.close()
    // After the first trade: its own candle, the minute before the boundary.
    expect(candles()[0].candle).toEqual([
      [minute - minuteMs, '50000', '50000', '50000', '50000', '0.00100000'],
    ])
    expect(candles()[1].candle).toEqual([
      [minute, '51000', '51000', '51000', '51000', '0.00100000'],
    ])
  })

  it('the 24h ticker of a quiet market is pushed when a minute leaving the window takes its trades along, and not again unchanged', async () => {
    // protocol.md line 567: ticker24h is "Sent about once per second and contains only the
    // tickers that changed": a trade leaving the rolling window changes the figures.
    const day = t0 + 4 * dayMs // a day after the other tests' trades
    await trade(day, 62_000, 300_000)
    const ws = await openSocket()
    ws.subscribe([{ name: 'ticker24h', markets: ['BTC-EUR'] }])
    const tickers = () => ws.received.filter((m) => m.event === 'ticker24h')
    await expect.poll(() => tickers().length).toBeGreaterThan(0) // pushed on subscribing
    // And the trade's own push, within the second after it: past that, all is quiet.
    const quiet = () => new Promise((resolve) => setTimeout(resolve, 2_500))
    await quiet()
    const before = tickers().length
    expect(tickers().at(-1).data[0]).toMatchObject({ volume: '0.00300000', open: '62000' })
    // The minute after the trade's has left the window: nothing traded since, yet it changed.
    nowMs = day + dayMs + minuteMs + 1
    // Waited for by what it says, then counted: a push of the old figures late past the quiet
    // spell (a stalled machine) would have counted as this one.
    await expect
      .poll(() => tickers().at(-1).data[0], { timeout: 5_000 })
      .toMatchObject({ volume: '0.00000000', open: null, last: '62000' })
    expect(tickers()).toHaveLength(before + 1)
    // Another minute on, nothing more changed: nothing more is pushed.
    nowMs += minuteMs
    await quiet()
    expect(tickers()).toHaveLength(before + 1)
    ws.socket.close()
  }, 20_000) // two quiet spells of 2.5 s and a wait of up to 5 s

  it('the 24h ticker of a quiet market is not pushed again unchanged at the next minute', async () => {
    // protocol.md line 567: ticker24h "contains only the tickers that changed". The figures
    // sent on subscribing count as sent: before, the next minute pushed them again.
    nowMs = t0 + 6 * dayMs // nothing traded within a day of it
    const ws = await openSocket()
    ws.subscribe([{ name: 'ticker24h', markets: ['ETH-EUR'] }])
    const tickers = () => ws.received.filter((m) => m.event === 'ticker24h')
    await expect.poll(() => tickers().length).toBe(1) // the push on subscribing
    nowMs += minuteMs // a minute on; nothing traded, nothing changed
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    expect(tickers()).toHaveLength(1)
    ws.socket.close()
  })
})
