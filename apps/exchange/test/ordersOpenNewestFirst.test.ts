// GET /ordersOpen (and privateGetOrdersOpen) lists newest first across markets, as every list
// of the protocol does (§1: "list endpoints return newest first") and as GET /orders does; it
// listed oldest first, market by market (a conformance review).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader, type Trader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let alice: Trader
const signed = (method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, alice, method, path, { body })
const place = async (market: string, price: string, amount: string) => {
  const reply = await signed('POST', '/v2/order', {
    market,
    side: 'buy',
    orderType: 'limit',
    amount,
    price,
    operatorId: 1,
  })
  expect(reply.status).toBe(200)
  await new Promise((resolve) => setTimeout(resolve, 5)) // distinct `created`
  return reply.json.orderId as string
}

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
  alice = await createTrader(server, 'alice@example.com', { EUR: '100000' })
})
afterAll(async () => {
  await server.close()
})

describe('GET /ordersOpen', () => {
  it('lists newest first, as GET /orders does', async () => {
    const first = await place('BTC-EUR', '40000', '0.01')
    const second = await place('ETH-EUR', '2000', '0.01')
    const third = await place('BTC-EUR', '40001', '0.01')
    const newestFirst = [third, second, first]
    const orders = await signed('GET', '/v2/orders?market=BTC-EUR')
    expect(orders.json.map((o: { orderId: string }) => o.orderId)).toEqual([third, first])
    const open = await signed('GET', '/v2/ordersOpen')
    const openBtc = await signed('GET', '/v2/ordersOpen?market=BTC-EUR')
    expect({
      all: open.json.map((o: { orderId: string }) => o.orderId),
      btc: openBtc.json.map((o: { orderId: string }) => o.orderId),
    }).toEqual({ all: newestFirst, btc: [third, first] })
  })
})
