// Races across `await` points, from a review of checks made before an await and acted on after
// it. Each test widens one window deterministically (the journal's writes or one store answer
// held back, as a slow disk or a pooled database would hold them) and checks what a client gets
// through it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { type Clock, createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { OrderArchive } from '../src/storage/orderArchive.ts'
import type { SqlParam } from '../src/storage/sqlDriver.ts'
import {
  bookCommands,
  checkpoint,
  gateJournalWrites,
  watchBookSnapshot,
} from './fixtures/journalGate.ts'
import { openRecordingSocket, type RecordingSocket } from './fixtures/recordingSocket.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { startTestServer } from './fixtures/testServer.ts'
import {
  authenticateRequest,
  createTrader,
  limitOrderBody,
  type Trader,
} from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let wsUrl: string
let maker: Trader

beforeAll(async () => {
  const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir: undefined }
  // The timer's flushes would add book events of their own: the tests flush by hand.
  server = await createExchangeServer(config, testListing, undefined, {
    bookFlushIntervalMs: 600_000,
  })
  baseUrl = await server.listen()
  wsUrl = `${baseUrl.replace('http', 'ws')}/v2`
  maker = await createTrader(server, 'race-maker@example.com', { EUR: '1000000', BTC: '100' })
})
afterAll(() => server.close())

