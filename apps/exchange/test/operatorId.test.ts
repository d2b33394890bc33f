// operatorId is an int64 (protocol §4.1; §8: "accept any integer including 0"): any integer a
// JSON number carries exactly, ±(2^53 − 1), negative ones too (they were refused), echoed as sent
// over POST and DELETE; one past it is refused with 205 by the schema, as by the engine, since
// it could not be echoed as sent (2^53 + 1 reads as 2^53).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader, type Trader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let alice: Trader

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
  alice = await createTrader(server, 'alice@example.com', { EUR: '100000' })
})
afterAll(async () => {
  await server.close()
})

const place = (operatorId: unknown) =>
  signedRequest(baseUrl, alice, 'POST', '/v2/order', {
    body: {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.01',
      price: '40000',
      operatorId,
    },
  })

describe('operatorId (int64)', () => {
  it('takes any integer within ±(2^53 − 1), negative ones too, and echoes it', async () => {
    for (const operatorId of [-1, 0, 2 ** 53 - 1, -(2 ** 53 - 1)]) {
      const placed = await place(operatorId)
      expect(placed.status).toBe(200)
      expect(placed.json.operatorId).toBe(operatorId)
    }
    const placed = await place(7)
    const canceled = await signedRequest(
      baseUrl,
      alice,
      'DELETE',
      `/v2/order?market=BTC-EUR&orderId=${placed.json.orderId}&operatorId=-5`,
    )
    expect(canceled.json).toMatchObject({ orderId: placed.json.orderId, operatorId: -5 })
  })

  it('refuses one past it, or not an integer, with 205', async () => {
    for (const operatorId of [2 ** 53, 2 ** 62, -(2 ** 53), 1.5, 'x']) {
      const refused = await place(operatorId)
      expect(refused.json).toEqual({ errorCode: 205, error: 'operatorId parameter is invalid.' })
    }
  })
})
