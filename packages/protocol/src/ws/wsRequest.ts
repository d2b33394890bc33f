import { z } from 'zod'
import type { IssueErrorCode } from '../errors/ValidationError.ts'
import { candleInterval, marketId } from '../primitives.ts'
import * as account from '../rest/account.ts'
import * as marketData from '../rest/marketData.ts'
import * as orders from '../rest/orders.ts'
import { accessWindowMs, apiKey, authTimestampMs, signatureHex } from '../rest/restAuthHeaders.ts'
import { endWithinOneDayOfStart } from '../rest/timeWindow.ts'

// WebSocket requests (protocol §6.1, §6.2): one flat JSON object with `action`, an optional
// integer `requestId` and the action's parameters at the top level; the parameters are those of
// the REST equivalent (path parameters included, e.g. `market` for getBook). Strict: an unknown
// parameter fails with 204, an unknown action with 415.

/**
 * `requestId`: an integer JSON number. ccxt sends ~17 digits (beyond 2^53), so after JSON.parse
 * the value may already be rounded: the schema accepts any integral number, and a server echoes
 * the raw token from the message text rather than the parsed number, and refuses an id it cannot
 * echo faithfully (see `requestIdEcho` and `encodeWsMessage`).
 */
export const requestId = z
  .number({ error: 'expected an integer requestId' })
  .refine((value) => Number.isInteger(value) && value >= 0, {
    error: 'expected an integer requestId',
  })

/** Most channels one subscribe or unsubscribe may list. */
export const channelsPerRequestMax = 16
/** Most markets one channel entry may list. */
export const marketsPerChannelMax = 1000

function actionBase<const Action extends string>(action: Action) {
  return { action: z.literal(action), requestId: requestId.optional() }
}

// --- authenticate (§2.2) -----------------------------------------------------------------------

/** Signature: HMAC-SHA256 hex over `timestamp + 'GET' + '/v2/websocket'`. */
/**
 * A browser session token from Polder's login (`POST /exchange/auth/v1/login`): the trading app
 * authenticates its socket with it instead of an API key signature (a Polder extension; API
 * clients keep using key + signature). An expired or revoked session is error 313.
 */
export const sessionToken = z
  .string()
  .regex(/^[A-Za-z0-9_-]{20,128}$/, { error: 'expected a session token' })

export const authenticateRequest = z
  .strictObject({
    ...actionBase('authenticate'),
    key: apiKey.optional(),
    signature: signatureHex.optional(),
    timestamp: authTimestampMs.optional(),
    /** Default 10000; the SDK sends it, ccxt does not. */
    window: accessWindowMs.optional(),
    token: sessionToken.optional(),
  })
  .superRefine((value, context) => {
    const issue = (errorCode: number, param: string, message: string, extra = {}) => {
      const params: IssueErrorCode = { errorCode, messageParams: { param, ...extra } }
      context.addIssue({ code: 'custom', path: [param], message, params })
    }
    if (value.token !== undefined) {
      if (value.key !== undefined || value.signature !== undefined) {
        issue(206, 'token', 'use either a session token or an API key signature', {
          a: 'token',
          b: 'key',
        })
      }
      return
    }
    for (const field of ['key', 'signature', 'timestamp'] as const) {
      if (value[field] === undefined) issue(203, field, 'required')
    }
  })
export type AuthenticateRequest = z.infer<typeof authenticateRequest>

// --- subscribe / unsubscribe (§6.3) -----------------------------------------------------------

const marketList = z.array(marketId).min(1).max(marketsPerChannelMax)

export const bookChannel = z.strictObject({ name: z.literal('book'), markets: marketList })
export const tickerChannel = z.strictObject({ name: z.literal('ticker'), markets: marketList })
export const ticker24hChannel = z.strictObject({
  name: z.literal('ticker24h'),
  markets: marketList,
})
export const tradesChannel = z.strictObject({ name: z.literal('trades'), markets: marketList })
export const candlesChannel = z.strictObject({
  name: z.literal('candles'),
  interval: z.array(candleInterval).min(1).max(candleInterval.options.length),
  markets: marketList,
})
/** Needs an authenticated socket. `"*"` subscribes to every market. */
export const accountChannel = z.strictObject({
  name: z.literal('account'),
  markets: z.union([marketList, z.literal('*')]),
})

