import type { MarketsDataItem, SavingsPlan, SavingsPlanExecutionsResponse } from '@polder/protocol'
import type { FetchLike } from '../../src/index.ts'

export const planId = '0b8f2a4e-1c3d-4e5f-8a9b-0c1d2e3f4a5b'

export const savingsPlan: SavingsPlan = {
  id: planId,
  asset: 'BTC',
  market: 'BTC-EUR',
  amount: '25',
  frequency: 'WEEKLY',
  startDate: '2026-12-01',
  status: 'ACTIVE',
  nextExecutionDate: '2026-12-01',
  created: 1,
  updated: 1,
}

export const executions: SavingsPlanExecutionsResponse = {
  items: [
    {
      id: '1b8f2a4e-1c3d-4e5f-8a9b-0c1d2e3f4a5b',
      savingsPlanId: planId,
      status: 'SUCCESS',
      scheduledAt: 1,
      executedAt: 2,
      amount: '25',
      filledAmount: '0.0008',
      price: '31250',
      orderId: '2b8f2a4e-1c3d-4e5f-8a9b-0c1d2e3f4a5b',
      failureErrorCode: null,
    },
  ],
  page: 2,
  size: 1,
  total: 3,
}

export const marketsDataItem: MarketsDataItem = {
  market: 'BTC-EUR',
  base: { symbol: 'BTC', name: 'Bitcoin', slug: 'bitcoin' },
  quote: { symbol: 'EUR', name: 'Euro', slug: 'euro' },
  lastPrice: '30000',
  change24h: '1.5',
  volume24h: '10',
  volumeQuote24h: '300000',
  miniChart: [
    { timestamp: 1, price: '29000' },
    { timestamp: 2, price: '30000' },
  ],
  theme: { icon: 'https://polder.example/icons/btc-light.svg' },
}

export type FetchCall = { url: string; method: string; body: unknown; at: number }

/** A fetch at the outer boundary: answers from a function, records every call. */
export function fakeFetch(
  answer: (url: string, init: RequestInit, callIndex: number) => Promise<Response> | Response,
): FetchLike & { calls: FetchCall[] } {
  const calls: FetchCall[] = []
  const fetch = (async (url: string, init: RequestInit = {}) => {
    calls.push({
      url,
      method: init.method ?? 'GET',
      body: typeof init.body === 'string' ? JSON.parse(init.body) : undefined,
      at: Date.now(),
    })
    return answer(url, init, calls.length - 1)
  }) as FetchLike & { calls: FetchCall[] }
  fetch.calls = calls
  return fetch
}

export function json(body: unknown, status = 200): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json' },
  })
}

/** A fetch that never answers until aborted (then rejects like a real one). */
export function hangingResponse(init: RequestInit): Promise<Response> {
  return new Promise((_resolve, reject) => {
    init.signal?.addEventListener('abort', () =>
      reject(new DOMException('The operation was aborted.', 'AbortError')),
    )
  })
}
