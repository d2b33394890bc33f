// A client keeps a local book by protocol §6.4's recipe: subscribe to the book channel, ask
// getBook, apply the events after the snapshot's nonce, each exactly one more than the last.
// Both clients of §6.4 must end with the server's book and never see a gap:
// - the official SDK ignores the book events that arrive before its getBook answer, so on the
//   socket the answer with nonce N must come after the event N and before the event N + 1;
// - ccxt buffers them and drops those up to the snapshot's nonce, so the snapshot must show the
//   book exactly as it was after the event N.
// A REST snapshot travels on a connection of its own: only the second rule applies to it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { bookCommands, holdJournalWrites, watchBookSnapshot } from './fixtures/journalGate.ts'
import { openRecordingSocket, type RecordingSocket } from './fixtures/recordingSocket.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

/** Short, so that a few seconds of trading give many book events and many quiet leading edges. */
const bookFlushIntervalMs = 20

let server: ExchangeServer
let baseUrl: string
let wsUrl: string
let maker: Trader
let taker: Trader

beforeAll(async () => {
  const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir: undefined }
  server = await createExchangeServer(config, testListing, undefined, { bookFlushIntervalMs })
  baseUrl = await server.listen()
  wsUrl = `${baseUrl.replace('http', 'ws')}/v2`
  maker = await createTrader(server, 'recipe-maker@example.com', { EUR: '1000000', BTC: '100' })
  taker = await createTrader(server, 'recipe-taker@example.com', { EUR: '1000000', BTC: '100' })
})
afterAll(() => server.close())

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function subscribedToBook(trader?: Trader): Promise<RecordingSocket> {
  const socket =
    trader === undefined ? await openRecordingSocket(wsUrl) : await authenticated(trader)
  const subscribed = socket.next((m) => m.event === 'subscribed', 'subscribed')
  socket.ws.send(
    JSON.stringify({ action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] }),
  )
  await subscribed
  return socket
}

async function authenticated(trader: Trader): Promise<RecordingSocket> {
  const socket = await openRecordingSocket(wsUrl)
  const done = socket.next((m) => m.event === 'authenticate', 'authentication')
  socket.ws.send(JSON.stringify(authenticateRequest(trader)))
  expect(await done).toMatchObject({ authenticated: true })
  return socket
}

type Levels = [string, string][]
type Book = { bids: Map<string, string>; asks: Map<string, string> }

/** Levels best first, as a snapshot lists them. */
function levelsOf(side: Map<string, string>, descending: boolean): Levels {
  const levels = [...side.entries()]
  levels.sort((a, b) => (descending ? Number(b[0]) - Number(a[0]) : Number(a[0]) - Number(b[0])))
  return levels
}

const shown = (book: Book) => ({
  bids: levelsOf(book.bids, true),
  asks: levelsOf(book.asks, false),
})

function apply(book: Book, event: Json): void {
  for (const [side, levels] of [
    [book.bids, event.bids],
    [book.asks, event.asks],
  ] as const)
    for (const [price, size] of levels as Levels)
      if (Number(size) === 0) side.delete(price)
      else side.set(price, size)
}

/**
 * Replays what one socket received as the SDK would, from its first getBook answer: book
 * events before an answer are ignored, and the first one after it must carry the answer's
 * nonce + 1, and every later one the previous one's + 1. Returns the book after each nonce
 * (for REST snapshots to be checked against), and the local book at the end.
 */
function replayAsTheSdk(received: readonly Json[]): {
  byNonce: Map<number, ReturnType<typeof shown>>
  local: Book
  nonce: number
} {
  const byNonce = new Map<number, ReturnType<typeof shown>>()
  let local: Book | undefined
  let nonce = 0
  for (const message of received) {
    if (message.action === 'getBook') {
      const answer = message.response
      // A later answer must show the very book the events built since the first one.
      if (local !== undefined) {
        expect(answer.nonce, 'a getBook answer behind the events already received').toBe(nonce)
        expect({ bids: answer.bids, asks: answer.asks }).toEqual(shown(local))
      }
      local = { bids: new Map(answer.bids), asks: new Map(answer.asks) }
      nonce = answer.nonce
      byNonce.set(nonce, shown(local))
    } else if (message.event === 'book' && local !== undefined) {
      expect(message.nonce, `the book event after nonce ${nonce}`).toBe(nonce + 1)
      apply(local, message)
      nonce = message.nonce
      byNonce.set(nonce, shown(local))
    }
  }
  if (local === undefined) throw new Error('no getBook answer received')
  return { byNonce, local, nonce }
}