export const subscriptionChannel = z.discriminatedUnion('name', [
  tickerChannel,
  ticker24hChannel,
  tradesChannel,
  bookChannel,
  candlesChannel,
  accountChannel,
])
export type SubscriptionChannel = z.infer<typeof subscriptionChannel>

const channels = z.array(subscriptionChannel).min(1).max(channelsPerRequestMax)

export const subscribeRequest = z.strictObject({ ...actionBase('subscribe'), channels })
export type SubscribeRequest = z.infer<typeof subscribeRequest>
export const unsubscribeRequest = z.strictObject({ ...actionBase('unsubscribe'), channels })
export type UnsubscribeRequest = z.infer<typeof unsubscribeRequest>

// --- actions with a REST equivalent (§6.2) ------------------------------------------------------

const market = { market: marketId }

export const getTimeRequest = z.strictObject({ ...actionBase('getTime') })
export const getMarketsRequest = z.strictObject({
  ...actionBase('getMarkets'),
  ...marketData.marketsRequest.shape,
})
export const getAssetsRequest = z.strictObject({
  ...actionBase('getAssets'),
  ...marketData.assetsRequest.shape,
})
export const getBookRequest = z.strictObject({
  ...actionBase('getBook'),
  ...market,
  ...marketData.bookRequest.shape,
})
/** Public trades (the SDK emits them as 'publicTrades'). */
export const getTradesRequest = z
  .strictObject({ ...actionBase('getTrades'), ...market, ...marketData.publicTradesRequest.shape })
  .superRefine(endWithinOneDayOfStart)
export const getCandlesRequest = z.strictObject({
  ...actionBase('getCandles'),
  ...market,
  ...marketData.candlesRequest.shape,
})
export const getTicker24hRequest = z.strictObject({
  ...actionBase('getTicker24h'),
  ...marketData.tickerRequest.shape,
})
export const getTickerPriceRequest = z.strictObject({
  ...actionBase('getTickerPrice'),
  ...marketData.tickerRequest.shape,
})
export const getTickerBookRequest = z.strictObject({
  ...actionBase('getTickerBook'),
  ...marketData.tickerRequest.shape,
})
export const privateCreateOrderRequest = orders.withCreateOrderRules(
  actionBase('privateCreateOrder'),
)
export const privateUpdateOrderRequest = orders.withUpdateOrderRules(
  actionBase('privateUpdateOrder'),
)
export const privateGetOrderRequest = orders.withOrderIdentifierRule({
  ...actionBase('privateGetOrder'),
  ...orders.getOrderShape,
})
export const privateCancelOrderRequest = orders.withOrderIdentifierRule({
  ...actionBase('privateCancelOrder'),
  ...orders.cancelOrderShape,
})
export const privateGetOrdersRequest = z
  .strictObject({ ...actionBase('privateGetOrders'), ...orders.ordersShape })
  .superRefine(endWithinOneDayOfStart)
export const privateCancelOrdersRequest = z.strictObject({
  ...actionBase('privateCancelOrders'),
  ...orders.cancelOrdersShape,
})
export const privateGetOrdersOpenRequest = z.strictObject({
  ...actionBase('privateGetOrdersOpen'),
  ...orders.ordersOpenShape,
})
/** Your own trades. */
export const privateGetTradesRequest = z
  .strictObject({ ...actionBase('privateGetTrades'), ...orders.tradesShape })
  .superRefine(endWithinOneDayOfStart)
