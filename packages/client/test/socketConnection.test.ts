import { createServer, type Socket } from 'node:net'
import { afterEach, describe, expect, test, vi } from 'vitest'
import {
  createPolderClient,
  describeCloseCode,
  SocketConnectTimeoutError,
  type WebSocketConstructor,
} from '../src/index.ts'
import { recordingLogger } from './support/fixtures.ts'
import { waitUntil } from './support/waitUntil.ts'
import { startWsServer, type TestWsServer } from './support/wsServer.ts'

// Spec §4, §7, §8: socket connection states, connect timeout, close codes. Real sockets.

const WebSocketImpl = globalThis.WebSocket as unknown as WebSocketConstructor
let server: TestWsServer | undefined
const cleanups: (() => void)[] = []

afterEach(async () => {
  vi.useRealTimers()
  for (const cleanup of cleanups.splice(0)) cleanup()
  await server?.close()
  server = undefined
})

describe('spec §4 socket connection states', () => {
  test('not initialised, connecting, open, closing, closed', async () => {
    server = await startWsServer()
    const client = createPolderClient({
      url: server.url,
      WebSocket: WebSocketImpl,
      reconnect: false,
    })
    cleanups.push(() => client.dispose())
    const states: string[] = [client.stores.socket.getState().connection]
    client.stores.socket.subscribe((state, previous) => {
      if (state.connection !== previous.connection) states.push(state.connection)
    })
    await client.connect()
    client.disconnect()
    await waitUntil(() => expect(client.stores.socket.getState().connection).toBe('closed'))
    expect(states).toEqual(['notInitialised', 'connecting', 'open', 'closing', 'closed'])
  })
})

describe('spec §7 connect timeout', () => {
  test('the socket connect timeout defaults to 4 s', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    // A TCP server that accepts and never answers the upgrade: the socket stays connecting.
    const sockets: Socket[] = []
    const tcp = createServer((socket) => sockets.push(socket))
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy()
      tcp.close()
    })
    const { port } = tcp.address() as { port: number }
    const client = createPolderClient({
      url: `ws://127.0.0.1:${port}/v2`,
      WebSocket: WebSocketImpl,
      reconnect: false,
    })
    const connecting = client.connect()
    const outcome = connecting.then(
      () => 'opened',
      (error: unknown) => error,
    )
    await waitUntil(() => expect(sockets).toHaveLength(1))
    vi.advanceTimersByTime(3999)
    expect(client.stores.socket.getState().connection).toBe('connecting')
    vi.advanceTimersByTime(1)
    const error = await outcome
    expect(error).toBeInstanceOf(SocketConnectTimeoutError)
    expect((error as SocketConnectTimeoutError).timeoutMs).toBe(4000)
    expect(client.stores.socket.getState().connection).toBe('closed')
    client.dispose()
  })

  test('the connect timeout is configurable', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
    const sockets: Socket[] = []
    const tcp = createServer((socket) => sockets.push(socket))
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve))
    cleanups.push(() => {
      for (const socket of sockets) socket.destroy()
      tcp.close()
    })
    const { port } = tcp.address() as { port: number }
    const client = createPolderClient({
      url: `ws://127.0.0.1:${port}/v2`,
      WebSocket: WebSocketImpl,
      reconnect: false,
      connectTimeoutMs: 1500,
    })
    const outcome = client.connect().then(
      () => 'opened',
      (error: unknown) => error,
    )
    await waitUntil(() => expect(sockets).toHaveLength(1))
    vi.advanceTimersByTime(1500)
    expect(await outcome).toBeInstanceOf(SocketConnectTimeoutError)
    client.dispose()
  })
})

describe('spec §8 close codes', () => {
  test('close codes map to their standard descriptions', () => {
    expect(describeCloseCode(1000)).toBe('Normal Closure')
    expect(describeCloseCode(1001)).toBe('Going Away')
    expect(describeCloseCode(1006)).toBe('Abnormal Closure')
    expect(describeCloseCode(1011)).toBe('Internal Error')
    expect(describeCloseCode(4001)).toBe('Private Use Code')
    expect(describeCloseCode(999)).toBe('Unknown Close Code')
  })

  test('a close is logged for debugging with its standard description', async () => {
    server = await startWsServer()
    const logger = recordingLogger()
    const client = createPolderClient({
      url: server.url,
      WebSocket: WebSocketImpl,
      reconnect: false,
      logger,
    })
    cleanups.push(() => client.dispose())
    await client.connect()
    server.connections[0]!.close(1008, 'policy')
    await waitUntil(() => expect(client.stores.socket.getState().connection).toBe('closed'))
    expect(client.stores.socket.getState().lastClose).toEqual({
      code: 1008,
      reason: 'policy',
      description: 'Policy Violation',
    })
    expect(logger.entries).toContainEqual({
      level: 'debug',
      message: 'Socket closed: 1008 Policy Violation',
      details: 'policy',
    })
  })
})
