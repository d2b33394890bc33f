import type { z } from 'zod'
import type { Permission } from '../primitives.ts'
import * as account from './account.ts'
import * as marketData from './marketData.ts'
import * as orders from './orders.ts'

// The REST API of protocol §3 as data, so a server can be driven from it: route, auth, key
// permission (§2.1), rate-limit weight (§2.3), and the schemas of the parameters and response.

/** Every REST path below is relative to this prefix; the SDK signs it (protocol §2.1). */
export const restBasePath = '/v2'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/** A weight that depends on whether the request names a market (§2.3). */
export type MarketDependentWeight = { withMarket: number; withoutMarket: number }

export type RestEndpoint = {
  readonly method: HttpMethod
  /** Path template relative to `/v2`, e.g. `/{market}/book`. */
  readonly path: string
  /** `private` endpoints need a signed request (§2.1); the SDK signs public ones too. */
  readonly auth: 'public' | 'private'
  /** The key permission a private endpoint needs (310/311/312 when missing). */
  readonly permission: Permission
  /** Rate-limit weight points (§2.3). Docs first; ccxt's cost where the docs say N/A. */
  readonly weight: number | MarketDependentWeight
  /** Schema of the path parameters, when the template has any. */
  readonly pathParams: z.ZodType | undefined
  /** Where the parameters travel: the query string (GET, DELETE) or a JSON body (POST, PUT). */
  readonly requestIn: 'query' | 'body'
  /** Strict: an unknown parameter fails with 200 (query) or 201 (body). */
  readonly request: z.ZodType
  readonly response: z.ZodType
  /** The WebSocket action with the same parameters and response (§6.2), if any. */
  readonly wsAction: string | undefined
  /**
   * The name a server runs an endpoint without a WebSocket action under (never accepted on the
   * WebSocket, whose actions are §6.2's).
   */
  readonly restOnlyAction?: RestOnlyAction
  /** Listed by the protocol as optional for a server (no unified client method uses it). */
  readonly optional: boolean
}

function endpoint<const Entry extends Omit<RestEndpoint, 'optional'> & { optional?: boolean }>(
  entry: Entry,
): Entry & { optional: boolean } {
  return { ...entry, optional: entry.optional ?? false }
}

/** Actions of REST endpoints that have no WebSocket twin. */
export const restOnlyActions = [
  'getReportBook',
  'getReportTrades',
  'privateCancelOrdersAfter',
] as const
export type RestOnlyAction = (typeof restOnlyActions)[number]

