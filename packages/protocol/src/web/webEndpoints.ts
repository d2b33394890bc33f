import type { z } from 'zod'
import { matchPathTemplate } from '../rest/restEndpoints.ts'
import * as marketsData from './marketsData.ts'
import * as priceCandles from './priceCandles.ts'
import * as savingsPlans from './savingsPlans.ts'

// The spec's own web API (spec §7), served beside /v2. Paths are absolute. Errors use the same
// `{errorCode, error}` body as the protocol.

export type WebEndpoint = {
  readonly method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  readonly path: string
  /** `session`: needs the signed-in user's session (savings plans are per account). */
  readonly auth: 'public' | 'session'
  readonly pathParams: z.ZodType | undefined
  readonly requestIn: 'query' | 'body'
  readonly request: z.ZodType
  readonly response: z.ZodType
}

export const webEndpoints = {
  'GET /exchange/proxy/v3/markets/data': {
    method: 'GET',
    path: '/exchange/proxy/v3/markets/data',
    auth: 'public',
    pathParams: undefined,
    requestIn: 'query',
    request: marketsData.marketsDataRequest,
    response: marketsData.marketsDataResponse,
  },
  'GET /exchange/xp/v1/markets/price/candles': {
    method: 'GET',
    path: '/exchange/xp/v1/markets/price/candles',
    auth: 'public',
    pathParams: undefined,
    requestIn: 'query',
    request: priceCandles.priceCandlesRequest,
    response: priceCandles.priceCandlesResponse,
  },
  'GET /exchange/savings-plans/v1': {
    method: 'GET',
    path: '/exchange/savings-plans/v1',
    auth: 'session',
    pathParams: undefined,
    requestIn: 'query',
    request: savingsPlans.listSavingsPlansRequest,
    response: savingsPlans.listSavingsPlansResponse,
  },
  'GET /exchange/savings-plans/v1/{id}': {
    method: 'GET',
    path: '/exchange/savings-plans/v1/{id}',
    auth: 'session',
    pathParams: savingsPlans.savingsPlanPath,
    requestIn: 'query',
    request: savingsPlans.getSavingsPlanRequest,
    response: savingsPlans.getSavingsPlanResponse,
  },
  'POST /exchange/savings-plans/v1': {
    method: 'POST',
    path: '/exchange/savings-plans/v1',
    auth: 'session',
    pathParams: undefined,
    requestIn: 'body',
    request: savingsPlans.createSavingsPlanRequest,
    response: savingsPlans.createSavingsPlanResponse,
  },
  'PATCH /exchange/savings-plans/v1/{id}': {
    method: 'PATCH',
    path: '/exchange/savings-plans/v1/{id}',
    auth: 'session',
    pathParams: savingsPlans.savingsPlanPath,
    requestIn: 'body',
    request: savingsPlans.updateSavingsPlanRequest,
    response: savingsPlans.updateSavingsPlanResponse,
  },
  'DELETE /exchange/savings-plans/v1/{id}': {
    method: 'DELETE',
    path: '/exchange/savings-plans/v1/{id}',
    auth: 'session',
    pathParams: savingsPlans.savingsPlanPath,
    requestIn: 'query',
    request: savingsPlans.deleteSavingsPlanRequest,
    response: savingsPlans.deleteSavingsPlanResponse,
  },
  'GET /exchange/savings-plans/v1/assets': {
    method: 'GET',
    path: '/exchange/savings-plans/v1/assets',
    auth: 'session',
    pathParams: undefined,
    requestIn: 'query',
    request: savingsPlans.savingsPlanAssetsRequest,
    response: savingsPlans.savingsPlanAssetsResponse,
  },
  'GET /exchange/savings-plans/v1/{id}/executions': {
    method: 'GET',
    path: '/exchange/savings-plans/v1/{id}/executions',
    auth: 'session',
    pathParams: savingsPlans.savingsPlanPath,
    requestIn: 'query',
    request: savingsPlans.savingsPlanExecutionsRequest,
    response: savingsPlans.savingsPlanExecutionsResponse,
  },
} as const satisfies Record<string, WebEndpoint>

export type WebEndpointKey = keyof typeof webEndpoints

export type WebRouteMatch = {
  key: WebEndpointKey
  endpoint: WebEndpoint
  pathParams: Record<string, string>
}

/** Find the web endpoint for a method and an absolute path (literal routes win: `/assets`). */
export function matchWebEndpoint(method: string, path: string): WebRouteMatch | undefined {
  const found = matchPathTemplate(
    Object.entries(webEndpoints) as [WebEndpointKey, WebEndpoint][],
    method,
    path,
  )
  return found === undefined
    ? undefined
    : { key: found.key, endpoint: found.endpoint, pathParams: found.pathParams }
}
