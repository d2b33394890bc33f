// PUT /order of an order that is no longer active is answered 233 (a market order: 234), as
// protocol §8 says and as DELETE /order answers, however the order is named (clientOrderId:
// the engine knows open orders only by it) and however long ago it closed (the engine forgets
// closed orders 1,000 closes later): it was answered 240, "No order found" (a conformance review).
import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newOrderId } from '../src/core/orderIds.ts'
import type { ExchangeServer } from '../src/server.ts'
import { openRecordingSocket } from './fixtures/recordingSocket.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let alice: Trader
let bob: Trader
const signed = (who: Trader, method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, who, method, path, { body })
const limit = (extra: Record<string, unknown>) => ({
  market: 'BTC-EUR',
  side: 'buy',
  orderType: 'limit',
  amount: '0.01',
  price: '40000',
  operatorId: 1,
  ...extra,
})
const error233 = {
  errorCode: 233,
  error: 'Order must be active (status new or partiallyFilled) to allow updating/cancelling.',
}
const error234 = { errorCode: 234, error: 'Market orders cannot be updated.' }

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
  alice = await createTrader(server, 'alice@example.com', { EUR: '100000', BTC: '10' })
  bob = await createTrader(server, 'bob@example.com', { EUR: '100000', BTC: '10' })
  // Liquidity for market orders.
  await signed(bob, 'POST', '/v2/order', limit({ side: 'sell', amount: '1', price: '60000' }))
})
afterAll(async () => {
  await server.close()
})

describe('PUT /order of an order that is no longer active', () => {
  it('a canceled limit order named by clientOrderId: 233, as by orderId and as DELETE /order', async () => {
    const clientOrderId = randomUUID()
    const placed = await signed(alice, 'POST', '/v2/order', limit({ clientOrderId }))
    expect(placed.status).toBe(200)
    const canceled = await signed(
      alice,
      'DELETE',
      `/v2/order?market=BTC-EUR&clientOrderId=${clientOrderId}&operatorId=1`,
    )
    expect(canceled.status).toBe(200)
    // By orderId the server answers 233, and a second cancel by clientOrderId too...
    const byId = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: placed.json.orderId,
      price: '41000',
      operatorId: 1,
    })
    expect(byId.json).toEqual(error233)
    const cancelAgain = await signed(
      alice,
      'DELETE',
      `/v2/order?market=BTC-EUR&clientOrderId=${clientOrderId}&operatorId=1`,
    )
    expect(cancelAgain.json).toEqual(error233)
    // ...and so does an update by clientOrderId.
    const byClientId = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      clientOrderId,
      price: '41000',
      operatorId: 1,
    })
    expect({ status: byClientId.status, json: byClientId.json }).toEqual({
      status: 400,
      json: error233,
    })
  })

  it('a filled market order named by clientOrderId: 234 (REST and WebSocket)', async () => {
    const clientOrderId = randomUUID()
    const placed = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'market',
      amount: '0.001',
      clientOrderId,
      operatorId: 1,
    })
    expect(placed.json.status).toBe('filled')
    const update = { market: 'BTC-EUR', amount: '0.002', operatorId: 1 }
    const byId = await signed(alice, 'PUT', '/v2/order', {
      ...update,
      orderId: placed.json.orderId,
    })
    expect(byId.json).toEqual(error234)
    const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    socket.ws.send(JSON.stringify(authenticateRequest(alice)))
    await socket.next((m) => m.event === 'authenticate')
    socket.ws.send(
      JSON.stringify({ action: 'privateUpdateOrder', requestId: 1, ...update, clientOrderId }),
    )
    const wsReply = await socket.next((m) => m.action === 'privateUpdateOrder')
    socket.ws.close()
    const byClientId = await signed(alice, 'PUT', '/v2/order', { ...update, clientOrderId })
    expect({ rest: byClientId.json.errorCode, ws: wsReply.errorCode }).toEqual({
      rest: 234,
      ws: 234,
    })
  })

  it('by orderId, once 1,000 other orders have closed anywhere on the exchange: still 233/234, not 240', async () => {
    const resting = await signed(alice, 'POST', '/v2/order', limit({}))
    await signed(alice, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${resting.json.orderId}`)
    const market = await signed(alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'market',
      amount: '0.001',
      operatorId: 1,
    })
    expect(market.json.status).toBe('filled')
    // Someone else's 1,001 IOC orders, each closed at once (on the live exchange, the simulator's
    // and other traders' orders do this within minutes).
    for (let i = 0; i < 1001; i++) {
      const now = Date.now()
      const outcome = await server.service.submit({
        type: 'placeOrder',
        timestamp: now,
        market: 'ETH-EUR',
        orderId: newOrderId(now),
        accountId: bob.accountId,
        side: 'buy',
        orderType: 'limit',
        price: 100_000,
        amount: 10_000,
        timeInForce: 'IOC',
        makerFeePpm: 1500,
        takerFeePpm: 2500,
      })
      expect(outcome.ok).toBe(true)
    }
    // DELETE /order still answers 233 for the closed order (it asks the order history)...
    const cancel = await signed(
      alice,
      'DELETE',
      `/v2/order?market=BTC-EUR&orderId=${resting.json.orderId}`,
    )
    expect(cancel.json).toEqual(error233)
    // ...PUT /order answers 240 for both.
    const updateLimit = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: resting.json.orderId,
      price: '41000',
      operatorId: 1,
    })
    const updateMarket = await signed(alice, 'PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: market.json.orderId,
      amount: '0.002',
      operatorId: 1,
    })
    expect({ limit: updateLimit.json, market: updateMarket.json }).toEqual({
      limit: error233,
      market: error234,
    })
  })
})