export const restEndpoints = {
  // --- §3.1 public ---
  'GET /time': endpoint({
    method: 'GET',
    path: '/time',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: marketData.timeRequest,
    response: marketData.timeResponse,
    wsAction: 'getTime',
  }),
  'GET /markets': endpoint({
    method: 'GET',
    path: '/markets',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: marketData.marketsRequest,
    response: marketData.marketsResponse,
    wsAction: 'getMarkets',
  }),
  'GET /assets': endpoint({
    method: 'GET',
    path: '/assets',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: marketData.assetsRequest,
    response: marketData.assetsResponse,
    wsAction: 'getAssets',
  }),
  'GET /{market}/book': endpoint({
    method: 'GET',
    path: '/{market}/book',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: marketData.marketPath,
    requestIn: 'query',
    request: marketData.bookRequest,
    response: marketData.bookResponse,
    wsAction: 'getBook',
  }),
  'GET /{market}/trades': endpoint({
    method: 'GET',
    path: '/{market}/trades',
    auth: 'public',
    permission: 'none',
    weight: 5,
    pathParams: marketData.marketPath,
    requestIn: 'query',
    request: marketData.publicTradesRequest,
    response: marketData.publicTradesResponse,
    wsAction: 'getTrades',
  }),
  'GET /{market}/candles': endpoint({
    method: 'GET',
    path: '/{market}/candles',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: marketData.marketPath,
    requestIn: 'query',
    request: marketData.candlesRequest,
    response: marketData.candlesResponse,
    wsAction: 'getCandles',
  }),
  'GET /ticker/price': endpoint({
    method: 'GET',
    path: '/ticker/price',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: marketData.tickerRequest,
    response: marketData.tickerPriceResponse,
    wsAction: 'getTickerPrice',
  }),
  'GET /ticker/book': endpoint({
    method: 'GET',
    path: '/ticker/book',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: marketData.tickerRequest,
    response: marketData.tickerBookResponse,
    wsAction: 'getTickerBook',
  }),
  'GET /ticker/24h': endpoint({
    method: 'GET',
    path: '/ticker/24h',
    auth: 'public',
    permission: 'none',
    weight: { withMarket: 1, withoutMarket: 25 },
    pathParams: undefined,
    requestIn: 'query',
    request: marketData.tickerRequest,
    response: marketData.ticker24hResponse,
    wsAction: 'getTicker24h',
  }),
  'GET /report/{market}/book': endpoint({
    method: 'GET',
    path: '/report/{market}/book',
    auth: 'public',
    permission: 'none',
    weight: 1,
    pathParams: marketData.marketPath,
    requestIn: 'query',
    request: marketData.bookRequest,
    response: marketData.reportBookResponse,
    wsAction: undefined,
    restOnlyAction: 'getReportBook',
    optional: true,
  }),
  'GET /report/{market}/trades': endpoint({
    method: 'GET',
    path: '/report/{market}/trades',
    auth: 'public',
    permission: 'none',
    weight: 5,
    pathParams: marketData.marketPath,
    requestIn: 'query',
    request: marketData.publicTradesRequest,
    response: marketData.reportTradesResponse,
    wsAction: undefined,
    restOnlyAction: 'getReportTrades',
    optional: true,
  }),
  // --- §3.2 private ---
  'POST /order': endpoint({
    method: 'POST',
    path: '/order',
    auth: 'private',
    permission: 'trade',
    weight: 1,
    pathParams: undefined,
    requestIn: 'body',
    request: orders.createOrderRequest,
    response: orders.createOrderResponse,
    wsAction: 'privateCreateOrder',
  }),
  'PUT /order': endpoint({
    method: 'PUT',
    path: '/order',
    auth: 'private',
    permission: 'trade',
    weight: 1,
    pathParams: undefined,
    requestIn: 'body',
    request: orders.updateOrderRequest,
    response: orders.createOrderResponse,
    wsAction: 'privateUpdateOrder',
  }),
  'GET /order': endpoint({
    method: 'GET',
    path: '/order',
    auth: 'private',
    permission: 'trade',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: orders.getOrderRequest,
    response: orders.order,
    wsAction: 'privateGetOrder',
  }),
  'DELETE /order': endpoint({
    method: 'DELETE',
    path: '/order',
    auth: 'private',
    permission: 'trade',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: orders.cancelOrderRequest,
    response: orders.cancelOrderResponse,
    wsAction: 'privateCancelOrder',
  }),
  'GET /orders': endpoint({
    method: 'GET',
    path: '/orders',
    auth: 'private',
    permission: 'trade',
    weight: 5,
    pathParams: undefined,
    requestIn: 'query',
    request: orders.ordersRequest,
    response: orders.ordersResponse,
    wsAction: 'privateGetOrders',
  }),
  'DELETE /orders': endpoint({
    method: 'DELETE',
    path: '/orders',
    auth: 'private',
    permission: 'trade',
    weight: { withMarket: 25, withoutMarket: 100 },
    pathParams: undefined,
    requestIn: 'query',
    request: orders.cancelOrdersRequest,
    response: orders.cancelOrdersResponse,
    wsAction: 'privateCancelOrders',
  }),
  'GET /ordersOpen': endpoint({
    method: 'GET',
    path: '/ordersOpen',
    auth: 'private',
    permission: 'trade',
    weight: { withMarket: 1, withoutMarket: 25 },
    pathParams: undefined,
    requestIn: 'query',
    request: orders.ordersOpenRequest,
    response: orders.ordersOpenResponse,
    wsAction: 'privateGetOrdersOpen',
  }),
  'GET /trades': endpoint({
    method: 'GET',
    path: '/trades',
    auth: 'private',
    permission: 'view',
    weight: 5,
    pathParams: undefined,
    requestIn: 'query',
    request: orders.tradesRequest,
    response: orders.tradesResponse,
    wsAction: 'privateGetTrades',
  }),
  'GET /account': endpoint({
    method: 'GET',
    path: '/account',
    auth: 'private',
    permission: 'view',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: account.accountRequest,
    response: account.accountResponse,
    wsAction: 'privateGetAccount',
  }),
  'GET /account/fees': endpoint({
    method: 'GET',
    path: '/account/fees',
    auth: 'private',
    permission: 'view',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: account.feesRequest,
    response: account.feesResponse,
    wsAction: 'privateGetFees',
  }),
  'GET /balance': endpoint({
    method: 'GET',
    path: '/balance',
    auth: 'private',
    permission: 'view',
    weight: 5,
    pathParams: undefined,
    requestIn: 'query',
    request: account.balanceRequest,
    response: account.balanceResponse,
    wsAction: 'privateGetBalance',
  }),
  'GET /deposit': endpoint({
    method: 'GET',
    path: '/deposit',
    auth: 'private',
    permission: 'view',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: account.depositRequest,
    response: account.depositResponse,
    wsAction: 'privateDepositAssets',
  }),
  'POST /withdrawal': endpoint({
    method: 'POST',
    path: '/withdrawal',
    auth: 'private',
    permission: 'withdraw',
    weight: 1,
    pathParams: undefined,
    requestIn: 'body',
    request: account.withdrawalRequest,
    response: account.withdrawalResponse,
    wsAction: 'privateWithdrawAssets',
  }),
  'GET /depositHistory': endpoint({
    method: 'GET',
    path: '/depositHistory',
    auth: 'private',
    permission: 'view',
    weight: 5,
    pathParams: undefined,
    requestIn: 'query',
    request: account.depositHistoryRequest,
    response: account.depositHistoryResponse,
    wsAction: 'privateGetDepositHistory',
  }),
  'GET /withdrawalHistory': endpoint({
    method: 'GET',
    path: '/withdrawalHistory',
    auth: 'private',
    permission: 'view',
    weight: 5,
    pathParams: undefined,
    requestIn: 'query',
    request: account.withdrawalHistoryRequest,
    response: account.withdrawalHistoryResponse,
    wsAction: 'privateGetWithdrawalHistory',
  }),
  'GET /account/history': endpoint({
    method: 'GET',
    path: '/account/history',
    auth: 'private',
    permission: 'view',
    weight: 1,
    pathParams: undefined,
    requestIn: 'query',
    request: account.accountHistoryRequest,
    response: account.accountHistoryResponse,
    wsAction: 'privateGetTransactionHistory',
  }),
  'POST /cancelOrdersAfter': endpoint({
    method: 'POST',
    path: '/cancelOrdersAfter',
    auth: 'private',
    permission: 'trade',
    // The docs' weight; the protocol's table does not list it.
    weight: 5,
    pathParams: undefined,
    requestIn: 'body',
    request: orders.cancelOrdersAfterRequest,
    response: orders.cancelOrdersAfterResponse,
    wsAction: undefined,
    restOnlyAction: 'privateCancelOrdersAfter',
    optional: true,
  }),
} as const satisfies Record<string, RestEndpoint>

