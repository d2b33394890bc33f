import {
  type ChartInterval,
  type ChartRange,
  type CreateSavingsPlanRequest,
  chartInterval,
  chartRangeLookbackMs,
  createSavingsPlanRequest,
  createSavingsPlanResponse,
  deleteSavingsPlanResponse,
  getSavingsPlanResponse,
  listSavingsPlansResponse,
  type MarketsDataResponse,
  marketsDataResponse,
  type PriceCandlesResponse,
  priceCandlesResponse,
  type SavingsPlan,
  type SavingsPlanAsset,
  type SavingsPlanExecutionsResponse,
  type SavingsPlanStatus,
  savingsPlanAssetsResponse,
  savingsPlanExecutionsResponse,
  savingsPlanStatus,
  type Theme,
  type UpdateSavingsPlanRequest,
  updateSavingsPlanRequest,
  updateSavingsPlanResponse,
} from '@polder/protocol'
import { type Clock, globalTimers, systemClock, type Timers } from '../environment.ts'
import { createHttpClient, type HttpClient, type HttpClientOptions } from './httpClient.ts'

// The spec's web API (spec §7): market list (pollable), price candles, savings plans. Requests
// and responses are the schemas of @polder/protocol.

const dayMs = 24 * 60 * 60 * 1000
/** Look-back for a range outside the table (spec §9: "anything else 7 days"). */
export const defaultRangeLookbackMs = 7 * dayMs
/** Shortest market-list polling interval accepted. */
export const marketsPollIntervalMsMin = 1000

/** `start` of a candles request: now minus the range's look-back. */
export function candlesStartMs(range: ChartRange | string, nowMs: number): number {
  const lookback = (chartRangeLookbackMs as Readonly<Record<string, number>>)[range]
  return nowMs - (lookback ?? defaultRangeLookbackMs)
}

export type MarketsDataQuery = {
  markets?: readonly string[]
  assets?: readonly string[]
  theme?: Theme
  miniChart?: boolean
}

export type WebApiClientOptions = HttpClientOptions & { clock?: Clock }

export type WebApiClient = {
  readonly http: HttpClient
  /** GET /exchange/proxy/v3/markets/data; any status but 200 is an error. */
  getMarketsData(query?: MarketsDataQuery): Promise<MarketsDataResponse>
  /** Poll the market list; returns a function that stops polling. */
  pollMarketsData(
    query: MarketsDataQuery,
    intervalMs: number,
    onData: (data: MarketsDataResponse) => void,
    onError?: (error: unknown) => void,
  ): () => void
  getPriceCandles(request: {
    market: string
    range: ChartRange
    interval: ChartInterval
  }): Promise<PriceCandlesResponse>
  listSavingsPlans(status?: SavingsPlanStatus): Promise<SavingsPlan[]>
  getSavingsPlan(id: string): Promise<SavingsPlan>
  createSavingsPlan(plan: CreateSavingsPlanRequest): Promise<SavingsPlan>
  /** PATCH with the changes wrapped in `data`. */
  updateSavingsPlan(id: string, changes: UpdateSavingsPlanRequest['data']): Promise<SavingsPlan>
  deleteSavingsPlan(id: string): Promise<SavingsPlan>
  getSavingsPlanAssets(): Promise<SavingsPlanAsset[]>
  getSavingsPlanExecutions(
    id: string,
    page?: { page?: number; size?: number },
  ): Promise<SavingsPlanExecutionsResponse>
}

const savingsPlansPath = '/exchange/savings-plans/v1'

function planPath(id: string, suffix = ''): string {
  return `${savingsPlansPath}/${encodeURIComponent(id)}${suffix}`
}

export function marketsDataQuery(query: MarketsDataQuery): Record<string, string | undefined> {
  return {
    markets: query.markets?.join(','),
    assets: query.assets?.join(','),
    theme: query.theme,
    miniChart: query.miniChart === undefined ? undefined : String(query.miniChart),
  }
}

export function createWebApiClient(options: WebApiClientOptions): WebApiClient {
  const http = createHttpClient(options)
  const clock = options.clock ?? systemClock
  const timers: Timers = options.timers ?? globalTimers

  const getMarketsData = (query: MarketsDataQuery = {}): Promise<MarketsDataResponse> =>
    http.request({
      method: 'GET',
      path: '/exchange/proxy/v3/markets/data',
      query: marketsDataQuery(query),
      response: marketsDataResponse,
      isSuccess: (status) => status === 200,
    })

  return {
    http,
    getMarketsData,
    pollMarketsData(query, intervalMs, onData, onError) {
      if (intervalMs < marketsPollIntervalMsMin) {
        throw new RangeError(`intervalMs must be at least ${marketsPollIntervalMsMin}`)
      }
      let stopped = false
      const poll = (): void => {
        getMarketsData(query).then(
          (data) => {
            if (!stopped) onData(data)
          },
          (error: unknown) => {
            if (!stopped) onError?.(error)
          },
        )
      }
      poll()
      const handle = timers.setInterval(poll, intervalMs)
      return () => {
        stopped = true
        timers.clearInterval(handle)
      }
    },
    getPriceCandles({ market, range, interval }) {
      return http.request({
        method: 'GET',
        path: '/exchange/xp/v1/markets/price/candles',
        query: {
          interval: chartInterval.parse(interval),
          start: candlesStartMs(range, clock.now()),
          market,
        },
        response: priceCandlesResponse,
      })
    },
    listSavingsPlans(status) {
      return http.request({
        method: 'GET',
        path: savingsPlansPath,
        query: { status: status === undefined ? undefined : savingsPlanStatus.parse(status) },
        response: listSavingsPlansResponse,
      })
    },
    getSavingsPlan(id) {
      return http.request({ method: 'GET', path: planPath(id), response: getSavingsPlanResponse })
    },
    createSavingsPlan(plan) {
      return http.request({
        method: 'POST',
        path: savingsPlansPath,
        body: createSavingsPlanRequest.parse(plan),
        response: createSavingsPlanResponse,
      })
    },
    updateSavingsPlan(id, changes) {
      return http.request({
        method: 'PATCH',
        path: planPath(id),
        body: updateSavingsPlanRequest.parse({ data: changes }),
        response: updateSavingsPlanResponse,
      })
    },
    deleteSavingsPlan(id) {
      return http.request({
        method: 'DELETE',
        path: planPath(id),
        response: deleteSavingsPlanResponse,
      })
    },
    getSavingsPlanAssets() {
      return http.request({
        method: 'GET',
        path: `${savingsPlansPath}/assets`,
        response: savingsPlanAssetsResponse,
      })
    },
    getSavingsPlanExecutions(id, page = {}) {
      return http.request({
        method: 'GET',
        path: planPath(id, '/executions'),
        query: { page: page.page, size: page.size },
        response: savingsPlanExecutionsResponse,
      })
    },
  }
}
