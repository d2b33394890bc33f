import { afterEach, beforeEach, describe, expect, test } from 'vitest'
import {
  apiKeyCredentials,
  createAuthStore,
  createPolderClient,
  type PolderClient,
  signWebSocketAuthentication,
  type WebSocketConstructor,
} from '../src/index.ts'
import { apiKey, recordingLogger, signature } from './support/fixtures.ts'
import { waitUntil } from './support/waitUntil.ts'
import { startWsServer, type TestWsServer } from './support/wsServer.ts'

// Spec §4, §8: authentication flag, unauthenticate, message keys.

describe('spec §8 authentication message keys', () => {
  test('codes 313 and 401 map to hermes_auth_invalid_session', () => {
    const store = createAuthStore()
    store.getState().fail(313, 'Invalid session.')
    expect(store.getState().load).toEqual({
      status: 'failed',
      error: { message: 'hermes_auth_invalid_session', code: 313 },
    })
    store.getState().fail(401, 'whatever')
    expect(store.getState().load).toEqual({
      status: 'failed',
      error: { message: 'hermes_auth_invalid_session', code: 401 },
    })
  })

  test('other failures use the server message or hermes_auth_unknown', () => {
    const store = createAuthStore()
    store.getState().fail(309, 'The signature is invalid.')
    expect(store.getState().load).toMatchObject({ error: { message: 'The signature is invalid.' } })
    store.getState().fail(305, '')
    expect(store.getState().load).toMatchObject({ error: { message: 'hermes_auth_unknown' } })
    store.getState().fail(undefined)
    expect(store.getState().load).toMatchObject({ error: { message: 'hermes_auth_unknown' } })
  })

  test('an unauthenticate event sets failed authentication with code 401', () => {
    const store = createAuthStore()
    store.getState().succeed()
    expect(store.getState().authenticated).toBe(true)
    store.getState().unauthenticate()
    expect(store.getState()).toMatchObject({
      authenticated: false,
      load: { status: 'failed', error: { message: 'hermes_auth_invalid_session', code: 401 } },
    })
  })
})

describe('spec §4 authentication over the socket', () => {
  let server: TestWsServer
  let client: PolderClient

  beforeEach(async () => {
    server = await startWsServer((message, socket) => {
      if (message.action === 'authenticate') {
        socket.send(JSON.stringify({ event: 'authenticate', authenticated: true }))
      }
    })
    client = createPolderClient({
      url: server.url,
      WebSocket: globalThis.WebSocket as unknown as WebSocketConstructor,
      logger: recordingLogger(),
      reconnect: false,
      credentials: () => ({ key: apiKey, signature, timestamp: 1 }),
    })
    await client.connect()
  })

  afterEach(async () => {
    client.dispose()
    await server.close()
  })

  test('authentication is a flag set by the authenticate event and cleared by unauthenticate', async () => {
    expect(client.stores.auth.getState().authenticated).toBe(false)
    await client.authenticate()
    expect(client.stores.auth.getState().load.status).toBe('requested')
    await waitUntil(() => expect(client.stores.auth.getState().authenticated).toBe(true))
    server.send({ event: 'unauthenticate', reason: 'session expired' })
    await waitUntil(() => expect(client.stores.auth.getState().authenticated).toBe(false))
    expect(client.stores.auth.getState().load).toEqual({
      status: 'failed',
      error: { message: 'hermes_auth_invalid_session', code: 401 },
    })
  })

  test('hermes_unauthenticated for private calls made while unauthenticated', async () => {
    client.privateGetBalance()
    client.privateGetOrdersOpen()
    client.privateGetTrades('BTC-EUR')
    client.privateCreateOrder({ market: 'BTC-EUR', side: 'buy', orderType: 'market', amount: '1' })
    client.privateCancelOrder({
      market: 'BTC-EUR',
      orderId: '5f1c6b5e-8f3c-4f4e-9d1a-0a1b2c3d4e5f',
    })
    client.subscribeAccount(['BTC-EUR'])
    const failure = {
      status: 'failed',
      error: { message: 'hermes_unauthenticated', code: 300 },
    }
    const s = client.stores
    expect(s.balance.getState().load).toEqual(failure)
    expect(s.openOrders.getState().load).toEqual(failure)
    expect(s.privateTrades.getState().load).toEqual(failure)
    expect(s.createOrder.getState().load).toEqual(failure)
    expect(s.cancelOrder.getState().load).toEqual(failure)
    // Nothing private went out.
    await client.authenticate()
    await waitUntil(() => expect(s.auth.getState().authenticated).toBe(true))
    // The account is asked for once authenticated: its request may still be on its way.
    await waitUntil(() =>
      expect(server.received.map((entry) => entry.message.action)).toEqual([
        'authenticate',
        'privateGetAccount',
      ]),
    )
  })
})

describe('protocol §2.2 signing', () => {
  test('the authenticate signature is HMAC-SHA256 over timestamp + GET/v2/websocket', async () => {
    // protocol §2.1 test vector (secret "bitvavo").
    expect(await signWebSocketAuthentication('bitvavo', 1548175200641)).toBe(
      '653fc0505431c63a043273da4bd2f0927eae83948d796084f313e5d1131b0d6f',
    )
    const provider = apiKeyCredentials({
      key: apiKey,
      secret: 'bitvavo',
      clock: { now: () => 1548175200641 },
      windowMs: 10_000,
    })
    expect(await provider()).toEqual({
      key: apiKey,
      signature: '653fc0505431c63a043273da4bd2f0927eae83948d796084f313e5d1131b0d6f',
      timestamp: 1548175200641,
      window: 10_000,
    })
  })
})
