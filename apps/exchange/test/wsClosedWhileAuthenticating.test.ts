// A request still waiting when its WebSocket closes (a subscribe behind an authenticate whose key
// is being looked up) does not file the closed connection in the market data hub again: it was
// kept and written to for good, a leak any client could repeat (found by a WebSocket review).
import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WebSocket } from 'ws'
import type { ApiKeyRecord } from '../src/accounts/accountStore.ts'
import { MarketDataHub } from '../src/api/marketDataHub.ts'
import { WsConnection } from '../src/api/wsConnection.ts'
import type { ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { authenticateRequest, createTrader, limitOrderBody } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
})
afterAll(() => server.close())

describe('a socket closed while its authenticate is being looked up', () => {
  it('is not left subscribed in the market data hub once closed (no closed connection is kept or written to)', {
    timeout: 15_000,
  }, async () => {
    const removed = vi.spyOn(MarketDataHub.prototype, 'remove')
    const bookFrames = vi.spyOn(WsConnection.prototype, 'sendBookFrame')
    const accounts = server.accounts
    const original = accounts.findApiKey
    let release: () => void = () => undefined
    const reached = new Promise<void>((resolveReached) => {
      accounts.findApiKey = (key: string) =>
        new Promise<ApiKeyRecord | undefined>((resolve) => {
          accounts.findApiKey = original
          release = () => resolve(original.call(accounts, key))
          resolveReached()
        })
    })
    try {
      const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
      await new Promise((resolve) => ws.once('open', resolve))
      const raw = (ws as unknown as { _socket: Socket })._socket
      raw.cork()
      // Any key: its lookup is held until the socket has closed.
      ws.send(JSON.stringify(authenticateRequest({ key: 'ef'.repeat(32), secret: 'x' })))
      ws.send(
        JSON.stringify({ action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] }),
      )
      raw.uncork()
      await reached
      const closedAtServer = removed.mock.calls.length
      ws.close()
      await new Promise((resolve) => ws.once('close', resolve))
      // The server has let the connection go (hub.remove).
      while (removed.mock.calls.length === closedAtServer)
        await new Promise((resolve) => setTimeout(resolve, 10))
      const closedConnection = removed.mock.calls.at(-1)![0]
      release()
      await new Promise((resolve) => setTimeout(resolve, 200))
      // A change to the book: the hub publishes a book event to BTC-EUR's subscribers.
      const maker = await createTrader(server, `m-${randomBytes(4).toString('hex')}@example.com`, {
        EUR: '1000',
      })
      const placed = await signedRequest(baseUrl, maker, 'POST', '/v2/order', {
        body: limitOrderBody('buy', '0.001', '20000', { operatorId: 1 }),
      })
      expect(placed.status).toBe(200)
      await new Promise((resolve) => setTimeout(resolve, 500))
      const toClosed = bookFrames.mock.contexts.filter((context) => context === closedConnection)
      expect(toClosed.length).toBe(0)
    } finally {
      accounts.findApiKey = original
      removed.mockRestore()
      bookFrames.mockRestore()
    }
  })
})
