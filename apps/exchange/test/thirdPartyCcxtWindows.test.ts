// ccxt (`bitvavo` / `pro.bitvavo`) paging candles by `since` and `limit`, and a fired stop order's
// trigger price (both found by a review, 2026-11-28). The set-up of thirdPartyCcxt.test.ts, with
// a server clock the test moves forward (ccxt signs with that clock too), so that trades fall in
// distinct minutes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { type Bitvavo, ccxtFor as ccxtClient } from './fixtures/ccxtClient.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let anonymous: Bitvavo
let maker: Bitvavo
let taker: Bitvavo
const exchanges: Bitvavo[] = []
const minute = 60_000
// A server clock that the test moves: trades in distinct minutes. ccxt signs with it too.
const t0 = Math.floor((Date.now() - 120 * minute) / minute) * minute
let offset = t0 + 5_000 - Date.now()
const clock = { nowMs: () => Date.now() + offset }
const setNow = (ms: number) => {
  offset = ms - Date.now()
}

async function ccxtFor(credentials?: { key: string; secret: string }): Promise<Bitvavo> {
  const exchange = await ccxtClient(baseUrl, { credentials, operatorId: 42, nowMs: clock.nowMs })
  exchanges.push(exchange)
  return exchange
}

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer({ simulator: false }, clock))
  const m = await createTrader(server, 'rev-maker@example.com', { BTC: '10', EUR: '200000' })
  const t = await createTrader(server, 'rev-taker@example.com', { BTC: '10', EUR: '200000' })
  anonymous = await ccxtFor()
  maker = await ccxtFor(m)
  taker = await ccxtFor(t)
  await anonymous.loadMarkets()
})
afterAll(async () => {
  for (const e of exchanges) await e.close()
  await server?.close()
})

/** Eight trades, one per minute from t0 (candle k opens at t0 + k min, closes at 60000 + k). */
async function tradeOncePerMinute(): Promise<void> {
  for (let k = 0; k < 8; k++) {
    setNow(t0 + k * minute + 5_000)
    await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.01, 60_000 + k)
    await taker.createOrder('BTC/EUR', 'market', 'buy', 0.01)
  }
  setNow(Date.now())
}
const minutesOf = (candles: readonly (readonly (number | undefined)[])[]) =>
  candles.map((candle) => ((candle[0] ?? 0) - t0) / minute)

describe('ccxt fetchOHLCV with since and limit', () => {
  beforeAll(tradeOncePerMinute)

  it('fetchOHLCV(since, limit) starts at the candle at since, and paging forward leaves no gap', async () => {
    // All 8 candles are there.
    expect(minutesOf(await anonymous.fetchOHLCV('BTC/EUR', '1m'))).toEqual([0, 1, 2, 3, 4, 5, 6, 7])
    // ccxt's fetchOHLCVRequest sends start=since, end=since+limit×60000 and limit=3. `end` is
    // where the last candle wanted ends (the docs), so the candle opening at `end` is not in the
    // window; counted in, the newest 3 of 4 were answered, and the candle at `since` (ccxt: "the
    // earliest candle to fetch") was left out.
    const first = await anonymous.fetchOHLCV('BTC/EUR', '1m', t0, 3)
    expect(minutesOf(first)).toEqual([0, 1, 2])
    // Paging forward the usual way (since = last candle + 1 interval) skips a candle per page.
    const pages: number[] = [...minutesOf(first)]
    let since = (first.at(-1)?.[0] ?? 0) + minute
    for (let page = 0; page < 2; page++) {
      const candles = await anonymous.fetchOHLCV('BTC/EUR', '1m', since, 3)
      pages.push(...minutesOf(candles))
      since = (candles.at(-1)?.[0] ?? 0) + minute
    }
    expect(pages).toEqual([0, 1, 2, 3, 4, 5, 6, 7]) // a candle short a page, before
  })

  it('fetchOHLCVWs (getCandles) with since and limit starts at the candle at since', async () => {
    // ccxt's fetchOHLCVWs sends the same window as getCandles.
    const candles = await anonymous.fetchOHLCVWs('BTC/EUR', '1m', t0 + 2 * minute, 2)
    expect(minutesOf(candles)).toEqual([2, 3])
  })
})

describe('ccxt stop orders', () => {
  it('a fired stop order keeps the triggerPrice it was placed with', async () => {
    setNow(Date.now())
    await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.5, 60_100)
    await maker.createOrder('BTC/EUR', 'limit', 'sell', 0.5, 60_200)
    // A stop buy at 60,050 (ccxt sends triggerAmount "60050", triggerType price,
    // triggerReference lastTrade); then a trade at 60,100 fires it.
    const stop = await taker.createOrder('BTC/EUR', 'market', 'buy', 0.01, undefined, {
      triggerPrice: 60_050,
    })
    expect(stop).toMatchObject({ type: 'stopLoss', status: 'open', triggerPrice: 60_050 })
    await taker.createOrder('BTC/EUR', 'market', 'buy', 0.1)
    const fired = await taker.fetchOrder(String(stop.id), 'BTC/EUR')
    expect(fired.status).toBe('closed')
    expect(fired.info.triggerAmount).toBe('60050')
    // The live API's triggerPrice is "the price calculated using triggerAmount and triggerType"
    // (60050 for triggerType price), fired or not; the reference price that fired it (60100) was
    // shown before.
    expect(fired.triggerPrice).toBe(60_050)
  })
})
