import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import {
  backoffDelayMs,
  candlesStartMs,
  createWebApiClient,
  HttpStatusError,
  InvalidResponseError,
  NetworkError,
  RequestTimeoutError,
} from '../src/index.ts'
import {
  executions,
  fakeFetch,
  hangingResponse,
  json,
  marketsDataItem,
  planId,
  savingsPlan,
} from './support/webFixtures.ts'

// Spec §7, §8, §9: the web API client. The fetch is faked at the outer boundary (plus one real
// HTTP server); timers are vitest's fake timers.

const base = 'https://api.polder.example'
const now = Date.UTC(2026, 10, 22, 12)

beforeEach(() => {
  vi.useFakeTimers({ now })
})
afterEach(() => {
  vi.useRealTimers()
})

/** Let pending promise callbacks run between timer steps. */
const settle = () => vi.advanceTimersByTimeAsync(0)

describe('spec §7 web API client', () => {
  test('the base address is configurable', async () => {
    const fetch = fakeFetch(() => json([marketsDataItem]))
    await createWebApiClient({ baseUrl: `${base}/`, fetch }).getMarketsData({
      markets: ['BTC-EUR', 'ETH-EUR'],
      theme: 'dark',
      miniChart: true,
    })
    expect(fetch.calls[0]?.url).toBe(
      `${base}/exchange/proxy/v3/markets/data?markets=BTC-EUR%2CETH-EUR&theme=dark&miniChart=true`,
    )
  })

  test('the timeout defaults to 3000 ms', async () => {
    const fetch = fakeFetch((_url, init) => hangingResponse(init))
    const api = createWebApiClient({ baseUrl: base, fetch, retry: { retries: 0 } })
    expect(api.http.timeoutMs).toBe(3000)
    const outcome = api.getMarketsData().catch((error: unknown) => error)
    await vi.advanceTimersByTimeAsync(2999)
    let settled = false
    void outcome.then(() => {
      settled = true
    })
    await settle()
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    expect(await outcome).toBeInstanceOf(RequestTimeoutError)
  })

  test('network and timeout errors are retried with exponential backoff (100 ms base, doubling)', async () => {
    const fetch = fakeFetch((_url, init, index) => {
      if (index === 0) return Promise.reject(new TypeError('fetch failed'))
      if (index === 1) return hangingResponse(init)
      if (index === 2) return Promise.reject(new TypeError('fetch failed'))
      return json([marketsDataItem])
    })
    const api = createWebApiClient({ baseUrl: base, fetch, random: () => 0 })
    const result = api.getMarketsData()
    await vi.runAllTimersAsync()
    expect(await result).toEqual([marketsDataItem])
    // attempt 1 at 0; retry after 100; it times out at +3000; retry after 200; fails; retry after 400.
    expect(fetch.calls.map((call) => call.at - now)).toEqual([0, 100, 3300, 3700])
  })

  test('after the last retry the network error is rejected', async () => {
    const fetch = fakeFetch(() => Promise.reject(new TypeError('fetch failed')))
    const api = createWebApiClient({ baseUrl: base, fetch, random: () => 0 })
    const outcome = api.getMarketsData().catch((error: unknown) => error)
    await vi.runAllTimersAsync()
    expect(await outcome).toBeInstanceOf(NetworkError)
    expect(fetch.calls).toHaveLength(4) // 1 + the default 3 retries
  })

  test('the caller sets retry count, base delay and maximum', async () => {
    const fetch = fakeFetch(() => Promise.reject(new TypeError('fetch failed')))
    const api = createWebApiClient({
      baseUrl: base,
      fetch,
      random: () => 0,
      retry: { retries: 4, baseDelayMs: 50, maxDelayMs: 150 },
    })
    const outcome = api.getMarketsData().catch((error: unknown) => error)
    await vi.runAllTimersAsync()
    await outcome
    const gaps = fetch.calls.slice(1).map((call, index) => call.at - fetch.calls[index]!.at)
    expect(gaps).toEqual([50, 100, 150, 150])
  })

  test('the delay gets up to 20% jitter and is capped at 20000 ms by default', () => {
    const defaults = { retries: 10, baseDelayMs: 100, maxDelayMs: 20_000 }
    expect(backoffDelayMs(0, defaults, () => 0)).toBe(100)
    expect(backoffDelayMs(0, defaults, () => 0.5)).toBe(110)
    expect(backoffDelayMs(0, defaults, () => 0.999_999)).toBe(120)
    expect(backoffDelayMs(3, defaults, () => 0)).toBe(800)
    expect(backoffDelayMs(10, defaults, () => 0)).toBe(20_000)
    expect(backoffDelayMs(10, defaults, () => 0.999_999)).toBe(20_000)
  })

  test('other errors are rejected at once', async () => {
    const serverError = fakeFetch(() => json({ errorCode: 101, error: 'Unknown error' }, 500))
    const outcome = createWebApiClient({ baseUrl: base, fetch: serverError })
      .getSavingsPlan(planId)
      .catch((error: unknown) => error)
    await settle()
    const error = await outcome
    expect(error).toBeInstanceOf(HttpStatusError)
    expect(error).toMatchObject({ status: 500, code: 101 })
    expect(serverError.calls).toHaveLength(1)

    const invalid = fakeFetch(() => json([{ market: 'nonsense' }]))
    const invalidOutcome = createWebApiClient({ baseUrl: base, fetch: invalid })
      .getMarketsData()
      .catch((error: unknown) => error)
    await settle()
    expect(await invalidOutcome).toBeInstanceOf(InvalidResponseError)
    expect(invalid.calls).toHaveLength(1)
  })

  test('a non-200 status is an error for the market list', async () => {
    const fetch = fakeFetch(() => json([marketsDataItem], 203))
    const outcome = createWebApiClient({ baseUrl: base, fetch })
      .getMarketsData()
      .catch((error: unknown) => error)
    await settle()
    expect(await outcome).toMatchObject({ name: 'HttpStatusError', status: 203 })
  })

  test('the market list can be polled on an interval', async () => {
    const fetch = fakeFetch(() => json([marketsDataItem]))
    const seen: number[] = []
    const stop = createWebApiClient({ baseUrl: base, fetch }).pollMarketsData(
      { miniChart: true },
      10_000,
      (data) => seen.push(data.length),
    )
    await settle()
    await vi.advanceTimersByTimeAsync(25_000)
    expect(seen).toEqual([1, 1, 1])
    stop()
    await vi.advanceTimersByTimeAsync(30_000)
    expect(fetch.calls).toHaveLength(3)
  })
})

