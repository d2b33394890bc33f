import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  errorCatalogue,
  errorCodes,
  type RestEndpoint,
  restEndpoints,
  specSocketActions,
  specSocketEvents,
  webEndpoints,
  wsActions,
  wsEventSchemas,
  wsEvents,
  wsRequests,
  wsResponses,
} from '../src/index.ts'

// The lists below are copied by hand from the documents, so that a schema missing from the
// package (or a name changed in it) fails here.

/** protocol §6.2, every row of the action table. */
const protocolActions = [
  'authenticate',
  'getTime',
  'getMarkets',
  'getAssets',
  'getBook',
  'getTrades',
  'getCandles',
  'getTicker24h',
  'getTickerPrice',
  'getTickerBook',
  'privateCreateOrder',
  'privateUpdateOrder',
  'privateGetOrder',
  'privateCancelOrder',
  'privateGetOrders',
  'privateCancelOrders',
  'privateGetOrdersOpen',
  'privateGetTrades',
  'privateGetAccount',
  'privateGetFees',
  'privateGetBalance',
  'privateDepositAssets',
  'privateWithdrawAssets',
  'privateGetDepositHistory',
  'privateGetWithdrawalHistory',
  'privateGetTransactionHistory',
  'subscribe',
  'unsubscribe',
]

/** protocol §6.3, every event of the payload table. */
const protocolEvents = [
  'subscribed',
  'unsubscribed',
  'ticker',
  'ticker24h',
  'trade',
  'book',
  'candle',
  'order',
  'fill',
  'authenticate',
]

/** protocol §3.1 and §3.2, every row (the report row is two endpoints). */
const protocolRestEndpoints = [
  'GET /time',
  'GET /markets',
  'GET /assets',
  'GET /{market}/book',
  'GET /{market}/trades',
  'GET /{market}/candles',
  'GET /ticker/price',
  'GET /ticker/book',
  'GET /ticker/24h',
  'GET /report/{market}/book',
  'GET /report/{market}/trades',
  'POST /order',
  'PUT /order',
  'GET /order',
  'DELETE /order',
  'GET /orders',
  'DELETE /orders',
  'GET /ordersOpen',
  'GET /trades',
  'GET /account',
  'GET /account/fees',
  'GET /balance',
  'GET /deposit',
  'POST /withdrawal',
  'GET /depositHistory',
  'GET /withdrawalHistory',
  'GET /account/history',
  'POST /cancelOrdersAfter',
]

/** spec §7 web API table. */
const specWebCalls = [
  'GET /exchange/proxy/v3/markets/data',
  'GET /exchange/xp/v1/markets/price/candles',
  'GET /exchange/savings-plans/v1',
  'GET /exchange/savings-plans/v1/{id}',
  'POST /exchange/savings-plans/v1',
  'PATCH /exchange/savings-plans/v1/{id}',
  'DELETE /exchange/savings-plans/v1/{id}',
  'GET /exchange/savings-plans/v1/assets',
  'GET /exchange/savings-plans/v1/{id}/executions',
]

/** spec §7 "Actions sent" ("get24h ticker" is getTicker24h). */
const specActions = [
  'authenticate',
  'getAssets',
  'getMarkets',
  'getBook',
  'subscribeToBook',
  'unsubscribeFromBook',
  'getTrades',
  'privateGetTrades',
  'privateGetBalance',
  'privateGetOrdersOpen',
  'privateCreateOrder',
  'privateCancelOrder',
  'privateGetAccount',
  'getTime',
  'getTicker24h',
  'subscribe',
  'unsubscribe',
]

/** spec §7 "Events received" ("public update events" is update). */
const specEvents = [
  'update',
  'mobileUpdate',
  'ticker24h',
  'unsubscribed',
  'authenticate',
  'unauthenticate',
  'subscribed',
  'book',
  'order',
  'fill',
]

