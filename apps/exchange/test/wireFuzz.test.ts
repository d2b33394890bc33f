// Bad input over the real WebSocket, REST and the spec's web API, generated: every action of
// protocol §6.2, every endpoint of §3 and every route of the web API (spec §7: markets data,
// candles, savings plans, staking, payments, sessions) with parameters drawn from valid values,
// near misses and junk of any JSON type.
// Each request must get an answer (a response or one of the protocol's errors, never the internal
// error 101 nor an HTTP 5xx), the sockets must stay open, and afterwards nothing may be held for
// an order and the ledger's invariant must hold: nothing half-applied.
import { randomBytes } from 'node:crypto'
import {
  errorCodes,
  orderType,
  type RestEndpoint,
  restEndpoints,
  type WsAction,
  wsActions,
  wsRequests,
} from '@polder/protocol'
import fc from 'fast-check'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { endpointOfAction } from '../src/api/actions.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked below
type Json = any

let server: ExchangeServer
let baseUrl: string
/** The two traders' API keys, for signed REST calls. */
const keys: (ApiKey & { accountId: number })[] = []
/** A browser session of the first trader, for the web API. */
let sessionToken: string
/**
 * Two traders' sockets, so that their orders can trade with each other, and a stranger's that
 * never authenticates: private actions there must never answer with data.
 */
const sockets: WebSocket[] = []
const stranger = 2
/** The answer each socket waits for: its requests go one at a time. */
const waiting: (((reply: Json) => void) | undefined)[] = []
/** Ids of the orders placed so far: what updates, cancels and queries name. */
const placed: string[] = []

beforeAll(async () => {
  // Far above a real client's budget: the requests here are about their content, not their rate.
  const budget = { rateLimitWeightPerMinute: 10_000_000 }
  const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir: undefined }
  server = await createExchangeServer({ ...config, ...budget }, testListing)
  const url = await server.listen()
  baseUrl = url
  for (const name of ['alice', 'bob']) {
    const trader = await createTrader(
      server,
      `${name}-${randomBytes(4).toString('hex')}@example.com`,
      {
        EUR: '1000000',
        BTC: '100',
        ETH: '1000',
      },
    )
    keys.push(trader)
    const at = await openSocket(url)
    const authenticated = request(at, authenticateRequest(trader))
    expect(await authenticated).toMatchObject({ event: 'authenticate', authenticated: true })
  }
  expect(await openSocket(url)).toBe(stranger)
  sessionToken = (await server.accounts.createSession(keys[0]!.accountId, 3_600_000)).token
})

/** Opens a socket at /v2 whose answers settle what it waits for; its index in `sockets`. */
async function openSocket(url: string): Promise<number> {
  const at = sockets.length
  const socket = new WebSocket(`${url.replace('http', 'ws')}/v2`)
  sockets.push(socket)
  waiting.push(undefined)
  await new Promise((resolve) => socket.once('open', resolve))
  socket.on('message', (data) => {
    const reply = JSON.parse(data.toString())
    // Answers name their action or are errors (echoing the requestId when the message had one),
    // or are (un)subscribing's and authenticating's events (protocol §6.3); the rest is the
    // account's and the markets' events.
    const answer =
      reply.action !== undefined ||
      reply.errorCode !== undefined ||
      ['subscribed', 'unsubscribed', 'authenticate'].includes(reply.event)
    if (!answer) return
    const settle = waiting[at]
    waiting[at] = undefined
    settle?.(reply)
  })
  return at
}
afterAll(() => server.close())

let nextRequestId = 1

/** Sends a request on a socket with a fresh requestId and waits (at most 5 s) for its answer. */
function request(at: number, message: Record<string, unknown>): Promise<Json> {
  const requestId = nextRequestId
  nextRequestId += 1
  return send(at, JSON.stringify({ ...message, requestId }), requestId)
}