describe('spec §9 candles', () => {
  test('start is computed from the range: 1h, 1d, 30 days for 30d, 60 days for 2m, otherwise 7 days', () => {
    const hour = 3_600_000
    const day = 24 * hour
    expect(now - candlesStartMs('1h', now)).toBe(hour)
    expect(now - candlesStartMs('1d', now)).toBe(day)
    expect(now - candlesStartMs('7d', now)).toBe(7 * day)
    expect(now - candlesStartMs('30d', now)).toBe(30 * day)
    expect(now - candlesStartMs('2m', now)).toBe(60 * day)
    expect(now - candlesStartMs('1y', now)).toBe(7 * day)
  })

  test('the candles request carries interval, start and market; intervals are 1m, 30m, 4h, 12h, 1d', async () => {
    const fetch = fakeFetch(() => json([[now, '1', '2', '0.5', '1.5', '10']]))
    const api = createWebApiClient({ baseUrl: base, fetch })
    for (const interval of ['1m', '30m', '4h', '12h', '1d'] as const) {
      await api.getPriceCandles({ market: 'BTC-EUR', range: '30d', interval })
    }
    expect(fetch.calls[0]?.url).toBe(
      `${base}/exchange/xp/v1/markets/price/candles?interval=1m&start=${now - 30 * 86_400_000}&market=BTC-EUR`,
    )
    expect(() =>
      api.getPriceCandles({ market: 'BTC-EUR', range: '1d', interval: '5m' as '1m' }),
    ).toThrow()
  })
})