export type RestEndpointKey = keyof typeof restEndpoints

/** The weight of one call: market-dependent weights look at the `market` parameter. */
export function restEndpointWeight(entry: RestEndpoint, parameters: { market?: unknown }): number {
  if (typeof entry.weight === 'number') return entry.weight
  return parameters.market === undefined ? entry.weight.withoutMarket : entry.weight.withMarket
}

export type RestRouteMatch = {
  key: RestEndpointKey
  endpoint: RestEndpoint
  /** Raw path parameters, e.g. `{ market: 'BTC-EUR' }`; validate them with `endpoint.pathParams`. */
  pathParams: Record<string, string>
}

/**
 * Find the endpoint for a method and a path relative to `/v2` (no query string). Returns
 * undefined for an unknown route or method, which a server answers with 110.
 */
export function matchRestEndpoint(method: string, path: string): RestRouteMatch | undefined {
  return matchPathTemplate(
    Object.entries(restEndpoints) as [RestEndpointKey, RestEndpoint][],
    method,
    path,
  )
}

type Routable = { readonly method: string; readonly path: string }

/**
 * Match `path` against the templates of a route table. Literal routes are tried first, so
 * `/ticker/book` is never read as `/{market}/book`. Path parameters are URI-decoded.
 */
export function matchPathTemplate<Key extends string, Entry extends Routable>(
  table: readonly (readonly [Key, Entry])[],
  method: string,
  path: string,
): { key: Key; endpoint: Entry; pathParams: Record<string, string> } | undefined {
  const parts = path.split('/').slice(1)
  const candidates = table
    .map(([key, entry]) => ({ key, entry, segments: entry.path.split('/').slice(1) }))
    .filter((route) => route.entry.method === method && route.segments.length === parts.length)
    .sort((a, b) => parameterCount(a.segments) - parameterCount(b.segments))
  for (const route of candidates) {
    const pathParams: Record<string, string> = {}
    const matches = route.segments.every((segment, index) => {
      const part = parts[index] ?? ''
      if (isParameter(segment)) {
        const decoded = decodePathSegment(part)
        if (decoded === undefined || decoded === '') return false
        pathParams[segment.slice(1, -1)] = decoded
        return true
      }
      return segment === part
    })
    if (matches) return { key: route.key, endpoint: route.entry, pathParams }
  }
  return undefined
}

function isParameter(segment: string): boolean {
  return segment.startsWith('{') && segment.endsWith('}')
}

function parameterCount(segments: readonly string[]): number {
  return segments.filter(isParameter).length
}

function decodePathSegment(part: string): string | undefined {
  try {
    return decodeURIComponent(part)
  } catch {
    return undefined
  }
}
