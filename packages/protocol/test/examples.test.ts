import { describe, expect, it } from 'vitest'
import {
  accountResponse,
  authenticateEvent,
  authenticateRequest,
  clientSocketEvent,
  createOrderRequest,
  errorBody,
  parse,
  privateCreateOrderRequest,
  type RestEndpoint,
  restEndpoints,
  safeParse,
  subscribedEvent,
  subscribeRequest,
  ValidationError,
  type WebEndpoint,
  webEndpoints,
  wsErrorEnvelope,
  wsEvent,
  wsEventSchemas,
  wsRequest,
  wsResponse,
  wsResponses,
} from '../src/index.ts'
import {
  authenticateExample,
  restRequests,
  restResponses,
  verbatim,
  webSamples,
  wsEventSamples,
} from './fixtures.ts'

const restEntries = Object.entries(restEndpoints) as [string, RestEndpoint][]
const webEntries = Object.entries(webEndpoints) as [string, WebEndpoint][]

/** The WS request for an action with a REST equivalent: its REST parameters plus path params. */
function wsRequestSample(action: string): Record<string, unknown> {
  if (action === 'authenticate') return authenticateExample() as Record<string, unknown>
  if (action === 'subscribe') return JSON.parse(verbatim.subscribe)
  if (action === 'unsubscribe') return { ...JSON.parse(verbatim.subscribe), action: 'unsubscribe' }
  const found = restEntries.find(([, entry]) => entry.wsAction === action)
  if (found === undefined) throw new Error(`no REST equivalent for ${action}`)
  const [key, entry] = found
  const pathParams = entry.pathParams === undefined ? {} : { market: 'BTC-EUR' }
  return { action, requestId: 42, ...pathParams, ...(restRequests[key] as object) }
}

describe('the protocol reference examples, verbatim', () => {
  it('§2.2 authenticate request is a valid authenticate and wsRequest', () => {
    const message = authenticateExample()
    expect(parse(authenticateRequest, message)).toEqual(message)
    expect(parse(wsRequest, message)).toEqual(message)
  })

  it('§2.2 success and failure replies', () => {
    expect(parse(authenticateEvent, JSON.parse(verbatim.authenticated))).toEqual({
      event: 'authenticate',
      authenticated: true,
    })
    expect(parse(wsErrorEnvelope, JSON.parse(verbatim.authenticateFailed))).toEqual({
      action: 'authenticate',
      errorCode: 309,
      error: '...',
    })
  })

  it('§2.1 signing-vector body is a valid create-order body', () => {
    expect(
      parse(createOrderRequest, JSON.parse(verbatim.createOrderBody), { location: 'body' }),
    ).toMatchObject({ market: 'BTC-EUR', price: '5000', amount: '1.23' })
  })

  it('§6.1 framing example is a valid privateCreateOrder', () => {
    const message = JSON.parse(verbatim.privateCreateOrder)
    expect(parse(privateCreateOrderRequest, message)).toEqual(message)
    expect(parse(wsRequest, message)).toEqual(message)
  })

  it('§6.3 subscribe and subscribed examples', () => {
    const subscribe = JSON.parse(verbatim.subscribe)
    expect(parse(subscribeRequest, subscribe)).toEqual(subscribe)
    const subscribed = JSON.parse(verbatim.subscribed)
    expect(parse(subscribedEvent, subscribed)).toEqual(subscribed)
    expect(parse(wsEvent, subscribed)).toEqual(subscribed)
  })

  it('§6.4 messages the SDK sends for its local book', () => {
    expect(parse(wsRequest, JSON.parse(verbatim.getBook))).toEqual({
      action: 'getBook',
      market: 'BTC-EUR',
    })
    expect(parse(wsRequest, JSON.parse(verbatim.sdkBookSubscribe))).toMatchObject({
      action: 'subscribe',
    })
  })

  it('§3.2 account example', () => {
    expect(parse(accountResponse, JSON.parse(verbatim.account))).toEqual({
      fees: { taker: '0.0025', maker: '0.0015', volume: '10000.00' },
    })
  })

  it('§5 WS error example keeps its echoed market', () => {
    const message = JSON.parse(verbatim.wsError)
    expect(parse(wsErrorEnvelope, message)).toEqual(message)
    expect(parse(errorBody, message)).toEqual({
      errorCode: 216,
      error: 'You do not have sufficient balance to complete this operation.',
    })
  })
})

describe('every REST endpoint accepts its sample request and response', () => {
  it.each(restEntries)('%s', (key, entry) => {
    const request = safeParse(entry.request, restRequests[key], { location: entry.requestIn })
    expect(request.success ? 'ok' : request.error.message).toBe('ok')
    const response = safeParse(entry.response, restResponses[key])
    expect(response.success ? 'ok' : response.error.message).toBe('ok')
    if (entry.pathParams !== undefined) {
      expect(parse(entry.pathParams, { market: 'BTC-EUR' })).toEqual({ market: 'BTC-EUR' })
    }
  })
})

describe('every WS action accepts its sample request and reply', () => {
  const actions = Object.keys(wsResponses)
  it.each(actions)('%s', (action) => {
    const request = safeParse(wsRequest, wsRequestSample(action))
    expect(request.success ? 'ok' : request.error.message).toBe('ok')
    const key = restEntries.find(([, entry]) => entry.wsAction === action)?.[0] ?? ''
    const reply = { action, requestId: 42, response: restResponses[key] }
    const parsed = safeParse(wsResponse, reply)
    expect(parsed.success ? 'ok' : parsed.error.message).toBe('ok')
  })

  it('authenticate, subscribe and unsubscribe samples', () => {
    for (const action of ['authenticate', 'subscribe', 'unsubscribe']) {
      expect(parse(wsRequest, wsRequestSample(action))).toMatchObject({ action })
    }
  })
})

