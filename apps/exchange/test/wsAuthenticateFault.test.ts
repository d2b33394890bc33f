// An authenticate that cannot be answered as asked (a key no one can have, a storage fault) is
// refused by its action and requestId, and leaves no one authenticated on the socket: protocol
// §6, errors are `{"action":"<action>","requestId":<echo>,"errorCode":N,"error":"msg"}`.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WebSocket } from 'ws'
import { MarketDataHub } from '../src/api/marketDataHub.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { openRecordingSocket } from './fixtures/recordingSocket.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let alice: Trader

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
  )
  baseUrl = await server.listen()
  alice = await createTrader(server, 'alice@example.com', { EUR: '1000' })
})
afterAll(() => server.close())

/** A socket whose `request` sends one message and resolves with the next message received. */
async function openSocket(): Promise<{
  request: (message: unknown) => Promise<Json>
  close: () => void
}> {
  const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => socket.once('open', resolve))
  return {
    request: (message) =>
      new Promise((resolve) => {
        socket.once('message', (data) => resolve(JSON.parse(data.toString())))
        socket.send(JSON.stringify(message))
      }),
    close: () => socket.close(),
  }
}

describe('a WebSocket authenticate', () => {
  it("with a 64-character key of NUL characters is refused with 305, and the socket is no one's", async () => {
    const socket = await openSocket()
    try {
      expect(await socket.request(authenticateRequest(alice))).toEqual({
        event: 'authenticate',
        authenticated: true,
      })
      // Before, the key reached the database, which cannot hold a NUL in text: a bare 101
      // without action or requestId, and the socket went on acting for alice.
      const refused = await socket.request({
        action: 'authenticate',
        key: '\u0000'.repeat(64),
        signature: 'a'.repeat(64),
        timestamp: Date.now(),
        requestId: 7,
      })
      expect(refused).toEqual({
        action: 'authenticate',
        requestId: 7,
        errorCode: 305,
        error: 'No active API key found.',
      })
      const after = await socket.request({ action: 'privateGetBalance', requestId: 8 })
      expect(after).toMatchObject({ action: 'privateGetBalance', requestId: 8, errorCode: 300 })
    } finally {
      socket.close()
    }
  })

  it("that fails in the storage is answered 101 by its requestId, and the socket is no one's", async () => {
    const socket = await openSocket()
    const liveSession = server.accounts.liveSession
    try {
      expect(await socket.request(authenticateRequest(alice))).toEqual({
        event: 'authenticate',
        authenticated: true,
      })
      server.accounts.liveSession = async () => {
        throw new Error('the storage is down')
      }
      const failed = await socket.request({
        action: 'authenticate',
        token: 'A'.repeat(43), // the shape of a session token
        requestId: 9,
      })
      expect(failed).toMatchObject({ action: 'authenticate', requestId: 9, errorCode: 101 })
      const after = await socket.request({ action: 'privateGetBalance', requestId: 10 })
      expect(after).toMatchObject({ action: 'privateGetBalance', requestId: 10, errorCode: 300 })
    } finally {
      server.accounts.liveSession = liveSession
      socket.close()
    }
  })

  it('refused, and failing while it forgets the caller, is still answered 101 by its requestId', async () => {
    const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const authenticated = socket.next((message) => message.event === 'authenticate')
    socket.ws.send(JSON.stringify(authenticateRequest(alice)))
    expect(await authenticated).toEqual({ event: 'authenticate', authenticated: true })
    // The refusal forgets the caller first, which re-indexes the socket's subscriptions; that
    // fails once, before the refusal is sent.
    const index = vi.spyOn(MarketDataHub.prototype, 'index').mockImplementationOnce(() => {
      throw new Error('the re-index failed')
    })
    try {
      const answered = socket.next((message) => message.requestId === 9, 'the reply to 9')
      socket.ws.send(
        JSON.stringify({ ...authenticateRequest(alice), signature: 'a'.repeat(64), requestId: 9 }),
      )
      expect(await answered).toMatchObject({
        action: 'authenticate',
        requestId: 9,
        errorCode: 101,
      })
      expect(index).toHaveBeenCalled()
      // And the socket is no one's.
      const refused = socket.next((message) => message.requestId === 10, 'the reply to 10')
      socket.ws.send('{"action":"privateGetBalance","requestId":10}')
      expect(await refused).toMatchObject({ errorCode: 300 })
    } finally {
      index.mockRestore()
      socket.ws.close()
    }
  })

  it('failing in its key lookup fails only itself: a request sent behind it is answered as usual', async () => {
    const bob = await createTrader(server, 'bob@example.com', { EUR: '10' })
    const storage = server.storage as unknown as {
      query: (text: string, params?: readonly unknown[]) => Promise<unknown[]>
    }
    const query = storage.query
    storage.query = async (text, params) => {
      if (text.includes('from api_keys where key') && params?.[0] === bob.key) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        throw new Error('the storage failed')
      }
      return query.call(storage, text, params)
    }
    const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    try {
      const refused = socket.next((message) => message.requestId === 1, 'the reply to 1')
      const time = socket.next((message) => message.requestId === 2, 'the reply to 2')
      socket.ws.send(JSON.stringify({ ...authenticateRequest(bob), requestId: 1 }))
      socket.ws.send('{"action":"getTime","requestId":2}')
      expect(await refused).toMatchObject({ action: 'authenticate', errorCode: 101 })
      // Before, it waited for the authenticate and failed with it: a bare 101 without its id.
      expect(await time).toMatchObject({
        action: 'getTime',
        response: { time: expect.any(Number) },
      })
    } finally {
      storage.query = query
      socket.ws.close()
    }
  })
})
