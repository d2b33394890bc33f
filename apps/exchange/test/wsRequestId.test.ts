// The requestId of a WebSocket request (protocol §6.1), over a real socket: every reply to a
// request whose requestId was accepted carries it, however the client wrote the number, and an
// id no reply could give back as sent is refused before the request runs.
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { MarketDataHub } from '../src/api/marketDataHub.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { openRecordingSocket, type RecordingSocket } from './fixtures/recordingSocket.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let trader: Trader

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
  )
  baseUrl = await server.listen()
  trader = await createTrader(server, 'ids@example.com', { EUR: '10000' })
})
afterAll(() => server.close())

/** A socket authenticated with the trader's API key. */
async function authenticatedSocket(): Promise<RecordingSocket> {
  const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  const authenticated = socket.next((message) => message.event === 'authenticate')
  socket.ws.send(JSON.stringify(authenticateRequest(trader)))
  expect(await authenticated).toEqual({ event: 'authenticate', authenticated: true })
  return socket
}

/** The first reply to `text` that has the action, sent as it is written. */
async function replyTo(socket: RecordingSocket, action: string, text: string) {
  const reply = socket.next((message) => message.action === action, `the reply to ${text}`)
  socket.ws.send(text)
  return reply
}

const order = '"market":"BTC-EUR","side":"buy","orderType":"limit","amount":"0.01","price":"3000"'

describe('a requestId written another way than as an integer token', () => {
  it('is echoed as the number it is, on success and on error', async () => {
    const socket = await authenticatedSocket()
    const placed = await replyTo(
      socket,
      'privateCreateOrder',
      `{"action":"privateCreateOrder","requestId":1e5,${order},"operatorId":1}`,
    )
    expect(placed).toMatchObject({ requestId: 100000, response: { status: 'new' } })
    const refused = await replyTo(
      socket,
      'getBook',
      '{"action":"getBook","market":"DOGE-EUR","requestId":7.0}',
    )
    expect(refused).toEqual({
      action: 'getBook',
      requestId: 7,
      market: 'DOGE-EUR',
      errorCode: 205,
      error: 'market parameter is invalid.',
    })
    socket.ws.close()
  })

  it('is refused with 205 before the request runs when no reply could carry it as sent', async () => {
    const socket = await authenticatedSocket()
    const countOpen = async (requestId: number) =>
      (
        await replyTo(
          socket,
          'privateGetOrdersOpen',
          `{"action":"privateGetOrdersOpen","requestId":${requestId},"market":"BTC-EUR"}`,
        )
      ).response.length
    const openBefore = await countOpen(1)
    // 21 digits: JSON.parse rounds it to 123456789012345680000, another id than the one sent.
    for (const requestId of ['123456789012345678901', '1.5e17']) {
      expect(
        await replyTo(
          socket,
          'privateCreateOrder',
          `{"action":"privateCreateOrder","requestId":${requestId},${order},"operatorId":1}`,
        ),
      ).toEqual({
        action: 'privateCreateOrder',
        market: 'BTC-EUR',
        errorCode: 205,
        error: 'requestId parameter is invalid.',
      })
    }
    expect(await countOpen(2)).toBe(openBefore)
    socket.ws.close()
  })
})

describe('a request that fails after it was answered', () => {
  it('gets one reply: a subscribe whose first ticker24h push fails is answered subscribed, not 101 too', async () => {
    const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const push = vi
      .spyOn(MarketDataHub.prototype, 'ticker24hMessage')
      .mockImplementationOnce(() => {
        throw new Error('the first push failed')
      })
    try {
      const subscribed = socket.next((message) => message.event === 'subscribed')
      socket.ws.send(
        JSON.stringify({
          action: 'subscribe',
          requestId: 3,
          channels: [{ name: 'ticker24h', markets: ['BTC-EUR'] }],
        }),
      )
      expect((await subscribed).subscriptions).toEqual({ ticker24h: ['BTC-EUR'] })
      // Replies on a socket keep the order of the requests: the time comes after anything else.
      await replyTo(socket, 'getTime', '{"action":"getTime","requestId":4}')
      expect(push).toHaveBeenCalledTimes(1)
      expect(socket.received.filter((message) => message.errorCode !== undefined)).toEqual([])
    } finally {
      push.mockRestore()
      socket.ws.close()
    }
  })
})