describe('the book recipe of protocol §6.4', () => {
  it('answers getBook between the event with its nonce and the next one, even when both commit together', async () => {
    const watcher = await subscribedToBook()
    const first = watcher.next((m) => m.action === 'getBook', 'the first book')
    watcher.ws.send(JSON.stringify({ action: 'getBook', market: 'BTC-EUR' }))
    await first
    // The hub's leading edge or timer may flush the same change as `flush`: whichever comes
    // first publishes it (one nonce), the other finds nothing new.
    const { place, flush } = bookCommands(server, maker.accountId)
    let restore = () => {}

    // A slow disk: one commit is being written (a deposit) while the next one gathers an order,
    // the flush that shows it (nonce N), a getBook (which takes its snapshot, nonce N, and
    // waits for that commit) and the next order with its flush (N + 1). All of it becomes
    // durable at once, and the answer must still come between the events N and N + 1.
    const release = holdJournalWrites(server)
    const pending: Promise<unknown>[] = [
      server.service.submit({
        type: 'deposit',
        timestamp: Date.now(),
        accountId: maker.accountId,
        asset: 'EUR',
        amount: '100',
        reference: 'held commit',
      }),
    ]
    try {
      // The journal takes its batch at the end of the turn: the deposit is being written now.
      await new Promise((resolve) => setImmediate(resolve))
      pending.push(place(1001), flush())
      const watch = watchBookSnapshot(server)
      restore = watch.restore
      const answered = watcher.next((m) => m.action === 'getBook', 'the book')
      const nextEvent = watcher.next(
        (m) => m.event === 'book' && m.bids.some(([price]: Levels[number]) => price === '1002'),
        'the next book event',
      )
      watcher.ws.send(JSON.stringify({ action: 'getBook', market: 'BTC-EUR' }))
      await watch.taken
      pending.push(place(1002), flush())
      release()
      await Promise.all(pending)
      expect((await answered).response.bids[0]).toEqual(['1001', '0.01000000'])
      await nextEvent
    } finally {
      restore()
      release()
    }
    const { local, nonce } = replayAsTheSdk(watcher.received)
    const answers = watcher.received.filter((m) => m.action === 'getBook')
    expect(nonce).toBe(answers.at(-1).response.nonce + 1)
    expect(shown(local).bids.slice(0, 2)).toEqual([
      ['1002', '0.01000000'],
      ['1001', '0.01000000'],
    ])
    watcher.ws.close()
  })

  it('keeps a local book equal to the server’s through trading, over WebSocket and REST', async () => {
    // The maker trades on the socket it watches the book on: an order and the getBook behind
    // it arrive together.
    const watcher = await subscribedToBook(maker)
    const takerSocket = await authenticated(taker)
    let requestId = 0
    const order = (socket: RecordingSocket, fields: Record<string, unknown>): Promise<Json> => {
      requestId += 1
      const id = requestId
      const reply = socket.next((m) => m.requestId === id, `the reply to request ${id}`)
      socket.ws.send(JSON.stringify({ requestId: id, operatorId: 1, market: 'BTC-EUR', ...fields }))
      return reply
    }
    const getBook = (): Promise<Json> => {
      requestId += 1
      const id = requestId
      const reply = watcher.next((m) => m.requestId === id, `the book ${id}`)
      watcher.ws.send(JSON.stringify({ action: 'getBook', requestId: id, market: 'BTC-EUR' }))
      return reply
    }
    // The replay starts here: every REST snapshot below is at least as recent.
    await getBook()
    const restBooks: Promise<Json>[] = []
    const open: string[] = []
    const rounds = 60
    for (let round = 0; round < rounds; round += 1) {
      // Quiet for a whole interval, so that the order below is flushed at its leading edge: a
      // microtask after it, once the getBook that arrived with it has taken its snapshot, and
      // in the commit that the getBook waits for. Not waiting for the answer, as ccxt does not.
      await sleep(bookFlushIntervalMs + 5)
      const replies: Promise<Json>[] = []
      if (round % 5 === 4) {
        // A taker selling into the best bids: fills, and levels that shrink or go.
        replies.push(
          order(takerSocket, {
            action: 'privateCreateOrder',
            side: 'sell',
            orderType: 'limit',
            amount: '0.015',
            price: '900',
          }),
        )
      } else {
        const buy = round % 2 === 0
        const price = buy ? 1000 - (round % 7) : 1100 + (round % 7)
        replies.push(
          order(watcher, {
            action: 'privateCreateOrder',
            side: buy ? 'buy' : 'sell',
            orderType: 'limit',
            amount: '0.01',
            price: String(price),
          }).then((reply) => {
            if (reply.response?.status === 'new') open.push(reply.response.orderId)
            return reply
          }),
        )
      }
      watcher.ws.send(JSON.stringify({ action: 'getBook', market: 'BTC-EUR' }))
      if (round % 3 === 2 && open.length > 0)
        // The taker may have filled it already (233): the cancel then changes nothing.
        replies.push(
          order(watcher, { action: 'privateCancelOrder', orderId: open.shift() }).then((reply) =>
            reply.errorCode === 233 ? { response: 'filled already' } : reply,
          ),
        )
      if (round % 4 === 0)
        restBooks.push(fetch(`${baseUrl}/v2/BTC-EUR/book`).then((response) => response.json()))
      for (const reply of await Promise.all(replies)) expect(reply).toHaveProperty('response')
    }
    // Trading stops; once the last change is published, a fresh snapshot equals the local book.
    await sleep(5 * bookFlushIntervalMs)
    const final = (await getBook()).response
    const { byNonce, local, nonce } = replayAsTheSdk(watcher.received)
    expect(final.nonce).toBe(nonce)
    expect({ bids: final.bids, asks: final.asks }).toEqual(shown(local))
    expect(shown(local).bids.length + shown(local).asks.length).toBeGreaterThan(0)
    // Every REST snapshot shows the book exactly as the events had built it at its nonce.
    for (const book of await Promise.all(restBooks)) {
      expect(byNonce.has(book.nonce), `REST nonce ${book.nonce} seen on the socket`).toBe(true)
      expect({ bids: book.bids, asks: book.asks }).toEqual(byNonce.get(book.nonce))
    }
    for (const socket of [watcher, takerSocket]) socket.ws.close()
  })
})
