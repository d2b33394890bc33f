// An order filled more times than the core keeps with it (its newest 1,000 to 2,000 fills): every
// read of the order over the wire still gives all its fills, oldest first, the earlier ones from
// the fill archive; while it rests, once it is closed, after a restart, and from the order
// archive once the core has let it go. On a data directory, so the archives are files.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { closedKeptMs, orderFillsKeptMax } from '../src/core/orderHistory.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { holdJournalWrites } from './fixtures/journalGate.ts'
import { askForManyTrades, manyTradesOrderId, serverWithManyTrades } from './fixtures/manyTrades.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { depositWhole, startTestServer } from './fixtures/testServer.ts'

type WireFill = { id: string; timestamp: number; amount: string; price: string; taker: boolean }
type WireOrder = { orderId: string; status: string; filledAmount: string; fills: WireFill[] }

const startMs = Date.UTC(2026, 10, 20, 12)
/** Past twice what the core keeps of one order, so it has let some go. */
const fillCount = orderFillsKeptMax * 2 + 50
const askId = manyTradesOrderId(0)
/** The fills' ids as the seller's ask got them: trade ids 1, 2, … (one trade a buy). */
const allIds = Array.from({ length: fillCount }, (_, at) => String(at + 1))

const dataDir = mkdtempSync(join(tmpdir(), 'polder-order-fills-'))
let server: ExchangeServer
let baseUrl: string
let sellerKey: ApiKey
let buyerId: number

