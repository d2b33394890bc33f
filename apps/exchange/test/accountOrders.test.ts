// GET /v2/orders and /v2/order beyond the core's memory: the order archive serves an account's
// every closed order, where the core keeps only its newest 5,000 to 10,000 (and every open one).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ordersPerAccountMax } from '../src/core/orderHistory.ts'
import type { ExchangeServer } from '../src/server.ts'
import {
  manyTradesClientOrderId,
  manyTradesOrderId,
  serverWithManyTrades,
} from './fixtures/manyTrades.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'

type WireOrder = {
  orderId: string
  clientOrderId?: string
  created: number
  status: string
  fills: { id: string }[]
}

const startMs = Date.UTC(2026, 10, 20, 12)
/** 10 ms apart: the core forgets a closed order only 10 s after it closed. */
const spacingMs = 10
let server: ExchangeServer
let baseUrl: string
let buyerKey: ApiKey
let sellerKey: ApiKey
/** More than the core ever keeps of one account (it trims back to 5,000 past 10,000). */
const orderCount = ordersPerAccountMax * 2 + 50

beforeAll(async () => {
  ;({ server, baseUrl, buyerKey, sellerKey } = await serverWithManyTrades({
    count: orderCount,
    startMs,
    spacingMs,
  }))
}, 120_000)
afterAll(() => server.close())

const get = async (who: ApiKey, path: string) => {
  const response = await signedRequest(baseUrl, who, 'GET', path)
  return response as { status: number; json: WireOrder & WireOrder[] & { errorCode?: number } }
}
const orders = async (who: ApiKey, query: string): Promise<WireOrder[]> => {
  const response = await get(who, `/v2/orders?market=BTC-EUR&${query}`)
  expect(response.status, JSON.stringify(response.json)).toBe(200)
  return response.json
}
const indexOf = (order: WireOrder) => Number(order.orderId.slice(-12))

describe('GET /v2/order(s) beyond the core memory', () => {
  it('answers for the oldest orders, which the core no longer holds, by id and client order id', async () => {
    const oldest = manyTradesOrderId(1)
    expect(server.service.core.history.order('BTC-EUR', oldest)).toBeUndefined()
    const byId = await get(buyerKey, `/v2/order?market=BTC-EUR&orderId=${oldest}`)
    expect(byId.status).toBe(200)
    expect(byId.json).toMatchObject({
      orderId: oldest,
      clientOrderId: manyTradesClientOrderId(1),
      market: 'BTC-EUR',
      created: startMs + spacingMs,
      status: 'filled',
      side: 'buy',
      amount: '0.00100000',
      filledAmount: '0.00100000',
      fills: [{ id: '1', amount: '0.00100000', price: '60000', taker: true }],
    })
    const clientOrderId = manyTradesClientOrderId(2)
    const byClientId = await get(
      buyerKey,
      `/v2/order?market=BTC-EUR&clientOrderId=${clientOrderId}`,
    )
    expect(byClientId.json.orderId, JSON.stringify(byClientId.json)).toBe(manyTradesOrderId(2))
    // Another account's order is not found, archived or not.
    expect((await get(sellerKey, `/v2/order?market=BTC-EUR&orderId=${oldest}`)).json).toMatchObject(
      { errorCode: 240 },
    )
    expect(
      (await get(sellerKey, `/v2/order?market=BTC-EUR&clientOrderId=${clientOrderId}`)).json,
    ).toMatchObject({ errorCode: 240 })
    // A closed order cannot be cancelled, and says so.
    const cancel = await signedRequest(
      baseUrl,
      buyerKey,
      'DELETE',
      `/v2/order?market=BTC-EUR&orderId=${oldest}`,
    )
    expect(cancel.json).toMatchObject({ errorCode: 233 })
    // The newest, still in the core, has its fill too (a taker's fill comes before its order).
    const newest = await get(
      buyerKey,
      `/v2/order?market=BTC-EUR&orderId=${manyTradesOrderId(orderCount)}`,
    )
    expect(newest.json.fills.map((fill) => fill.id)).toEqual([String(orderCount)])
  })

  it('pages through every order of an account, newest first, none twice and none missing', async () => {
    const seen: number[] = []
    let query = 'limit=1000'
    for (;;) {
      const page = await orders(buyerKey, query)
      // The cursor is inclusive: each page after the first starts with the last one's end.
      const fresh = seen.length === 0 ? page : page.slice(1)
      if (fresh.length === 0) break
      seen.push(...fresh.map(indexOf))
      query = `limit=1000&orderIdTo=${page.at(-1)!.orderId}`
    }
    expect(seen).toEqual(Array.from({ length: orderCount }, (_, index) => orderCount - index))
  })

  it('lists a time window deep in the past, and ranges between two archived orders', async () => {
    const window = await orders(buyerKey, `start=${startMs + 30}&end=${startMs + 50}`)
    expect(window.map(indexOf)).toEqual([5, 4, 3])
    expect(window.map((order) => order.fills.map((fill) => fill.id))).toEqual([['5'], ['4'], ['3']])
    const between = await orders(
      buyerKey,
      `orderIdFrom=${manyTradesOrderId(7)}&orderIdTo=${manyTradesOrderId(9)}`,
    )
    expect(between.map(indexOf)).toEqual([9, 8, 7])
    // A cursor must be one of the account's orders.
    const foreign = await get(
      sellerKey,
      `/v2/orders?market=BTC-EUR&orderIdTo=${manyTradesOrderId(9)}`,
    )
    expect(foreign.json).toMatchObject({ errorCode: 205 })
  })

  it('lists a new open order before the archived ones', async () => {
    const placed = await signedRequest(baseUrl, buyerKey, 'POST', '/v2/order', {
      body: { market: 'BTC-EUR', side: 'buy', orderType: 'limit', price: '50000', amount: '0.001' },
    })
    expect(placed.status).toBe(200)
    const newest = await orders(buyerKey, 'limit=3')
    expect(newest.map((order) => [order.orderId, order.status])).toEqual([
      [placed.json.orderId, 'new'],
      [manyTradesOrderId(orderCount), 'filled'],
      [manyTradesOrderId(orderCount - 1), 'filled'],
    ])
  })
})