describe('spec §3, §7 savings plans', () => {
  test('every savings-plan call of spec §7', async () => {
    const fetch = fakeFetch((url, init) => {
      if (url.endsWith('/assets')) {
        return json([
          { symbol: 'BTC', name: 'Bitcoin', market: 'BTC-EUR', minAmount: '10', maxAmount: '5000' },
        ])
      }
      if (url.includes('/executions')) return json(executions)
      if (init.method === 'GET' && !url.includes(planId)) return json([savingsPlan])
      if (init.method === 'DELETE') return json({ ...savingsPlan, status: 'DELETED' })
      return json(savingsPlan)
    })
    const api = createWebApiClient({ baseUrl: base, fetch })
    expect(await api.listSavingsPlans()).toEqual([savingsPlan])
    expect(await api.listSavingsPlans('INACTIVE')).toEqual([savingsPlan])
    expect(await api.getSavingsPlan(planId)).toEqual(savingsPlan)
    await api.createSavingsPlan({
      asset: 'BTC',
      amount: '25',
      frequency: 'MONTHLY',
      startDate: '2026-12-01',
    })
    await api.updateSavingsPlan(planId, { amount: '50', frequency: 'FORTNIGHTLY' })
    expect((await api.deleteSavingsPlan(planId)).status).toBe('DELETED')
    expect(await api.getSavingsPlanAssets()).toHaveLength(1)
    expect(await api.getSavingsPlanExecutions(planId, { page: 2, size: 1 })).toEqual(executions)
    const path = (url: string) => url.slice(base.length)
    expect(fetch.calls.map((call) => [call.method, path(call.url), call.body])).toEqual([
      ['GET', '/exchange/savings-plans/v1', undefined],
      ['GET', '/exchange/savings-plans/v1?status=INACTIVE', undefined],
      ['GET', `/exchange/savings-plans/v1/${planId}`, undefined],
      [
        'POST',
        '/exchange/savings-plans/v1',
        { asset: 'BTC', amount: '25', frequency: 'MONTHLY', startDate: '2026-12-01' },
      ],
      [
        'PATCH',
        `/exchange/savings-plans/v1/${planId}`,
        { data: { amount: '50', frequency: 'FORTNIGHTLY' } },
      ],
      ['DELETE', `/exchange/savings-plans/v1/${planId}`, undefined],
      ['GET', '/exchange/savings-plans/v1/assets', undefined],
      ['GET', `/exchange/savings-plans/v1/${planId}/executions?page=2&size=1`, undefined],
    ])
  })

  test('a create retried after a timeout sends the Idempotency-Key of its first attempt', async () => {
    const keys: (string | undefined)[] = []
    const fetch = fakeFetch((_url, init, index) => {
      keys.push((init.headers as Record<string, string>)['idempotency-key'])
      return index === 0 ? hangingResponse(init) : json(savingsPlan)
    })
    let made = 0
    const api = createWebApiClient({
      baseUrl: base,
      fetch,
      random: () => 0,
      newIdempotencyKey: () => `key-${++made}`,
    })
    const plan = {
      asset: 'BTC',
      amount: '25',
      frequency: 'MONTHLY',
      startDate: '2026-12-01',
    } as const
    const created = api.createSavingsPlan(plan)
    await vi.runAllTimersAsync()
    expect(await created).toEqual(savingsPlan)
    await api.createSavingsPlan(plan) // a second create of its own
    await api.getSavingsPlan(planId)
    await api.updateSavingsPlan(planId, { amount: '50' })
    expect(keys).toEqual(['key-1', 'key-1', 'key-2', undefined, undefined])
  })

  test('savings plans use the enums of spec §3', async () => {
    const fetch = fakeFetch(() => json({ ...savingsPlan, frequency: 'YEARLY' }))
    const api = createWebApiClient({ baseUrl: base, fetch })
    await expect(api.getSavingsPlan(planId)).rejects.toBeInstanceOf(InvalidResponseError)
    expect(() =>
      api.createSavingsPlan({
        asset: 'BTC',
        amount: '25',
        frequency: 'HOURLY' as 'DAILY',
        startDate: '2026-12-01',
      }),
    ).toThrow()
    expect(() => api.listSavingsPlans('PAUSED' as 'ACTIVE')).toThrow()
  })
})

describe('web API client over real HTTP', () => {
  test('a real fetch against a loopback server', async () => {
    vi.useRealTimers()
    const server = createServer((request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(
        JSON.stringify(request.url?.startsWith('/exchange/proxy') ? [marketsDataItem] : []),
      )
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    try {
      const api = createWebApiClient({ baseUrl: `http://127.0.0.1:${port}` })
      expect(await api.getMarketsData({ miniChart: true })).toEqual([marketsDataItem])
    } finally {
      server.close()
    }
  })
})