describe('every pushed event accepts its sample', () => {
  it.each(Object.keys(wsEventSchemas))('%s', (name) => {
    const sample = wsEventSamples[name]
    expect(parse(wsEvent, sample)).toEqual(sample)
    expect(parse(clientSocketEvent, sample)).toEqual(sample)
  })
})

describe('every web endpoint of spec §7 accepts its sample request and response', () => {
  it.each(webEntries)('%s', (key, entry) => {
    const sample = webSamples[key]
    const request = safeParse(entry.request, sample?.request, { location: entry.requestIn })
    expect(request.success ? 'ok' : request.error.message).toBe('ok')
    const response = safeParse(entry.response, sample?.response)
    expect(response.success ? 'ok' : response.error.message).toBe('ok')
  })
})

describe('malformed messages are rejected with an error naming the field', () => {
  const subscribe = JSON.parse(verbatim.subscribe)
  const createOrder = JSON.parse(verbatim.privateCreateOrder)
  const cases: [string, unknown, number, string][] = [
    ['unknown action', { action: 'getEverything' }, 415, 'action: unknown action "getEverything"'],
    ['missing action', { market: 'BTC-EUR' }, 203, 'action: required'],
    ['action of the wrong type', { action: 7 }, 205, 'action:'],
    ['missing market', { action: 'getBook' }, 203, 'market: required'],
    [
      'amount as a JSON number',
      { ...createOrder, amount: 1 },
      205,
      'amount: expected a decimal string',
    ],
    [
      'price with an exponent',
      { ...createOrder, price: '3e3' },
      205,
      'price: expected a positive decimal string',
    ],
    ['side out of the enum', { ...createOrder, side: 'long' }, 205, 'side:'],
    ['an unknown parameter', { ...createOrder, leverage: '10' }, 204, 'leverage: not supported'],
    [
      'requestId as a string',
      { ...createOrder, requestId: '7' },
      205,
      'requestId: expected an integer requestId',
    ],
    [
      'channel with an unknown name',
      { ...subscribe, channels: [{ name: 'orders', markets: ['BTC-EUR'] }] },
      205,
      'channels.0.name:',
    ],
    [
      'channel without markets',
      { ...subscribe, channels: [{ name: 'book' }] },
      203,
      'channels.0.markets: required',
    ],
    [
      'candles channel with a bad interval',
      { ...subscribe, channels: [{ name: 'candles', interval: ['3m'], markets: ['BTC-EUR'] }] },
      205,
      'channels.0.interval.0:',
    ],
    [
      'market in lower case',
      { action: 'getBook', market: 'btc-eur' },
      205,
      'market: expected a market id BASE-QUOTE',
    ],
  ]
  it.each(cases)('%s', (_name, input, code, message) => {
    const result = safeParse(wsRequest, input)
    expect(result.success).toBe(false)
    if (result.success) return
    expect(result.error).toBeInstanceOf(ValidationError)
    expect(result.error.code).toBe(code)
    expect(result.error.shortMessage.startsWith(message)).toBe(true)
  })

  const eventCases: [string, unknown, string][] = [
    ['unknown event', { event: 'candles', market: 'BTC-EUR' }, 'event:'],
    [
      'ticker24h data as an object',
      { event: 'ticker24h', data: (wsEventSamples.ticker24h as { data: unknown[] }).data[0] },
      'data:',
    ],
    [
      'book without nonce',
      { event: 'book', market: 'BTC-EUR', bids: [], asks: [] },
      'nonce: required',
    ],
    [
      'book level price as a number',
      { event: 'book', market: 'BTC-EUR', nonce: 1, bids: [[9704.1, '1']], asks: [] },
      'bids.0.0: expected a decimal string',
    ],
    [
      'fill without fillId',
      { ...(wsEventSamples.fill as object), fillId: undefined },
      'fillId: required',
    ],
    [
      'order with an unknown status',
      { ...(wsEventSamples.order as object), status: 'cancelled' },
      'status:',
    ],
    ['authenticated false', { event: 'authenticate', authenticated: false }, 'authenticated:'],
  ]
  it.each(eventCases)('%s', (_name, input, message) => {
    const result = safeParse(wsEvent, input)
    expect(result.success).toBe(false)
    if (!result.success) expect(result.error.shortMessage.startsWith(message)).toBe(true)
  })

  it('a reply must not carry a top-level error key', () => {
    const result = safeParse(wsResponse, { action: 'getTime', response: { time: 1 }, error: 'x' })
    expect(result.success).toBe(false)
    if (!result.success) expect(result.error.shortMessage).toMatch(/^error:/)
  })

  it('REST unknown parameters give 200 in a query and 201 in a body', () => {
    const query = safeParse(
      restEndpoints['GET /markets'].request,
      { markets: 'BTC-EUR' },
      {
        location: 'query',
      },
    )
    expect(query.success ? undefined : query.error.body).toEqual({
      errorCode: 200,
      error: 'markets url parameter is not supported',
    })
    const body = safeParse(
      restEndpoints['POST /withdrawal'].request,
      { symbol: 'BTC', amount: '1', address: 'x1', network: 'BTC' },
      { location: 'body' },
    )
    expect(body.success ? undefined : body.error.body).toEqual({
      errorCode: 201,
      error: 'network body parameter is not supported',
    })
  })

  it('parse throws the ValidationError', () => {
    expect(() => parse(wsRequest, { action: 'getBook' })).toThrow(ValidationError)
    expect(() => parse(wsRequest, { action: 'getBook' })).toThrow(/^market: required/)
  })
})
