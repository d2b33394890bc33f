// An account's private figures against each other and against what was traded: orders against
// their fills, /trades and the `fill` events; the fee of every fill against the per-role rule;
// /balance against deposits, withdrawals and fills, and its inOrder against the open orders'
// holds; /account/history against all of them; the account's volume; the WebSocket's answers
// against REST's; and all of it again after a restart (from a review of the account's figures,
// 2026-11-28, which found them in agreement). Exact decimal arithmetic at 10^-18.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any

const SCALE = 18
/** A decimal string as an integer of 10^-18 units, exactly. */
function units(text: string): bigint {
  expect(text, 'a decimal string').toMatch(/^-?\d+(\.\d+)?$/)
  const negative = text.startsWith('-')
  const [whole, frac = ''] = text.replace('-', '').split('.')
  const value =
    BigInt(whole!) * 10n ** BigInt(SCALE) + BigInt((frac + '0'.repeat(SCALE)).slice(0, SCALE))
  return negative ? -value : value
}
const mul = (a: bigint, b: bigint) => (a * b) / 10n ** BigInt(SCALE)
const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n)

const dataDir = mkdtempSync(join(tmpdir(), 'polder-review-account-'))
let server: ExchangeServer
let baseUrl: string
let maker: Trader
let taker: Trader
let tiered: Trader
const events = new Map<number, Json[]>()
const sockets: { ws: WebSocket; messages: Json[] }[] = []

const start = async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir, simulator: false },
    testListing,
  )
  baseUrl = await server.listen()
}

const call = async (who: Trader, method: string, path: string, body?: unknown) => {
  const response = await signedRequest(baseUrl, who, method, path, { body, windowMs: 10_000 })
  expect(response.status, `${method} ${path} ${JSON.stringify(response.json)}`).toBe(200)
  return response.json
}
const order = (who: Trader, body: Record<string, unknown>) =>
  call(who, 'POST', '/v2/order', { market: 'BTC-EUR', operatorId: 1, ...body })

async function accountSocket(who: Trader): Promise<{ ws: WebSocket; messages: Json[] }> {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => ws.once('open', resolve))
  const messages: Json[] = []
  ws.on('message', (data) => messages.push(JSON.parse(data.toString())))
  ws.send(JSON.stringify(authenticateRequest(who)))
  await until(() => messages.some((m) => m.event === 'authenticate'))
  ws.send(
    JSON.stringify({
      action: 'subscribe',
      channels: [{ name: 'account', markets: ['BTC-EUR', 'ETH-EUR'] }],
    }),
  )
  await until(() => messages.some((m) => m.event === 'subscribed'))
  sockets.push({ ws, messages })
  return { ws, messages }
}
async function until(done: () => boolean) {
  const deadline = Date.now() + 10_000
  while (!done()) {
    if (Date.now() > deadline) throw new Error('no such message within 10 s')
    await new Promise((r) => setTimeout(r, 10))
  }
}
let requestId = 1
async function wsAction(ws: WebSocket, messages: Json[], action: string, params: object = {}) {
  const id = requestId++
  ws.send(JSON.stringify({ action, requestId: id, ...params }))
  await until(() => messages.some((m) => m.requestId === id))
  return messages.find((m) => m.requestId === id)
}
/**
 * Every account socket has received what the server sent it before now: a request's reply comes
 * after the events of every command made durable before it, on the same connection.
 */
async function settle(): Promise<void> {
  for (const { ws, messages } of sockets)
    if (ws.readyState === WebSocket.OPEN) await wsAction(ws, messages, 'getTime')
}