beforeAll(async () => {
  // The ask keeps 0.001 BTC unfilled: it still rests after the buys.
  ;({ server, baseUrl, sellerKey, buyerId } = await serverWithManyTrades({
    count: fillCount,
    startMs,
    dataDir,
    askLeft: 1,
  }))
}, 120_000)
afterAll(async () => {
  await server?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const request = async (method: string, path: string, body?: unknown, at = baseUrl) => {
  const response = await signedRequest(at, sellerKey, method, path, { body })
  expect(response.status, JSON.stringify(response.json).slice(0, 300)).toBe(200)
  return response.json
}
const getOrder = (): Promise<WireOrder> =>
  request('GET', `/v2/order?market=BTC-EUR&orderId=${askId}`)

/** Every fill of the ask, oldest first, each for one buy of 0.001 BTC at 60,000 EUR. */
function expectAllFills(order: WireOrder) {
  expect(order.fills.map((fill) => fill.id)).toEqual(allIds)
  expect(new Set(order.fills.map((fill) => `${fill.amount} ${fill.price} ${fill.taker}`))).toEqual(
    new Set(['0.00100000 60000 false']),
  )
  expect(order.fills[0]!.timestamp).toBe(startMs + 1)
}

describe('an order filled more often than the core keeps', () => {
  it('is held with its newest fills, the earlier ones counted', () => {
    const held = server.service.core.history.order('BTC-EUR', askId)!
    expect(held.fills.length).toBeLessThanOrEqual(orderFillsKeptMax * 2)
    expect(held.earlierFills! + held.fills.length).toBe(fillCount)
    expect(held.fills.at(-1)!.fillId).toBe(fillCount)
  })

  it('while it rests: GET /order, GET /ordersOpen and an update answer all its fills', async () => {
    const order = await getOrder()
    expect(order.status).toBe('partiallyFilled')
    expectAllFills(order)
    const open: WireOrder[] = await request('GET', '/v2/ordersOpen?market=BTC-EUR')
    expect(open.map((listed) => listed.orderId)).toEqual([askId])
    expectAllFills(open[0]!)
    const updated: WireOrder = await request('PUT', '/v2/order', {
      market: 'BTC-EUR',
      orderId: askId,
      amountRemaining: '0.002',
      operatorId: 1,
    })
    expectAllFills(updated)
  })

  it('once closed, and after a restart: GET /order and GET /orders answer all its fills', async () => {
    await request('DELETE', `/v2/order?market=BTC-EUR&orderId=${askId}&operatorId=1`)
    const canceled = await getOrder()
    expect(canceled.status).toBe('canceled')
    expectAllFills(canceled)
    await server.close()
    server = await createExchangeServer(
      { ...defaultConfig, port: 0, logLevel: 'silent', dataDir, simulator: false },
      testListing,
      { nowMs: () => Date.now() },
    )
    baseUrl = await server.listen()
    expect(server.service.core.history.order('BTC-EUR', askId)!.earlierFills).toBeGreaterThan(0)
    expectAllFills(await getOrder())
    const listed: WireOrder[] = await request('GET', '/v2/orders?market=BTC-EUR')
    expect(listed.map((order) => order.orderId)).toEqual([askId])
    expectAllFills(listed[0]!)
  })

  it('from the order archive once the core has let it go', async () => {
    // An order event an hour after the seller's last: the core lets its closed orders go.
    const later = await server.service.submit({
      type: 'placeOrder',
      timestamp: Date.now() + closedKeptMs + 60_000,
      market: 'BTC-EUR',
      orderId: manyTradesOrderId(fillCount + 1),
      accountId: buyerId,
      side: 'buy',
      orderType: 'limit',
      amount: 100_000,
      price: 50_000,
      makerFeePpm: 1_500,
      takerFeePpm: 2_500,
    })
    expect(later.ok, JSON.stringify(later)).toBe(true)
    expect(server.service.core.history.order('BTC-EUR', askId)).toBeUndefined()
    const order = await getOrder()
    expect(order.status).toBe('canceled')
    expectAllFills(order)
    const listed: WireOrder[] = await request('GET', '/v2/orders?market=BTC-EUR')
    expectAllFills(listed[0]!)
  })
})

/**
 * Counts the calls of the server's `appliedDurable`, which every read of an order's archived
 * fills makes on arrival, before it joins the account's line.
 */
function countDurableWaits(server: ExchangeServer): { count: number } {
  const calls = { count: 0 }
  const appliedDurable = server.service.appliedDurable.bind(server.service)
  server.service.appliedDurable = () => {
    calls.count += 1
    return appliedDurable()
  }
  return calls
}

describe('an order filled past what the core keeps, those fills not yet durable', () => {
  it('is read once they are, with all its fills: GET /order and GET /ordersOpen wait for the commit, a fourth read under way is answered 108, an update reply waits its turn', async () => {
    // In memory, the buys applied at once and their journal commit held (a slow disk, a busy
    // database): the core has let the earlier fills go, the archive gets them at the commit.
    const { server: held, baseUrl: heldUrl } = await startTestServer({ simulator: false })
    try {
      const { sellerId, buy } = await askForManyTrades(held, {
        count: fillCount,
        startMs,
        askLeft: 1,
      })
      sellerKey = await held.accounts.createApiKey(sellerId, ['view', 'trade'])
      const release = holdJournalWrites(held)
      const buys = Array.from({ length: fillCount }, (_, at) => buy(at + 1))
      expect(held.service.core.history.order('BTC-EUR', askId)!.earlierFills).toBeGreaterThan(0)
      let answered = false
      const reads = Promise.all([
        request('GET', `/v2/order?market=BTC-EUR&orderId=${askId}`, undefined, heldUrl),
        request('GET', '/v2/ordersOpen?market=BTC-EUR', undefined, heldUrl),
      ]).finally(() => {
        answered = true
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(answered).toBe(false)
      release()
      expect((await Promise.all(buys)).every((outcome) => outcome.ok)).toBe(true)
      const [order, open] = await reads
      expectAllFills(order)
      expectAllFills(open[0])

      // Such reads go in the account's line of long reads, as its ledger's: a fourth under way
      // is answered 108 (try again). Five wait together for a commit held back, then read.
      const releaseAgain = holdJournalWrites(held)
      const deposit = depositWhole(held, sellerId, 'EUR', 1, startMs)
      const durableWaits = countDurableWaits(held)
      const five = Array.from({ length: 5 }, () =>
        signedRequest(heldUrl, sellerKey, 'GET', `/v2/order?market=BTC-EUR&orderId=${askId}`),
      )
      // All five wait for the commit before the line takes them (a fixed 500 ms was waited
      // before, which a slow machine under load may not keep to).
      await expect.poll(() => durableWaits.count, { timeout: 30_000 }).toBe(5)
      releaseAgain()
      await deposit
      const answers = await Promise.all(five)
      expect(answers.map((answer) => answer.status).sort()).toEqual([200, 200, 200, 503, 503])
      for (const answer of answers)
        if (answer.status === 200) expectAllFills(answer.json)
        else expect(answer.json.errorCode).toBe(108)

      // An update's reply is no read to try again: with three reads under way it waits its turn
      // and answers all the fills (it answered those the core holds; found by a review).
      const releaseThird = holdJournalWrites(held)
      const another = depositWhole(held, sellerId, 'EUR', 1, startMs + 1)
      durableWaits.count = 0
      const three = Array.from({ length: 3 }, () =>
        signedRequest(heldUrl, sellerKey, 'GET', `/v2/order?market=BTC-EUR&orderId=${askId}`),
      )
      await expect.poll(() => durableWaits.count, { timeout: 30_000 }).toBe(3)
      const update = signedRequest(heldUrl, sellerKey, 'PUT', '/v2/order', {
        body: { market: 'BTC-EUR', orderId: askId, price: '60001', operatorId: 1 },
      })
      await new Promise((resolve) => setTimeout(resolve, 300))
      releaseThird()
      await another
      const [updated, ...reads3] = await Promise.all([update, ...three])
      expect(updated!.status, JSON.stringify(updated!.json).slice(0, 300)).toBe(200)
      expectAllFills(updated!.json)
      for (const answer of reads3) expectAllFills(answer.json)
    } finally {
      await held.close()
    }
  })
})
