// What an open order holds is what its rest can still spend (protocol: "balance is reserved into
// onHold/inOrder ... and released on cancel"): an amount taken off by self-trade prevention, or
// a fill at a better price than the limit, is given back at once, not when the order closes.
// And GET /balance unfiltered lists only the assets it shows as held.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
const signed = (who: Trader, method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, who, method, path, { body })
const place = (who: Trader, body: Record<string, unknown>) =>
  signed(who, 'POST', '/v2/order', { market: 'BTC-EUR', operatorId: 1, ...body })
const getOrder = async (who: Trader, orderId: string): Promise<Json> =>
  (await signed(who, 'GET', `/v2/order?market=BTC-EUR&orderId=${orderId}`)).json
const balanceOf = async (who: Trader, symbol: string): Promise<Json> =>
  (await signed(who, 'GET', `/v2/balance?symbol=${symbol}`)).json[0]
let traders = 0
const trader = (deposits: Record<string, string>) =>
  createTrader(server, `holds-${traders++}-${randomBytes(3).toString('hex')}@example.com`, deposits)

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
})
afterAll(async () => {
  await server.close()
})

describe('holds and balances', () => {
  // protocol.md:721 "balance is reserved into `onHold`/`inOrder` (quote for buys, base for sells)
  // and released on cancel"; :301 "onHold ... funds reserved"; :312 restatementReason
  // "decrementOnSelfTradePrevention"; :725 "self-trade handling according to selfTradePrevention".
  // A decrement cancels part of the order, as an update lowering its amount does (which does
  // release the hold at once): the part taken off must no longer be reserved.
  it('decrementAndCancel gives back what it takes off a resting order, maker or taker', async () => {
    // Maker side: a resting buy of 0.05 is decremented to 0.02 by the owner's own sell of 0.03.
    const maker = await trader({ EUR: '100000', BTC: '1' })
    const buy = await place(maker, {
      side: 'buy',
      orderType: 'limit',
      amount: '0.05',
      price: '50000',
    })
    expect(buy.json.onHold).toBe('2506.25') // 2,500 + 0.25% taker fee
    const sell = await place(maker, {
      side: 'sell',
      orderType: 'limit',
      amount: '0.03',
      price: '50000',
    })
    expect(sell.json.status).toBe('canceledSelfTradePrevention')
    const decremented = await getOrder(maker, buy.json.orderId)
    expect(decremented).toMatchObject({
      status: 'new',
      amount: '0.02000000',
      amountRemaining: '0.02000000',
      restatementReason: 'decrementOnSelfTradePrevention',
    })
    // 0.02 × 50,000 = 1,000 EUR plus the 0.25% fee bound: 1,002.50 (the server keeps 2,506.25).
    expect(decremented.onHold).toBe('1002.50')
    expect(await balanceOf(maker, 'EUR')).toEqual({
      symbol: 'EUR',
      available: '98997.50',
      inOrder: '1002.50',
    })

    // Taker side: a new buy of 0.05 meets the owner's resting sell of 0.01 and rests as 0.04.
    const taker = await trader({ EUR: '100000', BTC: '1' })
    await place(taker, { side: 'sell', orderType: 'limit', amount: '0.01', price: '60000' })
    const big = await place(taker, {
      side: 'buy',
      orderType: 'limit',
      amount: '0.05',
      price: '60000',
    })
    expect(big.json).toMatchObject({
      status: 'new',
      amount: '0.04000000',
      amountRemaining: '0.04000000',
      restatementReason: 'decrementOnSelfTradePrevention',
    })
    // 0.04 × 60,000 = 2,400 EUR plus 0.25%: 2,406.00 (the server keeps 3,007.50 for 0.05).
    expect(big.json.onHold).toBe('2406.00')
    expect((await balanceOf(taker, 'EUR')).inOrder).toBe('2406.00')
  })

  // protocol.md:227 "GET `/balance` | `symbol` | `[{symbol, available, inOrder}]` (docs: only
  // non-zero assets when unfiltered)".
  it('GET /v2/balance unfiltered lists no asset it would show as zero', async () => {
    const buyer = await trader({ EUR: '100.25' })
    const seller = await trader({ ETH: '1' })
    const eth = (body: Record<string, unknown>) => place(seller, { ...body, market: 'ETH-EUR' })
    await eth({ side: 'sell', orderType: 'limit', amount: '0.1', price: '3000' })
    // Buys 0.033333 ETH for 99.999 EUR and a 0.25 EUR fee: 0.001 EUR is left in the ledger,
    // which EUR's two decimals show as 0.00.
    const bought = await place(buyer, {
      market: 'ETH-EUR',
      side: 'buy',
      orderType: 'market',
      amountQuote: '100',
    })
    expect(bought.json).toMatchObject({ status: 'filled', filledAmount: '0.033333' })
    const rows: Json[] = (await signed(buyer, 'GET', '/v2/balance')).json
    expect(rows).toEqual([{ symbol: 'ETH', available: '0.03333300', inOrder: '0.00000000' }])
    // Asked for by name, the row is there, zeros shown.
    expect(await balanceOf(buyer, 'EUR')).toEqual({
      symbol: 'EUR',
      available: '0.00',
      inOrder: '0.00',
    })
  })

  it('a limit buy that fills part at a better price keeps only what its rest can spend', async () => {
    const seller = await trader({ ETH: '1' })
    const buyer = await trader({ EUR: '100000' })
    const eth = (who: Trader, body: Record<string, unknown>) =>
      place(who, { ...body, market: 'ETH-EUR', orderType: 'limit' })
    await eth(seller, { side: 'sell', amount: '0.04', price: '2500' })
    // 0.06 at up to 2,800: 0.04 filled at 2,500 as taker, 0.02 rests at 2,800.
    const buy = await eth(buyer, { side: 'buy', amount: '0.06', price: '2800' })
    expect(buy.json).toMatchObject({ status: 'partiallyFilled', amountRemaining: '0.020000' })
    // The rest: 0.02 × 2,800 = 56 EUR and the 0.25% fee bound, 56.14 (before, the 12 EUR saved
    // on the fill stayed held until the order closed: 68.17 of the 168.42 held at first).
    expect(buy.json.onHold).toBe('56.14')
    expect(await balanceOf(buyer, 'EUR')).toEqual({
      symbol: 'EUR',
      available: '99843.61', // 100,000 − 100.25 (100 and its fee) − 56.14
      inOrder: '56.14',
    })
    // The rest filling as maker, nothing is left held.
    await eth(seller, { side: 'sell', amount: '0.02', price: '2800' })
    expect(await balanceOf(buyer, 'EUR')).toMatchObject({ inOrder: '0.00' })
    const filled = await signed(
      buyer,
      'GET',
      `/v2/order?market=ETH-EUR&orderId=${buy.json.orderId}`,
    )
    expect(filled.json).toMatchObject({ status: 'filled' })
    server.service.core.ledger.checkInvariant()
  })
})
