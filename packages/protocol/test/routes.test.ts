import { describe, expect, it } from 'vitest'
import {
  authenticateRequest,
  marketsDataRequest,
  matchRestEndpoint,
  matchWebEndpoint,
  parse,
  restAuthHeaders,
  restEndpoints,
  restEndpointWeight,
  safeParse,
  updateSavingsPlanRequest,
} from '../src/index.ts'
import { apiKey64, authenticateExample, websocketSignature } from './fixtures.ts'

describe('REST routing from the table', () => {
  it('literal routes win over /{market}/...', () => {
    expect(matchRestEndpoint('GET', '/ticker/book')?.key).toBe('GET /ticker/book')
    expect(matchRestEndpoint('GET', '/BTC-EUR/book')).toMatchObject({
      key: 'GET /{market}/book',
      pathParams: { market: 'BTC-EUR' },
    })
    expect(matchRestEndpoint('GET', '/report/BTC-EUR/trades')?.key).toBe(
      'GET /report/{market}/trades',
    )
  })

  it('an unknown route or method matches nothing (the server answers 110)', () => {
    expect(matchRestEndpoint('PATCH', '/order')).toBeUndefined()
    expect(matchRestEndpoint('GET', '/nothing/here/at/all')).toBeUndefined()
    expect(matchRestEndpoint('GET', '/%E0%A4%A/book')).toBeUndefined()
  })

  it('weights follow §2.3, market-dependent where the docs say so', () => {
    const ticker = restEndpoints['GET /ticker/24h']
    expect(restEndpointWeight(ticker, { market: 'BTC-EUR' })).toBe(1)
    expect(restEndpointWeight(ticker, {})).toBe(25)
    expect(restEndpointWeight(restEndpoints['GET /{market}/trades'], {})).toBe(5)
    expect(restEndpointWeight(restEndpoints['GET /ordersOpen'], {})).toBe(25)
  })

  it('auth and permissions follow §2.1', () => {
    expect(restEndpoints['GET /markets']).toMatchObject({ auth: 'public', permission: 'none' })
    expect(restEndpoints['POST /order']).toMatchObject({ auth: 'private', permission: 'trade' })
    expect(restEndpoints['GET /balance']).toMatchObject({ auth: 'private', permission: 'view' })
    expect(restEndpoints['POST /withdrawal']).toMatchObject({ permission: 'withdraw' })
  })

  it('query integers arrive as digits and parse to numbers; out of range is 205', () => {
    const candles = restEndpoints['GET /{market}/candles'].request
    expect(parse(candles, { interval: '1m', limit: '1440' })).toEqual({
      interval: '1m',
      limit: 1440,
    })
    const tooMany = safeParse(candles, { interval: '1m', limit: '1441' })
    expect(tooMany.success ? undefined : tooMany.error.body.error).toBe(
      'limit parameter is invalid.',
    )
    const required = safeParse(candles, { limit: '1' })
    expect(required.success ? undefined : required.error.body.error).toBe(
      'interval parameter is required.',
    )
  })

  it('trades and orders refuse a window longer than 24 h', () => {
    const trades = restEndpoints['GET /trades'].request
    const day = 24 * 60 * 60 * 1000
    expect(safeParse(trades, { market: 'BTC-EUR', start: '0', end: String(day) }).success).toBe(
      true,
    )
    const tooLong = safeParse(trades, { market: 'BTC-EUR', start: '0', end: String(day + 1) })
    expect(tooLong.success ? undefined : tooLong.error.body.error).toBe('end parameter is invalid.')
  })
})

