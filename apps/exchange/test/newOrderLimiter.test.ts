// The protocol's new-order limit (§2.3, error 104): so many new orders a second and a day per
// account, refused with 104 past either, over REST and the WebSocket alike.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { NewOrderLimiter } from '../src/limits/newOrderLimiter.ts'
import type { ExchangeServer } from '../src/server.ts'
import { openRecordingSocket } from './fixtures/recordingSocket.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

describe('NewOrderLimiter', () => {
  it('allows so many a second and so many a day, per account', () => {
    const limiter = new NewOrderLimiter({ perSecondMax: 2, perDayMax: 3 })
    const day = 86_400_000 * 20_000
    expect([1, 2, 3].map(() => limiter.allow(1, day + 10))).toEqual([true, true, false])
    expect(limiter.allow(2, day + 10)).toBe(true)
    expect(limiter.allow(1, day + 1_000)).toBe(true)
    // The day's three are spent: the next second does not help, the next day does.
    expect(limiter.allow(1, day + 2_000)).toBe(false)
    expect(limiter.allow(1, day + 86_400_000)).toBe(true)
    // The accounts of past days are forgotten as a new day comes; a clock stepping back into
    // the past second gives no fresh count.
    expect(limiter.accounts).toBe(1)
    expect(limiter.allow(1, day + 86_400_000)).toBe(true)
    expect(limiter.allow(1, day + 86_400_000 - 1)).toBe(false)
  })
})

let server: ExchangeServer
let baseUrl: string
let trader: Trader
let nowMs = Date.now()

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer(
    { newOrdersPerSecondMax: 3 },
    { nowMs: () => nowMs },
  ))
  trader = await createTrader(server, 'limited@example.com', { EUR: '10000' })
})
afterAll(() => server.close())

const order = { market: 'BTC-EUR', side: 'buy', orderType: 'limit', amount: '0.01', price: '1000' }

describe('over the wire', () => {
  it('answers 104 past the limit, over REST and the WebSocket, until the next second', async () => {
    nowMs = Math.ceil(nowMs / 1_000) * 1_000 + 100
    const place = () =>
      signedRequest(baseUrl, trader, 'POST', '/v2/order', { body: order, timestampMs: nowMs })
    for (let index = 0; index < 2; index += 1) expect((await place()).status).toBe(200)
    const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const authenticated = socket.next((message) => message.event === 'authenticate')
    socket.ws.send(JSON.stringify(authenticateRequest(trader, nowMs)))
    await authenticated
    const create = (requestId: number) => {
      const reply = socket.next((message) => message.requestId === requestId)
      socket.ws.send(JSON.stringify({ action: 'privateCreateOrder', requestId, ...order }))
      return reply
    }
    expect(await create(1)).toMatchObject({ response: { status: 'new' } })
    expect(await create(2)).toMatchObject({ action: 'privateCreateOrder', errorCode: 104 })
    const refused = await place()
    expect(refused.status).toBe(429)
    expect(refused.json).toEqual({
      errorCode: 104,
      error:
        'You have been rate limited by the number of new orders. The limit is 100 new orders per second or 100000 new orders per day.',
    })
    nowMs += 1_000
    expect((await place()).status).toBe(200)
    socket.ws.close()
  })
})
