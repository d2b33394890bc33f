// An account's closed orders and fills leave the core's memory once it has been quiet for an
// hour, however few it has (an idle account's would otherwise stay for good, and accounts are
// free to open), on a real server: the customer still gets every one over the wire, from the
// archives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { closedKeptMs } from '../src/core/orderHistory.ts'
import type { ExchangeServer } from '../src/server.ts'
import { depositWhole, startTestServer } from './fixtures/testServer.ts'
import { limitOrderBody } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any

let server: ExchangeServer
let baseUrl: string
let nowMs = Date.now()

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer({ simulator: false }, { nowMs: () => nowMs }))
})
afterAll(() => server.close())

/** A new account with 1,000 EUR and 1 BTC, and a socket authenticated with its session. */
async function customer(email: string) {
  const account = await server.accounts.createAccount(email, 'a long enough password')
  const { token } = await server.accounts.createSession(account.id, 86_400_000)
  await depositWhole(server, account.id, 'EUR', 1_000, nowMs)
  await depositWhole(server, account.id, 'BTC', 1, nowMs)
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => ws.once('open', resolve))
  const replies = new Map<number, (reply: Json) => void>()
  ws.on('message', (data) => {
    const reply = JSON.parse(data.toString())
    if (typeof reply.requestId === 'number') replies.get(reply.requestId)?.(reply)
    else if (reply.event === 'authenticate') replies.get(1)?.(reply) // the first request
  })
  let requestId = 0
  const request = (body: Record<string, unknown>): Promise<Json> =>
    new Promise((resolve) => {
      requestId += 1
      replies.set(requestId, resolve)
      ws.send(JSON.stringify({ ...body, requestId }))
    })
  expect((await request({ action: 'authenticate', token })).authenticated).toBe(true)
  const order = (
    side: 'buy' | 'sell',
    price: string,
    timeInForce: 'GTC' | 'IOC',
    amount = '0.001',
  ) => {
    nowMs += 10
    return request({
      action: 'privateCreateOrder',
      ...limitOrderBody(side, amount, price, { timeInForce }),
    })
  }
  return { accountId: account.id, ws, request, order }
}

const inCore = (accountId: number) => ({
  orders: server.service.core.history.ordersIn(accountId, 'BTC-EUR', {
    startMs: 0,
    endMs: Number.MAX_SAFE_INTEGER,
    limit: 1_000,
  }).length,
  fills: server.service.core.history.fillsOf(accountId).length,
})

describe('closed orders and fills an hour old', () => {
  it('leave the core, and are still listed over the wire from the archives', async () => {
    const alice = await customer('resting@example.com')
    const bob = await customer('idle@example.com')
    // Alice's sell rests; bob's first five buys fill against it, his next ten find nothing.
    const resting = await alice.order('sell', '10000', 'GTC', '0.01')
    expect(resting.response.status).toBe('new')
    for (let buy = 0; buy < 5; buy += 1)
      expect((await bob.order('buy', '10000', 'IOC')).response.status).toBe('filled')
    for (let buy = 0; buy < 10; buy += 1)
      expect((await bob.order('buy', '9000', 'IOC')).response.status).toBe('canceledIOC')
    expect(inCore(bob.accountId)).toEqual({ orders: 15, fills: 5 })
    const listed = async () => ({
      orders: (await bob.request({ action: 'privateGetOrders', market: 'BTC-EUR', limit: 1000 }))
        .response,
      fills: (await bob.request({ action: 'privateGetTrades', market: 'BTC-EUR', limit: 1000 }))
        .response,
    })
    // Once the archives hold them (they write within a second or two).
    await expect.poll(async () => (await listed()).fills.length).toBe(5)
    await expect.poll(async () => (await listed()).orders.length).toBe(15)
    const before = await listed()

    // An hour on, the next order anyone places lets them go: an idle account keeps none.
    nowMs += closedKeptMs + 1_000
    const carol = await customer('other@example.com')
    expect((await carol.order('buy', '9000', 'IOC')).response.status).toBe('canceledIOC')
    expect(inCore(bob.accountId)).toEqual({ orders: 0, fills: 0 })
    // Alice's order is still open: kept, without the fills of an hour ago.
    expect(inCore(alice.accountId)).toEqual({ orders: 1, fills: 0 })

    expect(await listed()).toEqual(before)
    const oldest = before.orders.at(-1)
    const found = await bob.request({
      action: 'privateGetOrder',
      market: 'BTC-EUR',
      orderId: oldest.orderId,
    })
    expect(found.response).toEqual(oldest)
    const cancel = await alice.request({
      action: 'privateCancelOrder',
      market: 'BTC-EUR',
      orderId: resting.response.orderId,
    })
    expect(cancel.response).toEqual({ orderId: resting.response.orderId })
    for (const { ws } of [alice, bob, carol]) ws.close()
    server.service.core.ledger.checkInvariant()
  }, 60_000)
})
