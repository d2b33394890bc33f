import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  createPolderClient,
  type PolderClient,
  SubscriptionRegistry,
  type WebSocketConstructor,
} from '../src/index.ts'
import { apiKey, bookSnapshot, recordingLogger, signature } from './support/fixtures.ts'
import { waitUntil } from './support/waitUntil.ts'
import { openOrder, ticker24h } from './support/wireFixtures.ts'
import { startWsServer, type TestWsServer } from './support/wsServer.ts'

// Spec §3, §4: the subscriptions registry; a dropped socket restored without duplicates.

const WebSocketImpl = globalThis.WebSocket as unknown as WebSocketConstructor
const book = (market: string) => ({ name: 'book' as const, markets: [market] })

describe('spec §4 subscriptions registry', () => {
  test('an entry is added only when its key is absent, with status subscribed', () => {
    const sent: object[] = []
    const registry = new SubscriptionRegistry({ send: (message) => sent.push(message) > 0 })
    const entry = {
      kind: 'orderBookSubscription' as const,
      market: 'BTC-EUR',
      subscribeJSON: { action: 'subscribe' as const, channels: [book('BTC-EUR')] },
      unsubscribeJSON: { action: 'unsubscribe' as const, channels: [book('BTC-EUR')] },
    }
    expect(registry.add('orderBookSubscription:BTC-EUR', entry)).toBe(true)
    expect(registry.add('orderBookSubscription:BTC-EUR', entry)).toBe(false)
    expect(sent).toEqual([entry.subscribeJSON])
    expect(registry.get('orderBookSubscription:BTC-EUR')).toEqual({
      ...entry,
      status: 'subscribed',
    })
  })
})