/** Sends a text frame and waits (at most 5 s) for its answer (the one with this requestId). */
function send(at: number, text: string, requestId?: number): Promise<Json> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      waiting[at] = undefined
      reject(new Error(`no answer to ${text}`))
    }, 5_000)
    waiting[at] = (reply) => {
      clearTimeout(timer)
      if (reply.requestId !== undefined && requestId !== undefined && reply.requestId !== requestId)
        reject(new Error(`answer to ${reply.requestId} while waiting for ${requestId}`))
      else resolve(reply)
    }
    sockets[at]!.send(text)
  })
}

/** Junk of every JSON type, and values that are nearly right. */
const junk = fc.oneof(
  fc.constantFrom(
    null,
    true,
    0,
    -1,
    1.5,
    1e308,
    '',
    ' ',
    '0',
    '-1',
    '1e3',
    '0x10',
    'NaN',
    '1.123456789012345678901',
    '9'.repeat(40),
    '\u0000',
    'BTC-EUR ',
    'btc-eur',
    [],
    {},
  ),
  fc.string({ maxLength: 12 }),
  fc.integer(),
  fc.double(),
  fc.anything({ maxDepth: 2, maxKeys: 3 }),
)
/** Mostly a valid value, sometimes junk. */
const mostly = <T>(valid: fc.Arbitrary<T>) =>
  fc.oneof({ arbitrary: valid, weight: 6 }, { arbitrary: junk, weight: 1 })
const decimal = mostly(
  fc.oneof(
    fc.constantFrom('0.001', '0.01', '0.1', '1', '0.00000001', '1.5'),
    fc.integer({ min: 1, max: 100_000 }).map(String),
  ),
)
const price = mostly(fc.integer({ min: 90, max: 110 }).map((price) => String(price * 500)))
const time = mostly(fc.integer({ min: 0, max: Date.now() + 60_000 }))
const count = mostly(fc.integer({ min: 0, max: 1_001 }))
/** An order placed so far (a fresh id before any). */
const knownOrderId = fc
  .nat()
  .map((at) => placed[at % placed.length] ?? '00000000-0000-7000-8000-000000000000')