/** protocol §5, every code of the table (a/b rows expanded). */
const protocolErrorCodes = [
  101, 102, 103, 104, 105, 107, 108, 109, 110, 111, 112, 200, 201, 202, 203, 204, 205, 206, 210,
  211, 212, 213, 214, 215, 216, 217, 218, 219, 220, 230, 231, 232, 233, 234, 235, 236, 237, 238,
  239, 240, 300, 301, 302, 303, 304, 305, 306, 307, 308, 309, 310, 311, 312, 313, 315, 316, 317,
  318, 319, 320, 400, 401, 402, 403, 404, 405, 406, 407, 408, 409, 410, 411, 412, 413, 414, 415,
  419, 422, 423, 424, 425, 426, 429, 430, 431,
]

/** Polder's own codes beyond §5 (daily transfer limits, sign-up and login), after them. */
const polderErrorCodes = [440, 441, 442, 443, 444]

function isSchema(value: unknown): value is z.ZodType {
  return typeof value === 'object' && value !== null && 'safeParse' in value
}

describe('coverage of the documents', () => {
  it('every protocol §6.2 action has a request schema, and nothing else does', () => {
    expect([...wsActions].sort()).toEqual([...protocolActions].sort())
    for (const action of protocolActions) {
      expect(isSchema(wsRequests[action as keyof typeof wsRequests]), action).toBe(true)
    }
  })

  it('every action with a REST equivalent has a reply schema', () => {
    const replied = protocolActions.filter(
      (action) => !['authenticate', 'subscribe', 'unsubscribe'].includes(action),
    )
    expect(Object.keys(wsResponses).sort()).toEqual(replied.sort())
    const linked = Object.values(restEndpoints as Record<string, RestEndpoint>)
      .map((entry) => entry.wsAction)
      .filter((action) => action !== undefined)
    expect(linked.sort()).toEqual(replied.sort())
  })

  it('every protocol §6.3 event has a schema', () => {
    expect([...wsEvents].sort()).toEqual([...protocolEvents].sort())
    for (const name of protocolEvents) {
      expect(isSchema(wsEventSchemas[name as keyof typeof wsEventSchemas]), name).toBe(true)
    }
  })

  it('every protocol §3 endpoint has request and response schemas', () => {
    expect(Object.keys(restEndpoints).sort()).toEqual([...protocolRestEndpoints].sort())
    for (const [key, entry] of Object.entries(restEndpoints as Record<string, RestEndpoint>)) {
      expect(`${entry.method} ${entry.path}`).toBe(key)
      expect(isSchema(entry.request) && isSchema(entry.response), key).toBe(true)
      expect(entry.path.includes('{') === (entry.pathParams !== undefined), key).toBe(true)
    }
  })

  it('every spec §7 web call has request and response schemas', () => {
    expect(Object.keys(webEndpoints).sort()).toEqual([...specWebCalls].sort())
    for (const [key, entry] of Object.entries(webEndpoints)) {
      expect(`${entry.method} ${entry.path}`).toBe(key)
      expect(isSchema(entry.request) && isSchema(entry.response), key).toBe(true)
    }
  })

  it('every spec §7 socket action maps to a protocol action with a schema', () => {
    expect(Object.keys(specSocketActions).sort()).toEqual([...specActions].sort())
    for (const [name, entry] of Object.entries(specSocketActions)) {
      expect(protocolActions, name).toContain(entry.protocolAction)
      expect(isSchema(entry.request), name).toBe(true)
      expect(entry.response === undefined ? entry.replyEvent : 'response', name).toBeDefined()
    }
  })

  it('every spec §7 socket event has a schema', () => {
    expect(Object.keys(specSocketEvents).sort()).toEqual([...specEvents].sort())
    for (const [name, entry] of Object.entries(specSocketEvents)) {
      expect(isSchema(entry.schema), name).toBe(true)
      if (entry.protocolEvent !== undefined) {
        expect(entry.schema).toBe(wsEventSchemas[entry.protocolEvent])
      }
    }
  })

  it('every protocol §5 errorCode is in the catalogue with an HTTP status and a message, and only Polder codes beside them', () => {
    expect([...errorCodes]).toEqual([...protocolErrorCodes, ...polderErrorCodes])
    for (const code of [...protocolErrorCodes, ...polderErrorCodes]) {
      const entry = errorCatalogue[code as keyof typeof errorCatalogue]
      expect(entry.httpStatus, String(code)).toBeGreaterThanOrEqual(400)
      expect(entry.message.length, String(code)).toBeGreaterThan(0)
    }
  })
})