describe('spec §4 unsubscribe-all and reconnect-all', () => {
  let server: TestWsServer
  let client: PolderClient

  afterEach(async () => {
    vi.useRealTimers()
    client.dispose()
    await server.close()
  })

  async function start(options: { reconnect?: boolean } = {}): Promise<void> {
    server = await startWsServer((message, socket) => {
      const reply = (payload: unknown) => socket.send(JSON.stringify(payload))
      if (message.action === 'authenticate') reply({ event: 'authenticate', authenticated: true })
      if (message.action === 'getBook') {
        reply({ action: 'getBook', response: bookSnapshot(String(message.market), 1) })
      }
      if (message.action === 'privateGetOrdersOpen') {
        reply({ action: 'privateGetOrdersOpen', response: [openOrder] })
      }
      if (message.action === 'getTicker24h') {
        reply({ action: 'getTicker24h', response: [ticker24h] })
      }
    })
    client = createPolderClient({
      url: server.url,
      WebSocket: WebSocketImpl,
      logger: recordingLogger(),
      reconnect: options.reconnect === true ? { baseDelayMs: 10, maxDelayMs: 10 } : false,
      credentials: () => ({ key: apiKey, signature, timestamp: 1 }),
    })
    await client.connect()
    await client.authenticate()
    await waitUntil(() => expect(client.stores.auth.getState().authenticated).toBe(true))
    client.subscribeAccount(['BTC-EUR'])
    client.subscribeTicker24h(['BTC-EUR'])
    client.subscribeToBook('BTC-EUR')
    client.subscribeToMobileBook('ETH-EUR')
    await waitUntil(() => {
      expect(client.stores.openOrders.getState().load.status).toBe('received')
      expect(client.stores.orderBooks.getState().books['BTC-EUR']?.status).toBe('received')
      expect(client.stores.mobileOrderBooks.getState().books['ETH-EUR']?.phase).toBe('inSync')
    })
  }

  const subscribeMessages = (connection: number) =>
    server.actions('subscribe', connection).map((message) => message.channels)

  test('unsubscribe-all sends every unsubscribe and resets related data', async () => {
    await start()
    server.received.length = 0
    client.unsubscribeAll()
    await waitUntil(() => expect(server.actions('unsubscribe')).toHaveLength(4))
    expect(server.actions('unsubscribe').map((message) => message.channels)).toEqual([
      [{ name: 'account', markets: ['BTC-EUR'] }],
      [{ name: 'ticker24h', markets: ['BTC-EUR'] }],
      [book('BTC-EUR')],
      [book('ETH-EUR')],
    ])
    const records = Object.values(client.subscriptions.store.getState().records)
    expect(records.map((record) => record.status)).toEqual([
      'unsubscribed',
      'unsubscribed',
      'unsubscribed',
      'unsubscribed',
    ])
    expect(client.stores.openOrders.getState().load).toEqual({ status: 'reset', error: undefined })
    expect(client.stores.orderBooks.getState().books).toEqual({}) // order book removed
    expect(client.stores.mobileOrderBooks.getState().books).toEqual({}) // mobile book removed
    expect(client.desktopBooks.timerRunning).toBe(false)
  })

  test('reconnect-all re-sends the subscribe of every non-subscribed entry; open orders requested, books re-requested', async () => {
    await start()
    client.unsubscribeAll()
    await waitUntil(() => expect(server.actions('unsubscribe')).toHaveLength(4))
    server.received.length = 0
    client.reconnectAll()
    expect(client.stores.openOrders.getState().load.status).toBe('requested')
    expect(client.stores.orderBooks.getState().books['BTC-EUR']?.status).toBe('requested')
    expect(client.desktopBooks.isTracking('BTC-EUR')).toBe(true) // market re-registered
    await waitUntil(() => {
      expect(client.stores.openOrders.getState().load.status).toBe('received')
      expect(client.stores.orderBooks.getState().books['BTC-EUR']?.status).toBe('received')
      expect(client.stores.mobileOrderBooks.getState().books['ETH-EUR']?.phase).toBe('inSync')
    })
    expect(server.received.map((entry) => entry.message)).toEqual([
      { action: 'subscribe', channels: [{ name: 'account', markets: ['BTC-EUR'] }] },
      { action: 'privateGetOrdersOpen' },
      { action: 'subscribe', channels: [{ name: 'ticker24h', markets: ['BTC-EUR'] }] },
      { action: 'subscribe', channels: [book('BTC-EUR')] },
      { action: 'getBook', market: 'BTC-EUR' },
      { action: 'subscribe', channels: [book('ETH-EUR')] },
      { action: 'getBook', market: 'ETH-EUR' },
    ])
    // A second reconnect-all sends nothing: every entry is subscribed. (What it sent would reach
    // the server before a getTime sent after it: one socket keeps its order.)
    server.received.length = 0
    client.reconnectAll()
    client.getTime()
    await server.waitFor((message) => message.action === 'getTime')
    expect(server.received.map((entry) => entry.message)).toEqual([{ action: 'getTime' }])
  })

  test('reconnect after a dropped socket restores every subscription without duplicates', async () => {
    await start({ reconnect: true })
    expect(subscribeMessages(0)).toHaveLength(4)
    server.dropLatest()
    await server.waitForConnections(2)
    await waitUntil(() => {
      expect(subscribeMessages(1)).toHaveLength(4)
      expect(client.stores.orderBooks.getState().books['BTC-EUR']?.status).toBe('received')
      expect(client.stores.mobileOrderBooks.getState().books['ETH-EUR']?.phase).toBe('inSync')
      expect(client.stores.openOrders.getState().load.status).toBe('received')
    })
    // Re-authenticated first (the account channel is private), then each subscription once.
    const second = server.received
      .filter((entry) => entry.connection === 1)
      .map((entry) => entry.message.action)
    expect(second[0]).toBe('authenticate')
    expect(new Set(subscribeMessages(1).map((channels) => JSON.stringify(channels))).size).toBe(4)
    expect(subscribeMessages(1)).toEqual(subscribeMessages(0))
    expect(server.actions('getBook', 1)).toHaveLength(2)
    // Nothing more arrives later (no duplicate resubscription): not before a getTime sent now.
    await new Promise((resolve) => setTimeout(resolve, 100))
    client.getTime()
    await server.waitFor((message) => message.action === 'getTime')
    expect(subscribeMessages(1)).toHaveLength(4)
  })

  test('subscriptions made before the socket opens are sent once it opens', async () => {
    server = await startWsServer((message, socket) => {
      if (message.action === 'getBook') {
        socket.send(JSON.stringify({ action: 'getBook', response: bookSnapshot('BTC-EUR', 1) }))
      }
    })
    client = createPolderClient({
      url: server.url,
      WebSocket: WebSocketImpl,
      logger: recordingLogger(),
      reconnect: false,
    })
    client.subscribeToBook('BTC-EUR')
    expect(client.subscriptions.get('orderBookSubscription:BTC-EUR')?.status).toBe('unsubscribed')
    await client.connect()
    await waitUntil(() =>
      expect(client.stores.orderBooks.getState().books['BTC-EUR']?.status).toBe('received'),
    )
    expect(server.received.map((entry) => entry.message)).toEqual([
      { action: 'subscribe', channels: [book('BTC-EUR')] },
      { action: 'getBook', market: 'BTC-EUR' },
    ])
  })
})