const orderId = mostly(fc.oneof({ arbitrary: knownOrderId, weight: 4 }, fc.uuid()))
const market = mostly(fc.constantFrom('BTC-EUR', 'ETH-EUR', 'DOGE-EUR'))
const symbol = mostly(fc.constantFrom('EUR', 'BTC', 'ETH', 'XYZ'))
const bool = mostly(fc.boolean())
/** What each parameter of the actions can be. */
const parameters: Record<string, fc.Arbitrary<unknown>> = {
  market,
  side: mostly(fc.constantFrom('buy', 'sell')),
  orderType: mostly(fc.constantFrom(...orderType.options)),
  amount: decimal,
  amountQuote: decimal,
  amountRemaining: decimal,
  price,
  triggerAmount: price,
  triggerType: mostly(fc.constant('price')),
  triggerReference: mostly(fc.constantFrom('lastTrade', 'bestBid', 'bestAsk', 'midPrice')),
  timeInForce: mostly(fc.constantFrom('GTC', 'IOC', 'FOK')),
  postOnly: bool,
  selfTradePrevention: mostly(
    fc.constantFrom('decrementAndCancel', 'cancelOldest', 'cancelNewest', 'cancelBoth'),
  ),
  disableMarketProtection: bool,
  responseRequired: bool,
  codGroupId: mostly(fc.integer({ min: 0, max: 3 })),
  orderId,
  orderIdFrom: orderId,
  orderIdTo: orderId,
  clientOrderId: mostly(fc.uuid()),
  operatorId: mostly(fc.integer({ min: 0, max: 1_000 })),
  limit: count,
  start: time,
  end: time,
  depth: count,
  interval: mostly(fc.constantFrom('1m', '5m', '1h', '1d', '1W')),
  tradeId: count,
  tradeIdFrom: count,
  tradeIdTo: count,
  base: symbol,
  quote: symbol,
  symbol,
  address: mostly(
    fc.constantFrom('NL91ABNA0417164300', 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'),
  ),
  paymentId: junk,
  internal: bool,
  addWithdrawalFee: bool,
  fromDate: time,
  toDate: time,
  page: count,
  maxItems: count,
  type: mostly(fc.constantFrom('buy', 'sell', 'deposit', 'withdrawal')),
  key: mostly(fc.nat().map((at) => keys[at % 2]?.key ?? '')),
  signature: mostly(fc.stringMatching(/^[0-9a-f]{64}$/)),
  timestamp: time,
  window: count,
  token: mostly(fc.stringMatching(/^[A-Za-z0-9_-]{20,40}$/)),
  channels: mostly(
    fc.array(
      fc.record(
        {
          name: mostly(
            fc.constantFrom('book', 'ticker', 'ticker24h', 'trades', 'candles', 'account'),
          ),
          markets: mostly(
            fc.array(fc.constantFrom('BTC-EUR', 'ETH-EUR', 'DOGE-EUR'), { maxLength: 3 }),
          ),
          interval: mostly(fc.array(fc.constantFrom('1m', '1h'), { maxLength: 2 })),
        },
        { requiredKeys: ['name'] },
      ),
      { maxLength: 3 },
    ),
  ),
}
/** Parameters an action is seldom sent without: there nine times in ten; the others one in three. */
const usual = new Set(['market', 'side', 'orderType', 'amount', 'price', 'orderId', 'channels'])

/** `value`, or null (left out) `absent` times to its `present`. */
const sometimes = <T>(value: fc.Arbitrary<T>, present: number, absent: number) =>
  fc.oneof({ arbitrary: value, weight: present }, { arbitrary: fc.constant(null), weight: absent })

/** A parameter's value, or null when it is left out. */
const included = (name: string) =>
  usual.has(name)
    ? sometimes(parameters[name] ?? junk, 9, 1)
    : sometimes(parameters[name] ?? junk, 1, 2)

/** One action's request: its own parameters, each there or not, and now and then one it lacks. */
function requestFor(action: WsAction): fc.Arbitrary<Record<string, unknown>> {
  const names = Object.keys((wsRequests[action] as unknown as { shape: object }).shape).filter(
    (name) => name !== 'action' && name !== 'requestId',
  )
  return fc
    .tuple(
      fc.tuple(...names.map(included)),
      sometimes(fc.record({ unknownParameter: junk }), 1, 19),
    )
    .map(([values, extra]) => ({
      action,
      ...Object.fromEntries(
        names.flatMap((name, at) => (values[at] === null ? [] : [[name, values[at]]])),
      ),
      ...(extra ?? {}),
    }))
}

/** Both markets' orders as a client sends them: a limit order near the price, or a market order. */
const goodOrder = fc.oneof(
  fc.record(
    {
      market: fc.constant('BTC-EUR'),
      side: fc.constantFrom('buy', 'sell'),
      orderType: fc.constant('limit'),
      amount: fc.constantFrom('0.0001', '0.001', '0.01', '0.1'),
      price: fc.integer({ min: 59_000, max: 61_000 }).map(String),
      timeInForce: fc.constantFrom('GTC', 'IOC', 'FOK'),
      postOnly: fc.boolean(),
      clientOrderId: fc.uuid(),
    },
    { requiredKeys: ['market', 'side', 'orderType', 'amount', 'price'] },
  ),
  fc.record({
    market: fc.constant('ETH-EUR'),
    side: fc.constantFrom('buy', 'sell'),
    orderType: fc.constant('limit'),
    amount: fc.constantFrom('0.01', '0.1', '1'),
    price: fc.integer({ min: 290_000, max: 310_000 }).map((cents) => (cents / 100).toFixed(2)),
  }),
  fc.record(
    {
      market: fc.constantFrom('BTC-EUR', 'ETH-EUR'),
      side: fc.constantFrom('buy', 'sell'),
      orderType: fc.constant('market'),
      amount: fc.constantFrom('0.001', '0.01'),
      amountQuote: fc.constantFrom('10', '100'),
    },
    { requiredKeys: ['market', 'side', 'orderType'] },
  ),
)
/** A good request with one of its fields now and then turned to junk. */
const nearlyGood = <T extends Record<string, unknown>>(good: fc.Arbitrary<T>) =>
  good.chain((request) =>
    fc.oneof(
      { arbitrary: fc.constant(request), weight: 3 },
      fc
        .constantFrom(...Object.keys(request))
        .chain((key) => junk.map((value) => ({ ...request, [key]: value }))),
    ),
  )
/** The requests that change or read the state of orders, mostly well formed. */
const aboutOrders = fc.oneof(
  nearlyGood(goodOrder).map((order) => ({ action: 'privateCreateOrder', ...order })),
  nearlyGood(
    fc.record({ market: fc.constantFrom('BTC-EUR', 'ETH-EUR'), orderId: knownOrderId }),
  ).chain((order) =>
    fc
      .constantFrom('privateCancelOrder', 'privateGetOrder', 'privateGetOrders')
      .map((action) => ({ action, ...order })),
  ),
  nearlyGood(
    fc.record({
      market: fc.constantFrom('BTC-EUR', 'ETH-EUR'),
      orderId: knownOrderId,
      amount: fc.constantFrom('0.001', '0.02'),
    }),
  ).map((order) => ({ action: 'privateUpdateOrder', ...order })),
  nearlyGood(
    fc.record({
      channels: fc.constant([
        { name: 'book', markets: ['BTC-EUR'] },
        { name: 'account', markets: ['BTC-EUR', 'ETH-EUR'] },
      ]),
    }),
  ).chain((request) =>
    fc.constantFrom('subscribe', 'unsubscribe').map((action) => ({ action, ...request })),
  ),
)

/** Any action's request; authenticating (never with a good signature) only on the stranger's. */
const anyRequest = fc.constantFrom(0, 1, stranger).chain((at) =>
  fc.record({
    at: fc.constant(at),
    message: fc.oneof(
      { arbitrary: fc.record({ action: junk }), weight: 1 },
      {
        arbitrary: fc
          .constantFrom(
            ...wsActions.filter((action) => action !== 'authenticate' || at === stranger),
          )
          .chain(requestFor),
        weight: 10,
      },
      { arbitrary: aboutOrders, weight: 10 },
    ),
  }),
)

/** A frame's text: a request as sent with a character taken out, put in or changed, or any text. */
const anyFrame = fc.oneof(
  fc
    .tuple(
      aboutOrders.map((message) => JSON.stringify(message)),
      fc.nat(),
      fc.string({ maxLength: 2 }),
    )
    .map(([text, where, put]) => {
      const at = where % (text.length + 1)
      return `${text.slice(0, at)}${put}${text.slice(at + (where % 2))}`
    }),
  fc.json({ maxDepth: 3 }),
  fc.string({ maxLength: 40 }),
  fc.constantFrom(
    '',
    '{',
    '[1,2]',
    '"text"',
    '{"action":"getTime"',
    '{}',
    'null',
    '{"requestId":5}',
  ),
)

/** One endpoint's call: its path with a market, and its own parameters, each there or not. */
function callTo(
  endpoint: RestEndpoint,
): fc.Arbitrary<{ path: string; params: Record<string, unknown> }> {
  const names = Object.keys((endpoint.request as unknown as { shape: object }).shape)
  return fc
    .tuple(
      mostly(fc.constantFrom('BTC-EUR', 'ETH-EUR', 'DOGE-EUR')).map((market) =>
        encodeURIComponent(typeof market === 'string' ? market : (JSON.stringify(market) ?? '')),
      ),
      fc.tuple(...names.map(included)),
      sometimes(fc.record({ unknownParameter: junk }), 1, 19),
    )
    .map(([market, values, extra]) => ({
      path: `/v2${endpoint.path.replace('{market}', market)}`,
      params: {
        ...Object.fromEntries(
          names.flatMap((name, at) => (values[at] === null ? [] : [[name, values[at]]])),
        ),
        ...(extra ?? {}),
      },
    }))
}

/** A parameter as a query string carries it: text as it is, anything else as its JSON. */
const queryValue = (value: unknown) =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value))

