// Cancel-on-disconnect (POST /v2/cancelOrdersAfter and `codGroupId` on POST /v2/order): the
// countdown's parameters and errors, orders that name a group, a countdown kept alive by its
// client, one that runs out (its group's orders canceled with the reason cancelOnDisconnect, and
// nobody else's), one stopped with 0, all on a test clock; and, with the real server process, a
// countdown that outlives a kill -9 and still fires.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { defaultConfig } from '../src/config.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { buyerAndSeller, serverProcesses } from './fixtures/serverProcess.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let trader: ApiKey
let viewer: ApiKey
let other: ApiKey
let otherAccountId: number
/** The server's clock runs this far ahead of the wall clock (signatures use the same). */
let offsetMs = 0
const nowMs = () => Date.now() + offsetMs

const call = (who: ApiKey, method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, who, method, path, { body, timestampMs: nowMs() })
const armGroup = (who: ApiKey, codGroupId: unknown, expiryAfterSeconds: unknown) =>
  call(who, 'POST', '/v2/cancelOrdersAfter', { codGroupId, expiryAfterSeconds })
/** The body of a limit buy of 0.1 BTC at `price` EUR, in `codGroupId` when given. */
const limitBuy = (price: string, codGroupId?: number) => ({
  market: 'BTC-EUR',
  side: 'buy',
  orderType: 'limit',
  amount: '0.1',
  price,
  operatorId: 1,
  ...(codGroupId === undefined ? {} : { codGroupId }),
})
const buy = (who: ApiKey, price: string, codGroupId?: number) =>
  call(who, 'POST', '/v2/order', limitBuy(price, codGroupId))
const order = async (who: ApiKey, orderId: string): Promise<Json> =>
  (await call(who, 'GET', `/v2/order?market=BTC-EUR&orderId=${orderId}`)).json

/** Waits, at most 5 s, for `done`. */
async function until(done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!done() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
}

async function fundedAccount(email: string): Promise<{ accountId: number }> {
  const account = await server.accounts.createAccount(email, 'a long enough password')
  await server.service.submit({
    type: 'deposit',
    timestamp: nowMs(),
    accountId: account.id,
    asset: 'EUR',
    amount: toLedgerUnits(10_000, 0).toString(),
    reference: `seed-${email}`,
    txId: `sandbox-${email}`,
  })
  return { accountId: account.id }
}

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, simulator: false },
    testListing,
    { nowMs },
  )
  baseUrl = await server.listen()
  server.cancelOnDisconnect.stop() // the tests drive it with the clock
  const mine = await fundedAccount('cod@example.com')
  trader = await server.accounts.createApiKey(mine.accountId, ['view', 'trade'])
  viewer = await server.accounts.createApiKey(mine.accountId, ['view'])
  const theirs = await fundedAccount('cod-other@example.com')
  otherAccountId = theirs.accountId
  other = await server.accounts.createApiKey(theirs.accountId, ['view', 'trade'])
})
afterAll(() => server.close())

describe('POST /v2/cancelOrdersAfter', () => {
  it('starts a countdown and answers with its group and its end in seconds', async () => {
    const before = nowMs()
    const armed = await armGroup(trader, 1, 30)
    expect(armed.status).toBe(200)
    expect(armed.json).toEqual({ codGroupId: 1, timeOfExpirySeconds: expect.any(Number) })
    const endMs = armed.json.timeOfExpirySeconds * 1000
    expect(endMs).toBeGreaterThanOrEqual(Math.floor((before + 30_000) / 1000) * 1000)
    expect(endMs).toBeLessThanOrEqual(nowMs() + 30_000)
    await armGroup(trader, 1, 0) // stopped, so that the countdowns below are the only ones
  })

  it('refuses a bad group or countdown with 205 and a missing one with 203, changing nothing', async () => {
    for (const [codGroupId, seconds] of [
      [0, 30],
      [1001, 30],
      [1.5, 30],
      ['one', 30],
      [2, 9],
      [2, 301],
      [2, -1],
    ]) {
      const refused = await armGroup(trader, codGroupId, seconds)
      expect(refused.status, `${codGroupId} ${seconds}`).toBe(400)
      expect(refused.json.errorCode, `${codGroupId} ${seconds}`).toBe(205)
    }
    const missing = await call(trader, 'POST', '/v2/cancelOrdersAfter', { codGroupId: 2 })
    expect(missing.json.errorCode).toBe(203)
    const unknown = await call(trader, 'POST', '/v2/cancelOrdersAfter', {
      codGroupId: 2,
      expiryAfterSeconds: 30,
      market: 'BTC-EUR',
    })
    expect(unknown.json.errorCode).toBe(201)
    // None of these armed group 2.
    expect((await buy(trader, '100', 2)).json).toMatchObject({ errorCode: 205 })
  })

  it('needs a signed request from a key with the trade permission', async () => {
    const anonymous = await fetch(`${baseUrl}/v2/cancelOrdersAfter`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ codGroupId: 1, expiryAfterSeconds: 30 }),
    })
    expect(((await anonymous.json()) as Json).errorCode).toBe(300)
    expect((await armGroup(viewer, 1, 30)).json.errorCode).toBe(310)
  })
})

