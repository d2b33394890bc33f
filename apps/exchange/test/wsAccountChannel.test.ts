// The account channel (private `order` events, protocol §6.3) and the create reply show what an
// order held as its command left it, not what it holds once a later command of the same commit
// (a cancel) is applied; and a socket's account channel goes with the account it was made for
// (a revoked key, a logout, another account authenticated). Found by a WebSocket review.
import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { openRecordingSocket, type RecordingSocket } from './fixtures/recordingSocket.ts'
import { startTestServer } from './fixtures/testServer.ts'
import {
  authenticateRequest,
  createTrader,
  limitOrderBody,
  type Trader,
} from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
})
afterAll(() => server.close())

const email = (who: string) => `${who}-${randomBytes(4).toString('hex')}@example.com`

async function authenticated(trader: Trader): Promise<RecordingSocket> {
  const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  const reply = socket.next((m) => m.event === 'authenticate' || m.errorCode !== undefined)
  socket.ws.send(JSON.stringify(authenticateRequest(trader)))
  expect(await reply).toEqual({ event: 'authenticate', authenticated: true })
  return socket
}

async function subscribeAccount(socket: RecordingSocket, markets: string[] | '*') {
  const reply = socket.next((m) => m.event === 'subscribed' || m.errorCode !== undefined)
  socket.ws.send(JSON.stringify({ action: 'subscribe', channels: [{ name: 'account', markets }] }))
  return reply
}

describe('account channel: order events', () => {
  it('an order event and the create reply show the funds the order held then, not after a later command of the same commit', async () => {
    const trader = await createTrader(server, email('hold'), { EUR: '1000' })
    const socket = await authenticated(trader)
    expect(await subscribeAccount(socket, ['BTC-EUR'])).toMatchObject({
      subscriptions: { account: ['BTC-EUR'] },
    })
    const clientOrderId = '0c1d2e3f-4a5b-4c6d-8e7f-a0b1c2d3e4f5'
    // Create and cancel in one write: both are applied as read, and go into one journal commit.
    const raw = (socket.ws as unknown as { _socket: Socket })._socket
    raw.cork()
    socket.ws.send(
      JSON.stringify({
        action: 'privateCreateOrder',
        requestId: 1,
        ...limitOrderBody('buy', '0.001', '21000', { clientOrderId, operatorId: 1 }),
      }),
    )
    socket.ws.send(
      JSON.stringify({
        action: 'privateCancelOrder',
        requestId: 2,
        market: 'BTC-EUR',
        clientOrderId,
        operatorId: 1,
      }),
    )
    const createReply = socket.next((m) => m.requestId === 1)
    const cancelReply = socket.next((m) => m.requestId === 2)
    const canceledOrder = socket.next((m) => m.event === 'order' && m.status === 'canceled')
    raw.uncork()
    const created = await createReply
    await cancelReply
    await canceledOrder
    const newEvent = socket.received.find((m) => m.event === 'order' && m.status === 'new')
    const canceledEvent = socket.received.find(
      (m) => m.event === 'order' && m.status === 'canceled',
    )
    expect(Number(canceledEvent?.onHold)).toBe(0)
    // 0.001 x 21000 = 21 EUR (and its fee) were on hold while the order was new.
    expect(created.response.status).toBe('new')
    expect(Number(created.response.onHold)).toBeGreaterThanOrEqual(21)
    expect(Number(newEvent?.onHold)).toBeGreaterThanOrEqual(21)
    socket.ws.close()
  })
})

/** A socket of a new trader, subscribed to its account's BTC-EUR, whose key is then revoked. */
async function unauthenticatedByRevoke(who: string): Promise<RecordingSocket> {
  const trader = await createTrader(server, email(who), { EUR: '1000' })
  const socket = await authenticated(trader)
  await subscribeAccount(socket, ['BTC-EUR'])
  const ended = socket.next((m) => m.event === 'unauthenticate')
  await server.accounts.revokeApiKey(trader.key)
  await ended
  return socket
}

describe('account channel after the socket loses its account', () => {
  it('a socket unauthenticated by a revoked key does not keep (nor list) its account subscription for the next account', async () => {
    const socket = await unauthenticatedByRevoke('alice')
    // The account channel is lost with the account (README: "loses its account channel"):
    // a confirmation lists every active subscription, and the account one is not active.
    const confirmation = socket.next((m) => m.event === 'subscribed')
    socket.ws.send(
      JSON.stringify({ action: 'subscribe', channels: [{ name: 'trades', markets: ['BTC-EUR'] }] }),
    )
    expect((await confirmation).subscriptions).toEqual({ trades: ['BTC-EUR'] })
    socket.ws.close()
  })

  it('re-authenticated as another account, the socket gets no private events it did not subscribe to as that account', async () => {
    const bob = await createTrader(server, email('bob'), { EUR: '1000' })
    const socket = await unauthenticatedByRevoke('alice2')
    const again = socket.next((m) => m.event === 'authenticate')
    socket.ws.send(JSON.stringify(authenticateRequest(bob)))
    await again
    const placed = socket.next((m) => m.requestId === 9)
    socket.ws.send(
      JSON.stringify({
        action: 'privateCreateOrder',
        requestId: 9,
        ...limitOrderBody('buy', '0.001', '21000', { operatorId: 1 }),
      }),
    )
    await placed
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(socket.received.filter((m) => m.event === 'order')).toEqual([])
    socket.ws.close()
  })
})