/** The path with the parameters as its query string (none: the path alone). */
function withQuery(path: string, params: Record<string, unknown>): string {
  const query = new URLSearchParams(
    Object.entries(params).map(([name, value]): [string, string] => [name, queryValue(value)]),
  ).toString()
  return query === '' ? path : `${path}?${query}`
}

/** A signed call, its parameters in the query or a JSON body as the endpoint takes them. */
function call(who: ApiKey, endpoint: RestEndpoint, path: string, params: Record<string, unknown>) {
  return endpoint.requestIn === 'query'
    ? signedRequest(baseUrl, who, endpoint.method, withQuery(path, params))
    : signedRequest(baseUrl, who, endpoint.method, path, { body: params })
}

const endpointsByName = restEndpoints as Record<string, RestEndpoint>
/** A call to any endpoint, or (one in four) an order placed or cancelled, mostly well formed. */
/**
 * Who signs a REST call: one of the traders, or a stranger with a trader's key and a secret of
 * its own (whose private calls must never succeed).
 */
const anyCall = fc.record({
  at: fc.constantFrom(0, 1, stranger),
  call: fc.oneof(
    {
      arbitrary: fc
        .constantFrom(...Object.keys(endpointsByName))
        .chain((name) => callTo(endpointsByName[name]!).map((request) => ({ name, ...request }))),
      weight: 3,
    },
    nearlyGood(goodOrder).map((params) => ({
      name: 'POST /order',
      path: '/v2/order',
      params,
    })),
    nearlyGood(
      fc.record({ market: fc.constantFrom('BTC-EUR', 'ETH-EUR'), orderId: knownOrderId }),
    ).map((params) => ({
      name: 'DELETE /order',
      path: '/v2/order',
      params,
    })),
  ),
})