describe('authentication messages carry their own codes', () => {
  const headers = {
    'bitvavo-access-key': apiKey64,
    'bitvavo-access-signature': websocketSignature,
    'bitvavo-access-timestamp': '1548175200641',
    'bitvavo-access-window': '10000',
    'content-type': 'application/json',
  }

  it('valid headers parse, timestamp and window as numbers', () => {
    expect(parse(restAuthHeaders, headers)).toMatchObject({
      'bitvavo-access-timestamp': 1548175200641,
      'bitvavo-access-window': 10000,
      'content-type': 'application/json',
    })
  })

  it.each([
    ['bitvavo-access-key', 'short', 301],
    ['bitvavo-access-signature', 'abc', 308],
    ['bitvavo-access-timestamp', '1548175200641.5', 302],
    ['bitvavo-access-window', '60001', 303],
  ])('%s = %s gives %i', (name, value, code) => {
    const result = safeParse(restAuthHeaders, { ...headers, [name]: value })
    expect(result.success ? undefined : result.error.code).toBe(code)
  })

  it('WS authenticate by session token (a Polder extension): alone it passes; with a key it is 206', () => {
    const token = 'Zm9vYmFyYmF6cXV4MTIzNDU2Nzg5MDEyMzQ1Njc4OTA'
    expect(safeParse(authenticateRequest, { action: 'authenticate', token }).success).toBe(true)
    const both = safeParse(authenticateRequest, { ...(authenticateExample() as object), token })
    expect(both.success ? undefined : both.error.code).toBe(206)
    const short = safeParse(authenticateRequest, { action: 'authenticate', token: 'abc' })
    expect(short.success ? undefined : short.error.code).toBe(205)
    const neither = safeParse(authenticateRequest, { action: 'authenticate' })
    expect(neither.success ? undefined : neither.error.body).toEqual({
      errorCode: 203,
      error: 'key parameter is required.',
    })
  })

  it('WS authenticate: a float timestamp is 302, a window of 50 is 303', () => {
    const message = authenticateExample() as object
    const float = safeParse(authenticateRequest, { ...message, timestamp: 1.5 })
    expect(float.success ? undefined : float.error.code).toBe(302)
    const window = safeParse(authenticateRequest, { ...message, window: 50 })
    expect(window.success ? undefined : window.error.body).toEqual({
      errorCode: 303,
      error: 'Window must be between 100 and 60000 ms.',
    })
  })
})

describe('spec web API', () => {
  it('routes savings plans, literal /assets before /{id}', () => {
    expect(matchWebEndpoint('GET', '/exchange/savings-plans/v1/assets')?.key).toBe(
      'GET /exchange/savings-plans/v1/assets',
    )
    expect(
      matchWebEndpoint('GET', '/exchange/savings-plans/v1/0b7d5a4e-33a5-4f5b-9b44-61d9b6b0a1c2'),
    ).toMatchObject({ pathParams: { id: '0b7d5a4e-33a5-4f5b-9b44-61d9b6b0a1c2' } })
  })

  it('the market list query splits its filters and reads miniChart as a boolean', () => {
    expect(
      parse(marketsDataRequest, { markets: 'BTC-EUR,ETH-EUR', miniChart: 'true', theme: 'light' }),
    ).toEqual({ markets: ['BTC-EUR', 'ETH-EUR'], miniChart: true, theme: 'light' })
    const theme = safeParse(marketsDataRequest, { theme: 'blue' }, { location: 'query' })
    expect(theme.success ? undefined : theme.error.body.error).toBe('theme parameter is invalid.')
  })

  it('PATCH bodies are wrapped in data and must change something', () => {
    const unwrapped = safeParse(updateSavingsPlanRequest, { amount: '10' }, { location: 'body' })
    expect(unwrapped.success ? undefined : unwrapped.error.code).toBe(201)
    const empty = safeParse(updateSavingsPlanRequest, { data: {} }, { location: 'body' })
    expect(empty.success ? undefined : empty.error.code).toBe(232)
    const deleted = safeParse(updateSavingsPlanRequest, { data: { status: 'DELETED' } })
    expect(deleted.success ? undefined : deleted.error.shortMessage).toMatch(/^data\.status:/)
  })
})
