import { z } from 'zod'
import type { ProtocolErrorReply } from '../errors/errorCatalogue.ts'
import { restEndpoints } from '../rest/restEndpoints.ts'
import { requestId } from './wsRequest.ts'

// Replies to WebSocket actions (protocol §6.1): `{action, requestId?, response}` where the
// response is the REST response body, or `{action, requestId?, errorCode, error, ...echoed}`.
// A reply never carries a top-level `error` key unless it is an error: both clients branch on
// `error` first.

/** Build the reply envelope of one action around its response schema. */
export function wsResponseEnvelope<const Action extends string, Response extends z.ZodType>(
  action: Action,
  response: Response,
) {
  return z.object({
    action: z.literal(action),
    requestId: requestId.optional(),
    response,
    error: z.never({ error: 'a reply carries no error key' }).optional(),
  })
}

const r = restEndpoints

/** The response schema of every action that has one (subscribe and authenticate answer with events). */
export const wsResponses = {
  getTime: r['GET /time'].response,
  getMarkets: r['GET /markets'].response,
  getAssets: r['GET /assets'].response,
  getBook: r['GET /{market}/book'].response,
  getTrades: r['GET /{market}/trades'].response,
  getCandles: r['GET /{market}/candles'].response,
  getTicker24h: r['GET /ticker/24h'].response,
  getTickerPrice: r['GET /ticker/price'].response,
  getTickerBook: r['GET /ticker/book'].response,
  privateCreateOrder: r['POST /order'].response,
  privateUpdateOrder: r['PUT /order'].response,
  privateGetOrder: r['GET /order'].response,
  privateCancelOrder: r['DELETE /order'].response,
  privateGetOrders: r['GET /orders'].response,
  privateCancelOrders: r['DELETE /orders'].response,
  privateGetOrdersOpen: r['GET /ordersOpen'].response,
  privateGetTrades: r['GET /trades'].response,
  privateGetAccount: r['GET /account'].response,
  privateGetFees: r['GET /account/fees'].response,
  privateGetBalance: r['GET /balance'].response,
  privateDepositAssets: r['GET /deposit'].response,
  privateWithdrawAssets: r['POST /withdrawal'].response,
  privateGetDepositHistory: r['GET /depositHistory'].response,
  privateGetWithdrawalHistory: r['GET /withdrawalHistory'].response,
  privateGetTransactionHistory: r['GET /account/history'].response,
} as const

export type WsResponseAction = keyof typeof wsResponses

/** Any action reply, discriminated by `action`. */
export const wsResponse = z.discriminatedUnion('action', [
  wsResponseEnvelope('getTime', wsResponses.getTime),
  wsResponseEnvelope('getMarkets', wsResponses.getMarkets),
  wsResponseEnvelope('getAssets', wsResponses.getAssets),
  wsResponseEnvelope('getBook', wsResponses.getBook),
  wsResponseEnvelope('getTrades', wsResponses.getTrades),
  wsResponseEnvelope('getCandles', wsResponses.getCandles),
  wsResponseEnvelope('getTicker24h', wsResponses.getTicker24h),
  wsResponseEnvelope('getTickerPrice', wsResponses.getTickerPrice),
  wsResponseEnvelope('getTickerBook', wsResponses.getTickerBook),
  wsResponseEnvelope('privateCreateOrder', wsResponses.privateCreateOrder),
  wsResponseEnvelope('privateUpdateOrder', wsResponses.privateUpdateOrder),
  wsResponseEnvelope('privateGetOrder', wsResponses.privateGetOrder),
  wsResponseEnvelope('privateCancelOrder', wsResponses.privateCancelOrder),
  wsResponseEnvelope('privateGetOrders', wsResponses.privateGetOrders),
  wsResponseEnvelope('privateCancelOrders', wsResponses.privateCancelOrders),
  wsResponseEnvelope('privateGetOrdersOpen', wsResponses.privateGetOrdersOpen),
  wsResponseEnvelope('privateGetTrades', wsResponses.privateGetTrades),
  wsResponseEnvelope('privateGetAccount', wsResponses.privateGetAccount),
  wsResponseEnvelope('privateGetFees', wsResponses.privateGetFees),
  wsResponseEnvelope('privateGetBalance', wsResponses.privateGetBalance),
  wsResponseEnvelope('privateDepositAssets', wsResponses.privateDepositAssets),
  wsResponseEnvelope('privateWithdrawAssets', wsResponses.privateWithdrawAssets),
  wsResponseEnvelope('privateGetDepositHistory', wsResponses.privateGetDepositHistory),
  wsResponseEnvelope('privateGetWithdrawalHistory', wsResponses.privateGetWithdrawalHistory),
  wsResponseEnvelope('privateGetTransactionHistory', wsResponses.privateGetTransactionHistory),
])
export type WsResponse = z.output<typeof wsResponse>

/**
 * An error reply. Echoed request fields (e.g. `market`) pass through. The newest docs add
 * `event: "error"`; older docs and both clients work without it.
 */
export const wsErrorEnvelope = z.looseObject({
  action: z.string(),
  requestId: requestId.optional(),
  errorCode: z.int(),
  error: z.string(),
  event: z.literal('error').optional(),
})
export type WsErrorEnvelope = z.output<typeof wsErrorEnvelope>

/** The error reply to an action, from a `protocolError(...)` or a `ValidationError`. */
export function wsErrorReply(
  action: string,
  reply: Pick<ProtocolErrorReply, 'body'>,
  requestIdValue?: number,
): WsErrorEnvelope {
  return requestIdValue === undefined
    ? { action, ...reply.body }
    : { action, requestId: requestIdValue, ...reply.body }
}