/** Resolves once `condition` holds (polled; fails after 5 s naming `what`). */
async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 5_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not happen within 5 s`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

async function authenticated(trader: Trader): Promise<RecordingSocket> {
  const socket = await openRecordingSocket(wsUrl)
  const done = socket.next((m) => m.event === 'authenticate' || m.errorCode, 'authentication')
  socket.ws.send(JSON.stringify(authenticateRequest(trader)))
  expect(await done).toMatchObject({ authenticated: true })
  return socket
}

let requestId = 100
function request(socket: RecordingSocket, fields: Record<string, unknown>): Promise<Json> {
  requestId += 1
  const id = requestId
  const reply = socket.next((m) => m.requestId === id, `the reply to ${String(fields.action)}`)
  socket.ws.send(JSON.stringify({ requestId: id, ...fields }))
  return reply
}

/** Places a limit order in BTC-EUR over the socket; its reply. */
function limitOrder(socket: RecordingSocket, side: 'buy' | 'sell', amount: string, price: string) {
  return request(socket, {
    action: 'privateCreateOrder',
    ...limitOrderBody(side, amount, price, { operatorId: 1 }),
  })
}

/** A weekly savings plan of 25 EUR of BTC, starting tomorrow. */
function weeklyPlan() {
  return {
    asset: 'BTC',
    amount: '25',
    frequency: 'WEEKLY',
    startDate: new Date(Date.now() + 86_400_000).toISOString().slice(0, 10),
  }
}

/**
 * Holds the answer of the first database lookup of `key` until released, as a pooled PostgreSQL
 * connection can deliver it after a later update's; `restore` puts the storage back.
 */
function holdKeyLookup(key: string) {
  const storage = server.storage as unknown as {
    query: (text: string, params?: readonly SqlParam[]) => Promise<unknown[]>
  }
  const query = storage.query
  const { reached, isReached, release, released } = checkpoint()
  let holding = true
  storage.query = async (text, params) => {
    const rows = await query(text, params)
    if (holding && text.includes('from api_keys where key') && params?.[0] === key) {
      holding = false
      reached()
      await released
    }
    return rows
  }
  return {
    isReached,
    release,
    restore: () => {
      storage.query = query
      release()
    },
  }
}

describe('races across await points', () => {
  it('sends no book event after its unsubscribed answer, even one held back for a getBook answer', async () => {
    const watcher = await openRecordingSocket(wsUrl)
    const subscribed = watcher.next((m) => m.event === 'subscribed', 'subscribed')
    watcher.ws.send(
      JSON.stringify({ action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] }),
    )
    await subscribed
    const { place, flush } = bookCommands(server, maker.accountId)
    let restore = () => {}
    const gate = gateJournalWrites(server)
    try {
      // A slow disk: the commit with book event N is being written while the next one (N + 1)
      // gathers; a getBook then takes its snapshot (N + 1) and holds the socket's book events.
      const first = [place(801), flush()]
      await until(() => gate.waiting() === 1, 'the first commit being written')
      const second = [place(802), flush()]
      const watch = watchBookSnapshot(server)
      restore = watch.restore
      const answered = watcher.next((m) => m.action === 'getBook', 'the getBook answer')
      watcher.ws.send(JSON.stringify({ action: 'getBook', market: 'BTC-EUR' }))
      await watch.taken
      // Event N is published (and held for the answer) while N + 1's commit is written...
      gate.releaseOne()
      await Promise.all(first)
      await until(() => gate.waiting() === 1, 'the second commit being written')
      // ...and the client unsubscribes meanwhile: confirmed at once.
      const unsubscribed = watcher.next((m) => m.event === 'unsubscribed', 'unsubscribed')
      watcher.ws.send(
        JSON.stringify({
          action: 'unsubscribe',
          channels: [{ name: 'book', markets: ['BTC-EUR'] }],
        }),
      )
      await unsubscribed
      gate.releaseAll()
      await Promise.all(second)
      await answered
    } finally {
      restore()
      gate.releaseAll()
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
    const at = watcher.received.findIndex((m) => m.event === 'unsubscribed')
    const booksAfter = watcher.received.slice(at + 1).filter((m) => m.event === 'book')
    watcher.ws.close()
    expect(booksAfter, 'book events received after the unsubscribed answer').toEqual([])
  })

  it('answers an order update with the state the update left, not a later command’s', async () => {
    const trader = await createTrader(server, 'race-update@example.com', { EUR: '10000' })
    const socket = await authenticated(trader)
    const created = await limitOrder(socket, 'buy', '0.01', '500')
    const orderId = created.response.orderId as string
    const engine = server.service.core.engine
    const gate = gateJournalWrites(server)
    let updated: Promise<Json>
    try {
      // Pipelined: an update, then a cancel of the same order, applied before the update's commit.
      updated = request(socket, {
        action: 'privateUpdateOrder',
        market: 'BTC-EUR',
        orderId,
        price: '501',
        operatorId: 1,
      })
      await until(() => engine.getOrder('BTC-EUR', orderId)?.price === 501, 'the update applied')
      const canceled = request(socket, {
        action: 'privateCancelOrder',
        market: 'BTC-EUR',
        orderId,
        operatorId: 1,
      })
      await until(
        () => engine.openOrders('BTC-EUR', trader.accountId).length === 0,
        'the cancel applied',
      )
      gate.releaseAll()
      await canceled
    } finally {
      gate.releaseAll()
    }
    const reply = await updated
    socket.ws.close()
    expect(reply.response).toMatchObject({ orderId, price: '501', status: 'new' })
  })

  it('lists an open order with the fills its state counts, not one applied while the order archive was read', async () => {
    const seller = await createTrader(server, 'race-listed@example.com', { BTC: '1' })
    const socket = await authenticated(seller)
    const makerSocket = await authenticated(maker)
    const created = await limitOrder(socket, 'sell', '0.01', '90000')
    expect(created.response.status).toBe('new')
    // The listing's read of the order archive answers late.
    const list = OrderArchive.prototype.list
    const { reached, isReached, release, released } = checkpoint()
    OrderArchive.prototype.list = async function (this: OrderArchive, ...args) {
      const listed = await list.apply(this, args)
      reached()
      await released
      return listed
    }
    let listed: Json
    try {
      const reply = request(socket, { action: 'privateGetOrders', market: 'BTC-EUR' })
      await isReached
      // Meanwhile a buy takes half of the order.
      const bought = await limitOrder(makerSocket, 'buy', '0.005', '90000')
      expect(bought.response.status).toBe('filled')
      release()
      listed = await reply
    } finally {
      OrderArchive.prototype.list = list
      release()
    }
    socket.ws.close()
    makerSocket.ws.close()
    const [order] = listed.response
    expect(order).toMatchObject({ orderId: created.response.orderId, status: 'new' })
    expect(order.fills).toEqual([])
  })

  it('refuses a key revoked while a lookup of it was on its way back from the database', async () => {
    const trader = await createTrader(server, 'race-recache@example.com', { EUR: '100' })
    // As a pooled PostgreSQL connection can deliver it: the key's row is read before the
    // revocation's update, and that answer arrives after the update's.
    const lookup = holdKeyLookup(trader.key)
    try {
      const inFlight = signedRequest(baseUrl, trader, 'GET', '/v2/balance')
      await lookup.isReached
      await server.accounts.revokeApiKey(trader.key)
      lookup.release()
      await inFlight // began before the revocation: either answer is fair
    } finally {
      lookup.restore()
    }
    // Asked after the revocation was done and told to every listener: the store (which a
    // WebSocket authenticate asks too) and a signed request.
    expect(await server.accounts.findApiKey(trader.key)).toMatchObject({ revoked: true })
    const after = await signedRequest(baseUrl, trader, 'GET', '/v2/balance')
    expect(after.json).toMatchObject({ errorCode: 305 })
  })

  it('creates no savings plan with a key revoked while its lookup was on its way back', async () => {
    const trader = await createTrader(server, 'race-web-key@example.com', { EUR: '1000' })
    // As above, but on the web API, which checked the key once only.
    const lookup = holdKeyLookup(trader.key)
    let created: { status: number; json: Json }
    try {
      const creating = signedRequest(baseUrl, trader, 'POST', '/exchange/savings-plans/v1', {
        body: weeklyPlan(),
      })
      await lookup.isReached
      await server.accounts.revokeApiKey(trader.key)
      lookup.release()
      created = await creating
    } finally {
      lookup.restore()
    }
    expect({
      status: created.status,
      errorCode: created.json.errorCode,
      plans: server.service.core.savingsPlansOf(trader.accountId).length,
    }).toEqual({ status: 403, errorCode: 305, plans: 0 })
  })

  it('places no REST order once its key’s revocation is done', async () => {
    const trader = await createTrader(server, 'race-revoked-order@example.com', { EUR: '1000' })
    // The account's fee tier is not known yet: its first private call reads it.
    const accounts = server.accounts as unknown as {
      loadFeeTier: (accountId: number) => Promise<number>
    }
    const loadFeeTier = accounts.loadFeeTier
    const { reached, isReached, release, released } = checkpoint()
    accounts.loadFeeTier = async (accountId) => {
      const tier = await loadFeeTier.call(server.accounts, accountId)
      reached()
      await released
      return tier
    }
    let placed: { status: number; json: Json }
    try {
      const order = signedRequest(baseUrl, trader, 'POST', '/v2/order', {
        body: {
          market: 'BTC-EUR',
          side: 'buy',
          orderType: 'limit',
          amount: '0.01',
          price: '600',
          operatorId: 1,
        },
      })
      await isReached
      // The operator revokes the key (the revocation is stored and every socket told)...
      await server.accounts.revokeApiKey(trader.key)
      release()
      placed = await order
    } finally {
      accounts.loadFeeTier = loadFeeTier
      release()
    }
    // ...and then the order that was waiting for the account's fee tier reaches the book.
    const open = server.service.core.engine.openOrders('BTC-EUR', trader.accountId)
    expect({ status: placed.status, open: open.length }).toEqual({
      status: 403,
      open: 0,
    })
  })

  it('answers a created savings plan with 201 even when it is deleted before its commit', async () => {
    const trader = await createTrader(server, 'race-saver@example.com', { EUR: '1000' })
    const gate = gateJournalWrites(server)
    let created: Promise<{ status: number; json: Json }>
    try {
      created = signedRequest(baseUrl, trader, 'POST', '/exchange/savings-plans/v1', {
        body: weeklyPlan(),
      })
      // Reads answer from memory: another tab lists the new plan and deletes it.
      await until(() => server.service.core.savingsPlansOf(trader.accountId).length === 1, 'create')
      const listed = await signedRequest(baseUrl, trader, 'GET', '/exchange/savings-plans/v1')
      const id: string | undefined = listed.json[0]?.id
      expect(id).toBeDefined()
      const deleted = signedRequest(baseUrl, trader, 'DELETE', `/exchange/savings-plans/v1/${id}`)
      await until(() => server.service.core.savingsPlansOf(trader.accountId).length === 0, 'delete')
      gate.releaseAll()
      expect((await deleted).status).toBe(200)
    } finally {
      gate.releaseAll()
    }
    const answer = await created
    expect(answer.status, JSON.stringify(answer.json)).toBe(201)
  })

  it('never lets a request charged late reset the rate-limit window of the minute under way', async () => {
    const minuteMs = 60_000
    let nowMs = Math.ceil(Date.now() / minuteMs) * minuteMs + 59_000
    const clock: Clock = { nowMs: () => nowMs }
    const limited = await startTestServer({ rateLimitWeightPerMinute: 20 }, clock)
    try {
      const trader = await createTrader(limited.server, 'race-limit@example.com', { EUR: '10' })
      const accounts = limited.server.accounts as unknown as {
        findApiKey: (key: string) => Promise<unknown>
      }
      const findApiKey = accounts.findApiKey
      const { reached, isReached, release, released } = checkpoint()
      let holding = true
      accounts.findApiKey = async (key) => {
        const found = await findApiKey.call(limited.server.accounts, key)
        if (holding) {
          holding = false
          reached()
          await released
        }
        return found
      }
      const balance = () =>
        signedRequest(limited.baseUrl, trader, 'GET', '/v2/balance', { timestampMs: nowMs })
      let late: Promise<{ status: number }>
      const newMinute: { status: number }[] = []
      try {
        // A request of the last second of a minute whose key lookup is slow (weight 5)...
        late = balance()
        await isReached
        // ...while the next minute begins and the key spends its whole budget (4 × 5 = 20).
        nowMs += 2_000
        for (let i = 0; i < 4; i += 1) newMinute.push(await balance())
        release()
        await late
      } finally {
        accounts.findApiKey = findApiKey
        release()
      }
      // Every further call of this minute is over the budget.
      for (let i = 0; i < 4; i += 1) newMinute.push(await balance())
      const allowed = newMinute.filter((answer) => answer.status === 200).length
      expect(allowed, 'calls of weight 5 allowed in one minute with a budget of 20').toBe(4)
    } finally {
      await limited.server.close()
    }
  })
})
