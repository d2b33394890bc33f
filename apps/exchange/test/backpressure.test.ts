// A client that sends faster than the server answers: once 1,000 of a connection's requests
// await replies, the server reads it no further until half are answered (TCP holds the client
// back), instead of closing it. Every request is answered, in order, and the socket stays open.
import { randomBytes } from 'node:crypto'
import type { Socket } from 'node:net'
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
let trader: Trader

beforeAll(async () => {
  // Far above a real client's budget: this is about how fast requests come, not their weight.
  const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir: undefined }
  // Bursts far above the rate limits of real clients: the weight budget and the new orders.
  server = await createExchangeServer(
    {
      ...config,
      rateLimitWeightPerMinute: 1e9,
      newOrdersPerSecondMax: 1e9,
      newOrdersPerDayMax: 1e9,
    },
    testListing,
  )
  baseUrl = await server.listen()
  trader = await createTrader(server, `burst-${randomBytes(4).toString('hex')}@example.com`, {
    EUR: '1000000',
  })
})
afterAll(() => server.close())

/** An authenticated socket that keeps every reply carrying a requestId, and how it closed. */
async function openTraderSocket() {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => ws.once('open', resolve))
  const replies: Json[] = []
  let closeCode: number | undefined
  ws.on('close', (code) => {
    closeCode = code
  })
  const authenticated = new Promise<Json>((resolve) =>
    ws.once('message', (data) => resolve(JSON.parse(data.toString()))),
  )
  ws.send(JSON.stringify(authenticateRequest(trader)))
  expect(await authenticated).toEqual({ event: 'authenticate', authenticated: true })
  ws.on('message', (data) => {
    const reply = JSON.parse(data.toString())
    if (reply.requestId !== undefined) replies.push(reply)
  })
  return { ws, replies, closeCode: () => closeCode }
}

/** Sends the messages in one write of the client's socket, so the server reads them in bulk. */
function sendAtOnce(ws: WebSocket, messages: readonly Json[]): void {
  const socket = (ws as unknown as { _socket: Socket })._socket
  socket.cork()
  for (const message of messages) ws.send(JSON.stringify(message))
  socket.uncork()
}

async function until(done: () => boolean, what: string): Promise<void> {
  for (const started = Date.now(); !done(); await new Promise((r) => setTimeout(r, 20)))
    if (Date.now() - started > 30_000) throw new Error(`timed out waiting for ${what}`)
}

async function pausesSoFar(): Promise<number> {
  const text = await (await fetch(`${baseUrl}/metrics`)).text()
  return Number(/^polder_websocket_pauses_total (\d+)/m.exec(text)?.[1])
}

describe('backpressure on a WebSocket connection', () => {
  it('reads a burst of 5,000 requests in steps and answers them all in order', async () => {
    const { ws, replies, closeCode } = await openTraderSocket()
    const pausesBefore = await pausesSoFar()
    const count = 5_000
    // Small requests: one read of the server's (64 KiB) holds more than 1,000 of them.
    sendAtOnce(
      ws,
      Array.from({ length: count }, (_, index) => ({ action: 'getTime', requestId: index + 1 })),
    )
    await until(() => replies.length === count || closeCode() !== undefined, 'the replies')
    expect(closeCode()).toBeUndefined()
    expect(replies.map((reply) => reply.requestId)).toEqual(
      Array.from({ length: count }, (_, index) => index + 1),
    )
    expect(replies.every((reply) => typeof reply.response?.time === 'number')).toBe(true)
    expect(await pausesSoFar()).toBeGreaterThan(pausesBefore)
    ws.close()
  })

  it('answers a burst of 3,000 orders, each durable before its reply, and holds nothing after', async () => {
    const { ws, replies, closeCode } = await openTraderSocket()
    const count = 3_000
    // Immediate-or-cancel buys under an empty book: each is journaled, then cancelled at once.
    sendAtOnce(
      ws,
      Array.from({ length: count }, (_, index) => ({
        action: 'privateCreateOrder',
        requestId: index + 1,
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        price: '1000',
        amount: '0.01',
        timeInForce: 'IOC',
        operatorId: 1,
      })),
    )
    await until(() => replies.length === count || closeCode() !== undefined, 'the replies')
    expect(closeCode()).toBeUndefined()
    expect(replies.map((reply) => reply.requestId)).toEqual(
      Array.from({ length: count }, (_, index) => index + 1),
    )
    expect(replies.every((reply) => reply.response?.status === 'canceledIOC')).toBe(true)
    expect(server.service.core.ledger.balance(trader.accountId, 'EUR').inOrder).toBe(0n)
    server.service.core.ledger.checkInvariant()
    ws.close()
  })

  it('closes a connection (1008) whose one read holds over 4,000 requests', async () => {
    const { ws, closeCode } = await openTraderSocket()
    const closed = new Promise<string>((resolve) =>
      ws.once('close', (_code, reason) => resolve(reason.toString())),
    )
    // 10,000 masked text frames of `{}` (8 bytes each, a zero mask) written as one buffer of
    // 80 KB: a read of 64 KiB holds 8,000 of them.
    const frame = Buffer.from([0x81, 0x82, 0, 0, 0, 0, 0x7b, 0x7d])
    ;(ws as unknown as { _socket: Socket })._socket.write(Buffer.concat(Array(10_000).fill(frame)))
    expect(await closed).toBe('too many requests in flight')
    expect(closeCode()).toBe(1008)
  })
})