describe('orders in a cancel-on-disconnect group', () => {
  it('are refused while the group has no countdown (205), and for market orders (202)', async () => {
    const notArmed = await buy(trader, '100', 9)
    expect(notArmed.status).toBe(400)
    expect(notArmed.json).toMatchObject({ errorCode: 205 })
    expect(notArmed.json.error).toContain('codGroupId')
    await armGroup(trader, 9, 60)
    const market = await call(trader, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'market',
      amountQuote: '10',
      operatorId: 1,
      codGroupId: 9,
    })
    expect(market.json).toMatchObject({ errorCode: 202 })
    // Another account's countdown does not cover this one's orders.
    expect((await buy(other, '100', 9)).json).toMatchObject({ errorCode: 205 })
    await armGroup(trader, 9, 0)
  })

  it('stay while their client restarts the countdown, and go once it runs out: theirs only, with the reason', async () => {
    await armGroup(trader, 3, 30)
    await armGroup(other, 3, 30)
    const inGroup = (await buy(trader, '101', 3)).json
    const outside = (await buy(trader, '102')).json
    const theirs = (await buy(other, '103', 3)).json
    expect(inGroup.status).toBe('new')
    expect(Number(inGroup.onHold)).toBeGreaterThan(0)
    await armGroup(other, 3, 300) // the other account keeps its countdown going

    // The clock runs on as well (the requests above take real time): seconds of room for a
    // slow machine on either side.
    offsetMs += 25_000
    expect(await server.cancelOnDisconnect.tick()).toBe(0)
    const restarted = await armGroup(trader, 3, 30) // restarted 5 s before the end
    expect(restarted.status).toBe(200)
    offsetMs += 29_000 // 54 s after the start: past the first end, before the new one
    expect(await server.cancelOnDisconnect.tick()).toBe(0)
    expect((await order(trader, inGroup.orderId)).status).toBe('new')

    offsetMs += 5_000
    expect(await server.cancelOnDisconnect.tick()).toBe(1)
    expect(await server.cancelOnDisconnect.tick()).toBe(0) // once
    expect(await order(trader, inGroup.orderId)).toMatchObject({
      status: 'canceled',
      restatementReason: 'cancelOnDisconnect',
      onHold: '0.00',
    })
    expect((await order(trader, outside.orderId)).status).toBe('new')
    expect((await order(other, theirs.orderId)).status).toBe('new')
    // The group needs a new countdown before it takes orders again.
    expect((await buy(trader, '100', 3)).json).toMatchObject({ errorCode: 205 })
    expect((await armGroup(trader, 3, 10)).status).toBe(200)
    expect((await buy(trader, '100', 3)).json.status).toBe('new')
    await armGroup(trader, 3, 0)
  })

  it('never trade after their deadline: the next command carries the countdown out first', async () => {
    await server.service.submit({
      type: 'deposit',
      timestamp: nowMs(),
      accountId: otherAccountId,
      asset: 'BTC',
      amount: toLedgerUnits(1, 0).toString(),
      reference: 'cod-other-btc',
      txId: 'sandbox-cod-other-btc',
    })
    await armGroup(trader, 5, 10)
    const resting = (await buy(trader, '120', 5)).json
    expect(resting.status).toBe('new')
    offsetMs += 10_000 // the countdown's end, and the task has not run
    // The group takes no new order, and its resting one cannot be sold into any more.
    expect((await buy(trader, '119', 5)).json).toMatchObject({ errorCode: 205 })
    const sell = await call(other, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      amount: '0.1',
      price: '120',
      operatorId: 1,
    })
    expect(sell.json).toMatchObject({ status: 'new', filledAmount: '0.00000000' })
    expect(await order(trader, resting.orderId)).toMatchObject({
      status: 'canceled',
      restatementReason: 'cancelOnDisconnect',
      filledAmount: '0.00000000',
    })
    expect(await server.cancelOnDisconnect.tick()).toBe(0) // carried out already
    const canceled = await call(
      other,
      'DELETE',
      `/v2/order?market=BTC-EUR&orderId=${sell.json.orderId}&operatorId=1`,
    )
    expect(canceled.status).toBe(200)
    server.service.core.ledger.checkInvariant()
  })

  it('go together when several countdowns run out at once, told on the account channel', async () => {
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const messages: Json[] = []
    ws.on('message', (data) => messages.push(JSON.parse(data.toString())))
    await new Promise((resolve) => ws.once('open', resolve))
    ws.send(JSON.stringify(authenticateRequest(trader, nowMs())))
    ws.send(
      JSON.stringify({
        action: 'subscribe',
        channels: [{ name: 'account', markets: ['BTC-EUR'] }],
      }),
    )
    await until(() => messages.some((message) => message.event === 'subscribed'))
    await armGroup(trader, 6, 10)
    await armGroup(trader, 7, 10)
    const sixth = (await buy(trader, '97', 6)).json
    const seventh = (await buy(trader, '96', 7)).json
    offsetMs += 11_000
    expect(await server.cancelOnDisconnect.tick()).toBe(2)
    for (const one of [sixth, seventh])
      expect((await order(trader, one.orderId)).restatementReason).toBe('cancelOnDisconnect')
    const canceledEvent = (one: Json) => (message: Json) =>
      message.event === 'order' &&
      message.orderId === one.orderId &&
      message.status === 'canceled' &&
      message.restatementReason === 'cancelOnDisconnect'
    await until(() => [sixth, seventh].every((one) => messages.some(canceledEvent(one))))
    for (const one of [sixth, seventh]) expect(messages.some(canceledEvent(one))).toBe(true)
    ws.close()
  })

  it('stay when their countdown is stopped with 0 seconds', async () => {
    await armGroup(trader, 4, 10)
    const kept = (await buy(trader, '98', 4)).json
    const stopped = await armGroup(trader, 4, 0)
    expect(stopped.json).toEqual({ codGroupId: 4, timeOfExpirySeconds: 0 })
    offsetMs += 60_000
    await server.cancelOnDisconnect.tick()
    expect((await order(trader, kept.orderId)).status).toBe('new')
    expect((await buy(trader, '98', 4)).json).toMatchObject({ errorCode: 205 })
  })
})