/**
 * Whatever was placed, cancelled or refused: with every order cancelled nothing is held, and
 * every asset still balances.
 */
async function expectNothingHalfApplied(): Promise<void> {
  for (const market of ['BTC-EUR', 'ETH-EUR'])
    for (const at of [0, 1])
      expect(await request(at, { action: 'privateCancelOrders', market })).toHaveProperty(
        'response',
      )
  for (const at of [0, 1]) {
    const balances = await request(at, { action: 'privateGetBalance' })
    for (const row of balances.response) expect(Number(row.inOrder)).toBe(0)
  }
  server.service.core.ledger.checkInvariant()
}

const knownErrorCodes = new Set<number>(errorCodes.map(Number))

/** A refusal as the protocol gives it: a code of its catalogue, never 101, and words. */
function expectProtocolError(reply: Json): void {
  expect(reply.errorCode).not.toBe(101)
  expect(knownErrorCodes.has(reply.errorCode)).toBe(true)
  expect(typeof reply.error).toBe('string')
}

/** Checks every generated input, then that nothing was left half-applied. */
async function expectForEvery<T>(
  inputs: fc.Arbitrary<T>,
  check: (input: T) => Promise<void>,
  numRuns: number,
): Promise<void> {
  await fc.assert(fc.asyncProperty(inputs, check), { numRuns, seed: 20261126 })
  await expectNothingHalfApplied()
}

describe('bad input over the WebSocket, generated', () => {
  it('answers every request with a response or a protocol error, never 101, and keeps the socket', async () => {
    await expectForEvery(
      anyRequest,
      async ({ at, message }) => {
        const reply = await request(at, message)
        if (reply.errorCode !== undefined) expectProtocolError(reply)
        else if (reply.event !== undefined)
          expect(['subscribed', 'unsubscribed']).toContain(reply.event)
        else expect(reply).toHaveProperty('response')
        // A socket that never authenticated gets 300 for any private action, whatever it sent.
        if (at === stranger && endpointOfAction.get(String(message.action))?.auth === 'private')
          expect(reply.errorCode).toBe(300)
        if (message.action === 'privateCreateOrder' && reply.response?.orderId)
          placed.push(reply.response.orderId)
        for (const socket of sockets) expect(socket.readyState).toBe(WebSocket.OPEN)
      },
      3_000,
    )
  }, 120_000)
})

