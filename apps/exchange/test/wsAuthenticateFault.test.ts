// An authenticate that cannot be answered as asked (a key no one can have, a storage fault) is
// refused by its action and requestId, and leaves no one authenticated on the socket: protocol
// §6, errors are `{"action":"<action>","requestId":<echo>,"errorCode":N,"error":"msg"}`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
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
})