beforeAll(async () => {
  await start()
  maker = await createTrader(server, 'maker@example.com', { BTC: '1', EUR: '100000' })
  taker = await createTrader(server, 'taker@example.com', { BTC: '1', EUR: '100000' })
  for (const who of [maker, taker]) {
    const { messages } = await accountSocket(who)
    events.set(who.accountId, messages)
  }
  // Maker's book.
  await order(maker, { side: 'sell', orderType: 'limit', amount: '0.01', price: '50000' })
  await order(maker, { side: 'sell', orderType: 'limit', amount: '0.02', price: '50100' })
  await order(maker, { side: 'sell', orderType: 'limit', amount: '0.0333', price: '50333' })
  await order(maker, { side: 'buy', orderType: 'limit', amount: '0.01', price: '49000' })
  await order(maker, { side: 'buy', orderType: 'limit', amount: '0.0077', price: '48777' })
  // Taker: market buy by amountQuote across two levels.
  await order(taker, { side: 'buy', orderType: 'market', amountQuote: '701.37' })
  // Taker: limit buy that partly takes and then rests.
  const rest = await order(taker, {
    side: 'buy',
    orderType: 'limit',
    amount: '0.03',
    price: '50100',
  })
  // Taker: market sell by amount across the bids.
  await order(taker, { side: 'sell', orderType: 'market', amount: '0.0123' })
  // Maker sells into the taker's resting bid after amending it (maker fill for the taker).
  await call(taker, 'PUT', '/v2/order', {
    market: 'BTC-EUR',
    orderId: rest.orderId,
    operatorId: 1,
    amount: '0.025',
  })
  await order(maker, { side: 'sell', orderType: 'market', amount: '0.0031' })
  // Market buy by amount.
  await order(taker, { side: 'buy', orderType: 'market', amount: '0.0047' })
  // Market sell by amountQuote.
  await order(maker, { side: 'sell', orderType: 'market', amountQuote: '123.45' })
  // A withdrawal.
  const withdrawKey = await server.accounts.createApiKey(taker.accountId, [
    'view',
    'trade',
    'withdraw',
  ])
  await call({ ...withdrawKey, accountId: taker.accountId }, 'POST', '/v2/withdrawal', {
    symbol: 'BTC',
    amount: '0.01',
    address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
  })
  // An account at fee tier 3, taker then maker.
  tiered = await createTrader(server, 'tiered@example.com', { BTC: '1', EUR: '100000' })
  expect(await server.accounts.setFeeTier(tiered.accountId, 3)).toBe(true)
  events.set(tiered.accountId, (await accountSocket(tiered)).messages)
  await order(tiered, { side: 'buy', orderType: 'limit', amount: '0.005', price: '50333' })
  await order(tiered, { side: 'sell', orderType: 'limit', amount: '0.004', price: '52000' })
  await order(maker, { side: 'buy', orderType: 'limit', amount: '0.003', price: '52000' })
  await order(tiered, { side: 'buy', orderType: 'market', amountQuote: '77.77' })
  // Cancels: the taker's partly filled resting buy, the maker's untouched bid.
  const takerOpen = await call(taker, 'GET', '/v2/ordersOpen?market=BTC-EUR')
  for (const o of takerOpen)
    await call(taker, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${o.orderId}&operatorId=1`)
  const makerOpen: Json[] = await call(maker, 'GET', '/v2/ordersOpen?market=BTC-EUR')
  const bid = makerOpen.find((o) => o.price === '48777')
  await call(maker, 'DELETE', `/v2/order?market=BTC-EUR&orderId=${bid.orderId}&operatorId=1`)
  await settle()
}, 60_000)
afterAll(async () => {
  for (const { ws } of sockets) ws.close()
  await server?.close()
  rmSync(dataDir, { recursive: true, force: true })
})

type Who = () => Trader
const both: [string, Who][] = [
  ['maker', () => maker],
  ['taker', () => taker],
  ['tiered', () => tiered],
]

/** The relations of one account's figures, each as a list of disagreements. */
async function disagreements(who: Trader, messages: Json[] | undefined): Promise<string[]> {
  const bad: string[] = []
  const orders: Json[] = [
    ...(await call(who, 'GET', '/v2/orders?market=BTC-EUR&limit=1000')),
    ...(await call(who, 'GET', '/v2/orders?market=ETH-EUR&limit=1000')),
  ]
  const trades: Json[] = [
    ...(await call(who, 'GET', '/v2/trades?market=BTC-EUR&limit=1000')),
    ...(await call(who, 'GET', '/v2/trades?market=ETH-EUR&limit=1000')),
  ]
  const balance: Json[] = await call(who, 'GET', '/v2/balance')
  const open: Json[] = await call(who, 'GET', '/v2/ordersOpen')
  const deposits: Json[] = await call(who, 'GET', '/v2/depositHistory')
  const withdrawals: Json[] = await call(who, 'GET', '/v2/withdrawalHistory')
  const history = await call(who, 'GET', '/v2/account/history?maxItems=100')
  const account = await call(who, 'GET', '/v2/account')
  const tradesById = new Map(trades.map((t) => [`${t.market}-${t.id}`, t]))
  // Orders against their fills and /trades.
  for (const o of orders) {
    const fills: Json[] = o.fills
    const filled = sum(fills.map((f) => units(f.amount)))
    if (filled !== units(o.filledAmount))
      bad.push(`order ${o.orderId} filledAmount ${o.filledAmount} vs fills ${filled}`)
    const quote = sum(fills.map((f) => mul(units(f.amount), units(f.price))))
    if (quote !== units(o.filledAmountQuote))
      bad.push(`order ${o.orderId} filledAmountQuote ${o.filledAmountQuote} vs fills ${quote}`)
    const fee = sum(fills.map((f) => units(f.fee)))
    if (fee !== units(o.feePaid))
      bad.push(`order ${o.orderId} feePaid ${o.feePaid} vs fills ${fee}`)
    if (
      o.amount !== undefined &&
      o.amountRemaining !== undefined &&
      ['new', 'partiallyFilled', 'filled'].includes(o.status)
    ) {
      if (units(o.amount) - units(o.amountRemaining) !== units(o.filledAmount))
        bad.push(
          `order ${o.orderId} amount-amountRemaining ${o.amount}-${o.amountRemaining} vs filled ${o.filledAmount}`,
        )
    }
    if (o.amountQuote !== undefined && o.amountQuoteRemaining !== undefined && o.side === 'sell') {
      // a sell by amountQuote spends nothing of its quote on fees
      if (units(o.amountQuote) - units(o.amountQuoteRemaining) !== units(o.filledAmountQuote))
        bad.push(
          `order ${o.orderId} amountQuote-remaining ${o.amountQuote}-${o.amountQuoteRemaining} vs filledQuote ${o.filledAmountQuote}`,
        )
    }
    for (const f of fills) {
      const t = tradesById.get(`${o.market}-${f.id}`)
      if (!t) {
        bad.push(`fill ${f.id} of ${o.orderId} not in /trades`)
        continue
      }
      for (const k of ['amount', 'price', 'taker', 'fee', 'feeCurrency', 'timestamp'])
        if (t[k] !== f[k]) bad.push(`fill ${f.id} ${k}: order ${f[k]} /trades ${t[k]}`)
      if (t.orderId !== o.orderId) bad.push(`fill ${f.id} orderId ${t.orderId} vs ${o.orderId}`)
      if (t.side !== o.side) bad.push(`fill ${f.id} side ${t.side} vs ${o.side}`)
    }
  }
  const makerRate = units(account.fees.maker)
  const takerRate = units(account.fees.taker)
  const cent = 10n ** 16n
  const ceilCent = (x: bigint) => ((x + cent - 1n) / cent) * cent
  for (const o of orders) {
    let mq = 0n
    let tq = 0n
    let paid = 0n
    for (const f of o.fills) {
      const q = mul(units(f.amount), units(f.price))
      if (f.taker) tq += q
      else mq += q
      let due = ceilCent(mul(mq, makerRate) + mul(tq, takerRate)) - paid
      if (due > q) due = q
      if (units(f.fee) !== due)
        bad.push(
          `fill ${f.id} fee ${f.fee} vs rule ${due} (maker ${account.fees.maker} taker ${account.fees.taker})`,
        )
      paid += units(f.fee)
    }
  }
  const orderFillIds = new Set(
    orders.flatMap((o) => o.fills.map((f: Json) => `${o.market}-${f.id}`)),
  )
  for (const t of trades)
    if (!orderFillIds.has(`${t.market}-${t.id}`)) bad.push(`/trades ${t.id} in no order`)
  // fill events
  if (messages) {
    const fillEvents = messages.filter((m) => m.event === 'fill')
    for (const e of fillEvents) {
      const t = tradesById.get(`${e.market}-${e.fillId}`)
      if (!t) {
        bad.push(`fill event ${e.fillId} not in /trades`)
        continue
      }
      for (const k of [
        'amount',
        'price',
        'taker',
        'fee',
        'feeCurrency',
        'timestamp',
        'orderId',
        'side',
        'market',
      ])
        if (t[k] !== e[k]) bad.push(`fill event ${e.fillId} ${k}: event ${e[k]} /trades ${t[k]}`)
    }
    if (fillEvents.length !== trades.length)
      bad.push(`fill events ${fillEvents.length} vs /trades ${trades.length}`)
  }
  // Balance against deposits, withdrawals and fills.
  const expected = new Map<string, bigint>()
  const add = (a: string, x: bigint) => expected.set(a, (expected.get(a) ?? 0n) + x)
  for (const d of deposits) add(d.symbol, units(d.amount))
  for (const w of withdrawals) add(w.symbol, -units(w.amount) - units(w.fee))
  for (const t of trades) {
    const q = mul(units(t.amount), units(t.price))
    const base = t.market.split('-')[0]
    if (t.side === 'buy') {
      add(base, units(t.amount))
      add('EUR', -q)
    } else {
      add(base, -units(t.amount))
      add('EUR', q)
    }
    add(t.feeCurrency, -units(t.fee))
  }
  const trunc = (x: bigint, d: number) => (x / 10n ** BigInt(SCALE - d)) * 10n ** BigInt(SCALE - d)
  for (const [asset, total] of expected) {
    const row = balance.find((b) => b.symbol === asset)
    const shown = row ? units(row.available) + units(row.inOrder) : 0n
    const d = asset === 'EUR' ? 2 : 8
    if (shown !== trunc(total, d) && shown !== trunc(total, d) - 10n ** BigInt(SCALE - d))
      bad.push(`balance ${asset} shown ${shown} vs traded ${total}`)
  }
  // inOrder against open orders' onHold.
  for (const row of balance) {
    const held = sum(
      open.filter((o) => o.onHoldCurrency === row.symbol).map((o) => units(o.onHold)),
    )
    if (held !== units(row.inOrder))
      bad.push(`inOrder ${row.symbol} ${row.inOrder} vs open holds ${held}`)
  }
  // History: one item per fill and transfer, fill items as /trades.
  const items: Json[] = history.items
  if (items.length !== trades.length + deposits.length + withdrawals.length)
    bad.push(
      `history ${items.length} items vs ${trades.length}+${deposits.length}+${withdrawals.length}`,
    )
  const hist = new Map<string, bigint>()
  const hadd = (a: string | null, x: string | null, sign: bigint) => {
    if (a === null || x === null) return
    hist.set(a, (hist.get(a) ?? 0n) + sign * units(x))
  }
  for (const it of items) {
    hadd(it.receivedCurrency, it.receivedAmount, 1n)
    hadd(it.sentCurrency, it.sentAmount, -1n)
    hadd(it.feesCurrency, it.feesAmount, -1n)
    if (it.type === 'buy' || it.type === 'sell') {
      const [b, qc, id] = it.transactionId.split('-')
      const t = tradesById.get(`${b}-${qc}-${id}`)
      if (!t) bad.push(`history ${it.transactionId} not in /trades`)
      else {
        if (it.feesAmount !== t.fee)
          bad.push(`history ${it.transactionId} fee ${it.feesAmount} vs ${t.fee}`)
        if (it.type !== t.side) bad.push(`history ${it.transactionId} type ${it.type} vs ${t.side}`)
        if (new Date(it.executedAt).getTime() !== t.timestamp)
          bad.push(`history ${it.transactionId} time`)
        const base = it.type === 'buy' ? it.receivedAmount : it.sentAmount
        if (base !== t.amount) bad.push(`history ${it.transactionId} base ${base} vs ${t.amount}`)
      }
    }
  }
  for (const [asset, total] of expected)
    if ((hist.get(asset) ?? 0n) !== total)
      bad.push(`history sum ${asset} ${hist.get(asset)} vs ${total}`)
  // Volume: euros of the account's fills.
  const vol = sum(trades.map((t) => mul(units(t.amount), units(t.price))))
  if (units(account.fees.volume) !== trunc(vol, 2))
    bad.push(`volume ${account.fees.volume} vs fills ${vol}`)
  return bad
}

describe("an account's figures", () => {
  for (const [name, who] of both)
    it(`${name}: orders, fills, trades, events, balance, holds, history, volume`, async () => {
      expect(await disagreements(who(), events.get(who().accountId))).toEqual([])
    })
})

/** Every private figure of the account over REST, to compare before and after a restart. */
async function figures(who: Trader) {
  const orders: Json[] = await call(who, 'GET', '/v2/orders?market=BTC-EUR&limit=1000')
  return {
    orders,
    each: await Promise.all(
      orders.map((o) => call(who, 'GET', `/v2/order?market=BTC-EUR&orderId=${o.orderId}`)),
    ),
    trades: await call(who, 'GET', '/v2/trades?market=BTC-EUR&limit=1000'),
    balance: await call(who, 'GET', '/v2/balance'),
    open: await call(who, 'GET', '/v2/ordersOpen'),
    deposits: await call(who, 'GET', '/v2/depositHistory'),
    withdrawals: (await call(who, 'GET', '/v2/withdrawalHistory')).map((w: Json) => ({
      ...w,
      status: 'any',
    })),
    history: await call(who, 'GET', '/v2/account/history?maxItems=100'),
    account: await call(who, 'GET', '/v2/account'),
    fees: await call(who, 'GET', '/v2/account/fees'),
  }
}

describe('the WebSocket against REST', () => {
  for (const [name, who] of both)
    it(`${name}: privateGetBalance, privateGetOrdersOpen, privateGetTrades, privateGetOrder, privateGetOrders, last order events`, async () => {
      const { ws, messages } = await accountSocket(who())
      const rest = await figures(who())
      const strip = (x: Json) => x
      expect((await wsAction(ws, messages, 'privateGetBalance')).response).toEqual(rest.balance)
      expect((await wsAction(ws, messages, 'privateGetOrdersOpen')).response).toEqual(rest.open)
      expect(
        (await wsAction(ws, messages, 'privateGetTrades', { market: 'BTC-EUR', limit: 1000 }))
          .response,
      ).toEqual(rest.trades)
      expect(
        (await wsAction(ws, messages, 'privateGetOrders', { market: 'BTC-EUR', limit: 1000 }))
          .response,
      ).toEqual(rest.orders)
      expect((await wsAction(ws, messages, 'privateGetAccount')).response ?? null).toEqual(
        rest.account,
      )
      for (const o of rest.each) {
        const reply = await wsAction(ws, messages, 'privateGetOrder', {
          market: 'BTC-EUR',
          orderId: o.orderId,
        })
        expect(strip(reply.response)).toEqual(o)
      }
      // The last order event of each order shows what GET /order shows (but fills).
      const orderEvents = events.get(who().accountId)!.filter((m) => m.event === 'order')
      for (const o of rest.each) {
        const last = orderEvents.filter((e) => e.orderId === o.orderId).at(-1)
        if (!last) continue
        const { event, ...fields } = last
        const { fills, ...expected } = o
        expect({ id: o.orderId, ...fields }).toEqual({ id: o.orderId, ...expected })
      }
    })
})

describe('after a restart on the same data directory', () => {
  it('every account figure is as before, and they still agree', async () => {
    // A buy that takes and then rests and is filled as maker, before and after the restart.
    const a = await createTrader(server, 'a@example.com', { BTC: '1', EUR: '100000' })
    const b = await createTrader(server, 'b@example.com', { BTC: '1', EUR: '100000' })
    await order(a, { side: 'sell', orderType: 'limit', amount: '0.002', price: '50200' })
    const mixed = await order(b, {
      side: 'buy',
      orderType: 'limit',
      amount: '0.009',
      price: '50200',
    })
    await order(a, { side: 'sell', orderType: 'market', amount: '0.001' })
    const all: [string, Who][] = [...both, ['a', () => a], ['b', () => b]]
    const before = new Map<number, Json>()
    for (const [, who] of all) before.set(who().accountId, await figures(who()))
    for (const { ws } of sockets) ws.close()
    await server.close()
    await start()
    for (const [name, who] of all) {
      const after = await figures(who())
      expect({ name, ...after }).toEqual({ name, ...before.get(who().accountId) })
      expect(await disagreements(who(), undefined)).toEqual([])
    }
    // Fills after the restart: b's order as maker again, the tiered account as taker.
    await order(a, { side: 'sell', orderType: 'market', amount: '0.0013' })
    await order(tiered, { side: 'sell', orderType: 'market', amount: '0.0017' })
    const bOrder = await call(b, 'GET', `/v2/order?market=BTC-EUR&orderId=${mixed.orderId}`)
    expect(bOrder.fills.length).toBe(4)
    for (const [name, who] of all)
      expect({ name, bad: await disagreements(who(), undefined) }).toEqual({ name, bad: [] })
    // Again from the journal alone (as after a crash before any snapshot).
    const again = new Map<number, Json>()
    for (const [, who] of all) again.set(who().accountId, await figures(who()))
    await server.close()
    // The newest snapshot dropped: the older one and the journal after it (as a crash before it).
    const snaps = readdirSync(join(dataDir, 'snapshots'))
      .filter((f) => f.endsWith('.json'))
      .sort((x, y) => Number.parseInt(x, 10) - Number.parseInt(y, 10))
    expect(snaps.length).toBeGreaterThan(1)
    rmSync(join(dataDir, 'snapshots', snaps.at(-1)!))
    await start()
    for (const [name, who] of all) {
      const after = await figures(who())
      expect({ name, ...after }).toEqual({ name, ...again.get(who().accountId) })
    }
  }, 60_000)
})

describe('history pages and stop orders', () => {
  it('history pages concatenate to the whole list, with totalPages', async () => {
    for (const [name, who] of both) {
      const whole = await call(who(), 'GET', '/v2/account/history?maxItems=100')
      const pages: Json[] = []
      let totalPages = 0
      for (let page = 1; page <= 10; page++) {
        const one = await call(who(), 'GET', `/v2/account/history?maxItems=3&page=${page}`)
        totalPages = one.totalPages
        pages.push(...one.items)
        if (page >= one.totalPages) break
      }
      expect({ name, items: pages }).toEqual({ name, items: whole.items })
      expect(totalPages).toBe(Math.ceil(whole.items.length / 3))
      for (const type of ['buy', 'sell', 'deposit', 'withdrawal']) {
        const typed = await call(who(), 'GET', `/v2/account/history?maxItems=100&type=${type}`)
        expect({ name, type, items: typed.items }).toEqual({
          name,
          type,
          items: whole.items.filter((x: Json) => x.type === type),
        })
      }
    }
  })
  it('stop orders: holds while waiting, fills and fees once triggered; ETH-EUR figures agree', async () => {
    const s1 = await createTrader(server, 's1@example.com', { BTC: '1', EUR: '100000', ETH: '10' })
    const s2 = await createTrader(server, 's2@example.com', { BTC: '1', EUR: '100000', ETH: '10' })
    const e1 = (await accountSocket(s1)).messages
    const e2 = (await accountSocket(s2)).messages
    await order(s1, {
      side: 'sell',
      orderType: 'stopLoss',
      amount: '0.004',
      triggerAmount: '50000',
      triggerType: 'price',
      triggerReference: 'lastTrade',
    })
    await order(s1, {
      side: 'buy',
      orderType: 'takeProfitLimit',
      amount: '0.002',
      price: '49500',
      triggerAmount: '49600',
      triggerType: 'price',
      triggerReference: 'lastTrade',
    })
    await order(s1, {
      side: 'buy',
      orderType: 'stopLoss',
      amountQuote: '100',
      triggerAmount: '50250',
      triggerType: 'price',
      triggerReference: 'lastTrade',
    })
    expect(await disagreements(s1, e1)).toEqual([])
    // Trigger: a trade at 49000 (maker's bid).
    await order(s2, { side: 'sell', orderType: 'market', amount: '0.008' })
    await settle()
    // ETH-EUR trades.
    await call(s1, 'POST', '/v2/order', {
      market: 'ETH-EUR',
      operatorId: 1,
      side: 'sell',
      orderType: 'limit',
      amount: '0.123457',
      price: '3001.37',
    })
    await call(s2, 'POST', '/v2/order', {
      market: 'ETH-EUR',
      operatorId: 1,
      side: 'buy',
      orderType: 'market',
      amountQuote: '333.33',
    })
    await settle()
    for (const [w, e] of [
      [s1, e1],
      [s2, e2],
    ] as const) {
      expect(await disagreements(w, e)).toEqual([])
      const eth: Json[] = await call(w, 'GET', '/v2/trades?market=ETH-EUR')
      const ethOrders: Json[] = await call(w, 'GET', '/v2/orders?market=ETH-EUR')
      for (const o of ethOrders) {
        expect(sum(o.fills.map((f: Json) => units(f.amount)))).toBe(units(o.filledAmount))
        expect(sum(o.fills.map((f: Json) => mul(units(f.amount), units(f.price))))).toBe(
          units(o.filledAmountQuote),
        )
        expect(sum(o.fills.map((f: Json) => units(f.fee)))).toBe(units(o.feePaid))
      }
      expect(eth.length).toBe(ethOrders.flatMap((o) => o.fills).length)
    }
  })
})

describe('the fee tier by volume', () => {
  it('past 100,000 EUR of volume the account shows and pays tier 1', async () => {
    const w1 = await createTrader(server, 'w1@example.com', { BTC: '10', EUR: '1000000' })
    const w2 = await createTrader(server, 'w2@example.com', { BTC: '10', EUR: '1000000' })
    // 2.1 BTC at 48000 = 100,800 EUR each side.
    await order(w1, { side: 'sell', orderType: 'limit', amount: '2.1', price: '48000' })
    await order(w2, { side: 'buy', orderType: 'limit', amount: '2.1', price: '48000' })
    for (const w of [w1, w2]) {
      const account = await call(w, 'GET', '/v2/account')
      const fees = await call(w, 'GET', '/v2/account/fees')
      expect(account.fees.taker).toBe('0.002')
      expect(fees.tier).toBe('1')
    }
    await order(w1, { side: 'sell', orderType: 'limit', amount: '0.1', price: '48000' })
    const next = await order(w2, { side: 'buy', orderType: 'limit', amount: '0.1', price: '48000' })
    const got = await call(w2, 'GET', `/v2/order?market=BTC-EUR&orderId=${next.orderId}`)
    const cent = 10n ** 16n
    const rule = (rate: string) => {
      const raw = sum(
        got.fills.map((f: Json) => mul(mul(units(f.amount), units(f.price)), units(rate))),
      )
      return ((raw + cent - 1n) / cent) * cent
    }
    expect(got.fills.every((f: Json) => f.taker)).toBe(true)
    expect({ feePaid: units(got.feePaid), tier0: rule('0.0025') }).toEqual({
      feePaid: rule('0.002'),
      tier0: rule('0.0025'),
    })
  })
})