describe('malformed frames over the WebSocket, generated', () => {
  it('answers every frame, whatever it holds, and keeps the socket', async () => {
    await expectForEvery(
      fc.tuple(fc.constantFrom(0, stranger), anyFrame),
      async ([at, text]) => {
        const reply = await send(at, text)
        if (reply.errorCode !== undefined) expectProtocolError(reply)
        for (const socket of sockets) expect(socket.readyState).toBe(WebSocket.OPEN)
      },
      1_500,
    )
  }, 120_000)
})

describe('bad input over REST, generated', () => {
  it('answers every call with its JSON or a protocol error, never 101 nor a 5xx', async () => {
    await expectForEvery(
      anyCall,
      async ({ at, call: { name, path, params } }) => {
        const endpoint = endpointsByName[name]!
        const who = keys[at] ?? { key: keys[0]!.key, secret: randomBytes(32).toString('hex') }
        const { status, json: reply } = await call(who, endpoint, path, params)
        expect(status).toBeLessThan(500)
        if (at === stranger && endpoint.auth === 'private') expect(status).not.toBe(200)
        if (status !== 200) expectProtocolError(reply)
        else if (name === 'POST /order' && reply.orderId) placed.push(reply.orderId)
      },
      1_500,
    )
  }, 120_000)
})

