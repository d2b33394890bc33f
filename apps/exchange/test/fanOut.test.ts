// A broadcast is written a slice of connections at a time, and requests read in between are
// served before the rest of the slices (here a slice is one connection, slices are 100 ms apart,
// and the test holds them back while it reads /metrics and makes three round trips: with the
// 100 ms alone, a slow machine under load could let the slices reach the last three first),
// subscribers' own requests too. Every subscriber still gets every book event in nonce order, and what a
// connection is sent after a broadcast (a reply) reaches it after that broadcast.
import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { UncorkQueue, type WsConnection } from '../src/api/wsConnection.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { openRecordingSocket, readMetric } from './fixtures/recordingSocket.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const subscriberCount = 12

let server: ExchangeServer
let baseUrl: string
let wsUrl: string
let trader: Trader
/** Slices the test holds back (while it is not undefined), to let go when it is ready. */
let slicesHeld: (() => void)[] | undefined
function releaseSlices(): void {
  const held = slicesHeld ?? []
  slicesHeld = undefined
  for (const run of held) setTimeout(run, 0)
}

beforeAll(async () => {
  const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir: undefined }
  server = await createExchangeServer(config, testListing, undefined, {
    fanOutSliceConnections: 1,
    fanOutNextTurn: (run) => {
      if (slicesHeld === undefined) setTimeout(run, 100)
      else slicesHeld.push(run)
    },
  })
  baseUrl = await server.listen()
  wsUrl = `${baseUrl.replace('http', 'ws')}/v2`
  trader = await createTrader(server, `fanout-${randomBytes(4).toString('hex')}@example.com`, {
    EUR: '1000000',
  })
})
afterAll(() => server.close())

const openSocket = () => openRecordingSocket(wsUrl)

/** `polder_websocket_fanout_waiting` on /metrics. */
const fanOutWaiting = () => readMetric(baseUrl, 'polder_websocket_fanout_waiting')

async function until(done: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() - started > 10_000) throw new Error(`timed out waiting for ${what}`)
}