export const privateGetAccountRequest = z.strictObject({ ...actionBase('privateGetAccount') })
export const privateGetFeesRequest = z.strictObject({
  ...actionBase('privateGetFees'),
  ...account.feesShape,
})
export const privateGetBalanceRequest = z.strictObject({
  ...actionBase('privateGetBalance'),
  ...account.balanceShape,
})
export const privateDepositAssetsRequest = z.strictObject({
  ...actionBase('privateDepositAssets'),
  ...account.depositShape,
})
export const privateWithdrawAssetsRequest = z.strictObject({
  ...actionBase('privateWithdrawAssets'),
  ...account.withdrawalShape,
})
export const privateGetDepositHistoryRequest = z.strictObject({
  ...actionBase('privateGetDepositHistory'),
  ...account.transferHistoryShape,
})
export const privateGetWithdrawalHistoryRequest = z.strictObject({
  ...actionBase('privateGetWithdrawalHistory'),
  ...account.transferHistoryShape,
})
export const privateGetTransactionHistoryRequest = z.strictObject({
  ...actionBase('privateGetTransactionHistory'),
  ...account.accountHistoryShape,
})

/** Every WebSocket request, by action. */
export const wsRequests = {
  authenticate: authenticateRequest,
  getTime: getTimeRequest,
  getMarkets: getMarketsRequest,
  getAssets: getAssetsRequest,
  getBook: getBookRequest,
  getTrades: getTradesRequest,
  getCandles: getCandlesRequest,
  getTicker24h: getTicker24hRequest,
  getTickerPrice: getTickerPriceRequest,
  getTickerBook: getTickerBookRequest,
  privateCreateOrder: privateCreateOrderRequest,
  privateUpdateOrder: privateUpdateOrderRequest,
  privateGetOrder: privateGetOrderRequest,
  privateCancelOrder: privateCancelOrderRequest,
  privateGetOrders: privateGetOrdersRequest,
  privateCancelOrders: privateCancelOrdersRequest,
  privateGetOrdersOpen: privateGetOrdersOpenRequest,
  privateGetTrades: privateGetTradesRequest,
  privateGetAccount: privateGetAccountRequest,
  privateGetFees: privateGetFeesRequest,
  privateGetBalance: privateGetBalanceRequest,
  privateDepositAssets: privateDepositAssetsRequest,
  privateWithdrawAssets: privateWithdrawAssetsRequest,
  privateGetDepositHistory: privateGetDepositHistoryRequest,
  privateGetWithdrawalHistory: privateGetWithdrawalHistoryRequest,
  privateGetTransactionHistory: privateGetTransactionHistoryRequest,
  subscribe: subscribeRequest,
  unsubscribe: unsubscribeRequest,
} as const

export type WsAction = keyof typeof wsRequests

/** Every action name of protocol §6.2, in the order of its table. */
export const wsActions = Object.keys(wsRequests) as WsAction[]

/** Any WebSocket request, discriminated by `action`. An unknown action fails with 415. */
export const wsRequest = z.discriminatedUnion('action', [
  authenticateRequest,
  getTimeRequest,
  getMarketsRequest,
  getAssetsRequest,
  getBookRequest,
  getTradesRequest,
  getCandlesRequest,
  getTicker24hRequest,
  getTickerPriceRequest,
  getTickerBookRequest,
  privateCreateOrderRequest,
  privateUpdateOrderRequest,
  privateGetOrderRequest,
  privateCancelOrderRequest,
  privateGetOrdersRequest,
  privateCancelOrdersRequest,
  privateGetOrdersOpenRequest,
  privateGetTradesRequest,
  privateGetAccountRequest,
  privateGetFeesRequest,
  privateGetBalanceRequest,
  privateDepositAssetsRequest,
  privateWithdrawAssetsRequest,
  privateGetDepositHistoryRequest,
  privateGetWithdrawalHistoryRequest,
  privateGetTransactionHistoryRequest,
  subscribeRequest,
  unsubscribeRequest,
])
export type WsRequest = z.input<typeof wsRequest>
export type ParsedWsRequest = z.output<typeof wsRequest>

/** Actions that need an authenticated socket (300 otherwise). */
export function isPrivateWsAction(action: WsAction): boolean {
  return action.startsWith('private')
}