/** Ids the web API has answered with (savings plans, payments): what later calls name. */
const webIds: string[] = []
const webId = mostly(
  fc.oneof(
    fc.nat().map((at) => webIds[at % webIds.length] ?? '00000000-0000-4000-8000-000000000000'),
    fc.uuid(),
  ),
)
/** What each parameter of the web API's routes can be. */
const webParameters: Record<string, fc.Arbitrary<unknown>> = {
  markets: mostly(fc.constantFrom('BTC-EUR', 'BTC-EUR,ETH-EUR', 'DOGE-EUR')),
  assets: mostly(fc.constantFrom('BTC', 'BTC,ETH', 'XYZ')),
  theme: mostly(fc.constantFrom('light', 'dark')),
  miniChart: mostly(fc.constantFrom('true', 'false')),
  market,
  interval: mostly(fc.constantFrom('1h', '1d', '1W')),
  start: time,
  status: mostly(fc.constantFrom('ACTIVE', 'INACTIVE', 'DELETED')),
  asset: mostly(fc.constantFrom('BTC', 'ETH', 'ADA', 'AKT', 'XYZ')),
  // Savings plans take 10 to 10,000 EUR; stakes and deposits smaller and larger amounts.
  amount: mostly(fc.constantFrom('0.5', '1', '10', '25', '100', '250.50', '10000', '20000')),
  frequency: mostly(fc.constantFrom('DAILY', 'WEEKLY', 'FORTNIGHTLY', 'MONTHLY')),
  startDate: mostly(fc.constantFrom('2026-12-01', '2027-01-31', '2026-02-30', '2026-11-26')),
  data: mostly(
    fc.record(
      {
        amount: decimal,
        frequency: mostly(fc.constantFrom('DAILY', 'MONTHLY')),
        status: mostly(fc.constantFrom('ACTIVE', 'INACTIVE')),
      },
      { requiredKeys: [] },
    ),
  ),
  page: count,
  size: count,
  acknowledgeRisk: bool,
  method: mostly(fc.constantFrom('sepa', 'ideal', 'card', 'paypal', 'cash')),
  clientPaymentId: mostly(fc.stringMatching(/^[A-Za-z0-9_-]{1,8}$/)),
  email: mostly(fc.emailAddress()),
  password: mostly(fc.string({ minLength: 0, maxLength: 30 })),
}
/** The web API's routes: method, path (`{id}` filled in) and the parameters each takes. */
const webRoutes: [method: string, path: string, parameters: string[]][] = [
  ['GET', '/exchange/proxy/v3/markets/data', ['markets', 'assets', 'theme', 'miniChart']],
  ['GET', '/exchange/xp/v1/markets/price/candles', ['market', 'interval', 'start']],
  ['GET', '/exchange/savings-plans/v1', ['status']],
  ['GET', '/exchange/savings-plans/v1/assets', []],
  ['POST', '/exchange/savings-plans/v1', ['asset', 'amount', 'frequency', 'startDate', 'status']],
  ['GET', '/exchange/savings-plans/v1/{id}', []],
  ['PATCH', '/exchange/savings-plans/v1/{id}', ['data']],
  ['DELETE', '/exchange/savings-plans/v1/{id}', []],
  ['GET', '/exchange/savings-plans/v1/{id}/executions', ['page', 'size']],
  ['GET', '/exchange/staking/v1', []],
  ['GET', '/exchange/staking/v1/assets', []],
  ['POST', '/exchange/staking/v1/stake', ['asset', 'amount', 'acknowledgeRisk']],
  ['POST', '/exchange/staking/v1/unstake', ['asset', 'amount']],
  ['GET', '/exchange/payments/v1/methods', []],
  ['GET', '/exchange/payments/v1/limits', []],
  ['GET', '/exchange/payments/v1/deposits', []],
  ['GET', '/exchange/payments/v1/deposits/{id}', []],
  ['POST', '/exchange/payments/v1/deposits', ['method', 'amount', 'clientPaymentId']],
  ['POST', '/exchange/auth/v1/signup', ['email', 'password']],
  ['POST', '/exchange/auth/v1/login', ['email', 'password']],
]
const webIncluded = (name: string) => sometimes(webParameters[name]!, 4, 1)
/** A web call: a route, its parameters (in the query for GET and DELETE), and whose session. */
const anyWebCall = fc.constantFrom(...webRoutes).chain(([method, template, names]) =>
  fc.record({
    method: fc.constant(method),
    path: webId.map((id) =>
      template.replace('{id}', encodeURIComponent(typeof id === 'string' ? id : String(id))),
    ),
    params: fc
      .tuple(
        fc.tuple(...names.map(webIncluded)),
        sometimes(fc.record({ unknownParameter: junk }), 1, 19),
      )
      .map(([values, extra]) => ({
        ...Object.fromEntries(
          names.flatMap((name, at) => (values[at] === null ? [] : [[name, values[at]]])),
        ),
        ...(extra ?? {}),
      })),
    // A body now and then not JSON at all, or not an object.
    rawBody: sometimes(fc.constantFrom('{', '', 'null', '[]', '"text"', '{"amount":'), 1, 12),
    session: fc.oneof(
      { arbitrary: fc.constant('own'), weight: 8 },
      fc.constantFrom('none', 'junk'),
    ),
  }),
)

describe("bad input to the spec's web API, generated", () => {
  it('answers every call with JSON or nothing, a protocol error when refused, never a 5xx', async () => {
    await expectForEvery(
      anyWebCall,
      async ({ method, path, params, rawBody, session }) => {
        const inQuery = method === 'GET' || method === 'DELETE'
        const token = session === 'own' ? sessionToken : session === 'junk' ? 'x'.repeat(43) : ''
        const response = await fetch(`${baseUrl}${inQuery ? withQuery(path, params) : path}`, {
          method,
          headers: {
            ...(token === '' ? {} : { authorization: `Bearer ${token}` }),
            ...(inQuery ? {} : { 'content-type': 'application/json' }),
          },
          ...(inQuery ? {} : { body: rawBody ?? JSON.stringify(params) }),
        })
        const text = await response.text()
        expect(response.status).toBeLessThan(500)
        if (text === '') return
        const reply = JSON.parse(text)
        if (response.status >= 400) expectProtocolError(reply)
        else if (typeof reply.id === 'string') webIds.push(reply.id)
      },
      1_500,
    )
  }, 120_000)
})