describe('a countdown across kill -9', () => {
  const servers = serverProcesses('polder-cod-')

  it('survives the kill and the restart, then cancels its group when it runs out', async () => {
    const first = await servers.startTestServer()
    const { buyer } = await buyerAndSeller(first, {
      buyerEmail: 'cod-buyer@example.com',
      eur: '10000',
      sellerEmail: 'cod-seller@example.com',
      btc: '1',
    })
    const signed = async (url: string, method: string, path: string, body?: unknown) =>
      (await signedRequest(url, buyer, method, path, { body })).json
    // Long enough for the kill and a restart on a busy machine, short enough to wait for.
    const armed = await signed(first.url, 'POST', '/v2/cancelOrdersAfter', {
      codGroupId: 5,
      expiryAfterSeconds: 20,
    })
    const inGroup = await signed(first.url, 'POST', '/v2/order', limitBuy('100', 5))
    const outside = await signed(first.url, 'POST', '/v2/order', limitBuy('101'))
    expect(inGroup.status).toBe('new')
    await first.stop('SIGKILL')

    const second = await servers.startTestServer()
    const get = (orderId: string) =>
      signed(second.url, 'GET', `/v2/order?market=BTC-EUR&orderId=${orderId}`)
    // Back before the end: the group still takes orders, and its order still rests.
    expect(Date.now()).toBeLessThan(armed.timeOfExpirySeconds * 1000)
    expect((await get(inGroup.orderId)).status).toBe('new')
    const waitMs = armed.timeOfExpirySeconds * 1000 + 1_000 - Date.now()
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, waitMs)))
    let canceled: Json
    for (let tries = 0; tries < 40; tries += 1) {
      canceled = await get(inGroup.orderId)
      if (canceled.status !== 'new') break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    expect(canceled).toMatchObject({ status: 'canceled', restatementReason: 'cancelOnDisconnect' })
    expect((await get(outside.orderId)).status).toBe('new')
    const eur = (await signed(second.url, 'GET', '/v2/balance?symbol=EUR'))[0]
    expect(Number(eur.inOrder)).toBeGreaterThan(0) // the order outside the group still holds
    expect(Number(eur.inOrder)).toBeLessThan(10.2) // 0.1 BTC at 101 EUR plus the fee, no more
    await second.stop('SIGTERM')
  }, 60_000)
})