describe('a broadcast to more connections than one slice', () => {
  it('serves requests between slices and keeps each connection in order', async () => {
    const subscribers: Awaited<ReturnType<typeof openSocket>>[] = []
    for (let index = 0; index < subscriberCount; index += 1) {
      const socket = await openSocket()
      const subscribed = socket.next((m) => m.event === 'subscribed')
      socket.ws.send(
        JSON.stringify({ action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] }),
      )
      await subscribed
      subscribers.push(socket)
    }
    const first = subscribers[0]!
    // The last two send requests while they wait for their slices; the one before them says
    // nothing and waits for its own.
    const leaving = subscribers[subscriberCount - 1]!
    const asking = subscribers[subscriberCount - 2]!
    const waiting = subscribers[subscriberCount - 3]!
    const bystander = await openSocket()
    const orderer = await openSocket()
    const authenticated = orderer.next((m) => m.event === 'authenticate')
    orderer.ws.send(JSON.stringify(authenticateRequest(trader)))
    expect(await authenticated).toMatchObject({ authenticated: true })

    const place = (index: number) =>
      orderer.ws.send(
        JSON.stringify({
          action: 'privateCreateOrder',
          requestId: index,
          market: 'BTC-EUR',
          side: 'buy',
          orderType: 'limit',
          amount: '0.01',
          price: String(1_000 + index),
          operatorId: 1,
        }),
      )

    // The first book event reaches the first subscriber while the other 11 still wait for
    // their slices: the requests sent now are read and served in between.
    const firstEvent = first.next((m) => m.event === 'book')
    slicesHeld = []
    place(1)
    const event = await firstEvent
    // The rest wait for their slices, and /metrics says how many.
    expect(await fanOutWaiting()).toBeGreaterThan(0)
    const unsubscribed = leaving.next((m) => m.event === 'unsubscribed')
    const snapshot = asking.next((m) => m.action === 'getBook')
    const time = bystander.next((m) => m.action === 'getTime')
    leaving.ws.send(
      JSON.stringify({ action: 'unsubscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] }),
    )
    asking.ws.send(JSON.stringify({ action: 'getBook', market: 'BTC-EUR', requestId: 7 }))
    bystander.ws.send(JSON.stringify({ action: 'getTime', requestId: 8 }))

    // Everyone who asked is answered before the fan-out is through: someone who subscribed to
    // nothing, and subscribers still waiting for their slices, whose replies take the event
    // held for them along, before the reply.
    await Promise.all([time, unsubscribed, snapshot])
    const eventOf = (m: Json) => m.event === 'book' && m.nonce === event.nonce
    expect(waiting.received.some(eventOf)).toBe(false)
    const position = (socket: { received: Json[] }, match: (m: Json) => boolean) =>
      socket.received.findIndex(match)
    expect(position(leaving, eventOf)).toBeGreaterThan(-1)
    expect(position(leaving, eventOf)).toBeLessThan(
      position(leaving, (m) => m.event === 'unsubscribed'),
    )
    expect(position(asking, eventOf)).toBeGreaterThan(-1)
    expect(position(asking, eventOf)).toBeLessThan(position(asking, (m) => m.action === 'getBook'))
    // The silent one gets it in its own slice.
    releaseSlices()
    await until(() => waiting.received.some(eventOf), 'the event at the silent subscriber')

    // More changes, batch by batch: every remaining subscriber gets the same events with
    // consecutive nonces, and the one that unsubscribed gets none of them.
    for (let index = 2; index <= 6; index += 1) {
      const seen = waiting.next((m) => m.event === 'book' && m.nonce > event.nonce + index - 2)
      place(index)
      await seen
    }
    const lastNonce = event.nonce + 5
    await until(
      () =>
        subscribers
          .filter((s) => s !== leaving)
          .every((s) => s.received.some((m) => m.nonce === lastNonce)),
      'the last event at every subscriber',
    )
    const expected = first.received.filter((m) => m.event === 'book')
    expect(expected.map((m) => m.nonce)).toEqual(
      Array.from({ length: expected.length }, (_, i) => expected[0].nonce + i),
    )
    for (const subscriber of subscribers.slice(1).filter((s) => s !== leaving))
      expect(subscriber.received.filter((m) => m.event === 'book')).toEqual(expected)
    const afterUnsubscribe = leaving.received.slice(
      position(leaving, (m) => m.event === 'unsubscribed'),
    )
    expect(afterUnsubscribe.filter((m) => m.event === 'book')).toEqual([])

    // And the queue runs empty (a connection let go early by a reply keeps its place in it until
    // its slice, so it may take a slice or two more).
    let waitingNow = await fanOutWaiting()
    for (const started = Date.now(); waitingNow > 0 && Date.now() - started < 10_000; ) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      waitingNow = await fanOutWaiting()
    }
    expect(waitingNow).toBe(0)
    for (const socket of [...subscribers, bystander, orderer]) socket.ws.close()
  })
})

describe('the fan-out queue', () => {
  /** Stands for a connection: the queue only lets its writes go. */
  function connection(name: number, uncorked: number[], onUncork?: () => void) {
    return {
      uncork: () => {
        uncorked.push(name)
        onUncork?.()
      },
    } as unknown as WsConnection
  }
  const turn = () => new Promise((resolve) => setImmediate(resolve))

  it('lets every connection go once, in order, a slice a turn, while more keep coming', async () => {
    const uncorked: number[] = []
    const queue = new UncorkQueue(1_000)
    for (let name = 0; name < 2_500; name += 1) queue.add(connection(name, uncorked))
    expect(uncorked).toEqual([])
    await new Promise((resolve) => process.nextTick(resolve))
    expect(uncorked.length).toBe(1_000)
    // Added while a slice runs (a write's callback sending again): after those already queued.
    queue.add(connection(2_500, uncorked, () => queue.add(connection(2_501, uncorked))))
    await turn()
    expect(uncorked.length).toBe(2_000)
    await turn()
    await turn()
    expect(uncorked).toEqual(Array.from({ length: 2_502 }, (_, name) => name))
    // Idle again: the next connection goes at the end of the tick, as the first did.
    queue.add(connection(2_502, uncorked))
    await new Promise((resolve) => process.nextTick(resolve))
    expect(uncorked.at(-1)).toBe(2_502)
  })
})
