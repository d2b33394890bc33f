// Buys stream in while the server is killed with SIGKILL at an arbitrary moment (after 200 to 800
// of them were sent, eight in flight); after a start on the same data directory every
// acknowledged trade, fill and closed order is listed exactly once, newest first, with the ids of
// the trades consecutive (from an archives review).
import { describe, expect, it } from 'vitest'
import { type AccountKey, buyerAndSeller, serverProcesses } from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { limitOrderBody } from './fixtures/trader.ts'

const servers = serverProcesses('polder-kill-listings-')

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any

const signed = async (url: string, who: AccountKey, method: string, path: string, body?: unknown) =>
  (await signedRequest(url, who, method, path, { body })).json as Json

describe('kill -9 while trades stream in', () => {
  it('lists every acknowledged trade, fill and order once after the restart', async () => {
    const first = await servers.startTestServer()
    const { buyer, seller } = await buyerAndSeller(first, {
      buyerEmail: 'buyer@example.com',
      eur: '1000000',
      sellerEmail: 'seller@example.com',
      btc: '10',
    })
    const place = (who: AccountKey, body: unknown) =>
      signed(first.url, who, 'POST', '/v2/order', body)
    const ask = await place(seller, limitOrderBody('sell', '5', '60000'))
    expect(ask.status).toBe('new')
    const acked: Json[] = []
    let stop = false
    let sent = 0
    // Fewer than 1,000 in all: each listing below is one page.
    const killAt = 200 + Math.floor(Math.random() * 600)
    const worker = async () => {
      while (!stop) {
        sent += 1
        try {
          const placed = await place(buyer, limitOrderBody('buy', '0.001', '60000'))
          if (placed.status === 'filled') acked.push(placed)
        } catch {
          return // the process is gone
        }
      }
    }
    const workers = Array.from({ length: 8 }, worker)
    while (sent < killAt) await new Promise((resolve) => setTimeout(resolve, 2))
    await first.stop('SIGKILL')
    stop = true
    await Promise.all(workers)
    expect(acked.length).toBeGreaterThan(10)

    const second = await servers.startTestServer()
    const trades = (await (
      await fetch(`${second.url}/v2/BTC-EUR/trades?limit=1000`)
    ).json()) as Json[]
    const tradeIds = trades.map((trade) => Number(trade.id))
    expect(tradeIds).toEqual(
      Array.from({ length: tradeIds.length }, (_, at) => tradeIds.length - at),
    )
    const ackedFillIds = acked.map((order) => Number(order.fills[0].id))
    for (const id of ackedFillIds) expect(tradeIds).toContain(id)
    for (const who of [buyer, seller]) {
      const fills: Json[] = await signed(
        second.url,
        who,
        'GET',
        '/v2/trades?market=BTC-EUR&limit=1000',
      )
      expect(fills.map((fill) => Number(fill.id))).toEqual(tradeIds)
    }
    const orders: Json[] = await signed(
      second.url,
      buyer,
      'GET',
      '/v2/orders?market=BTC-EUR&limit=1000',
    )
    const orderIds = orders.map((order) => order.orderId)
    expect(new Set(orderIds).size).toBe(orderIds.length)
    expect(orders.length).toBe(tradeIds.length)
    expect(orders.every((order) => order.status === 'filled')).toBe(true)
    for (const order of acked) expect(orderIds).toContain(order.orderId)
    const sellerOrder = await signed(
      second.url,
      seller,
      'GET',
      `/v2/order?market=BTC-EUR&orderId=${ask.orderId}`,
    )
    expect(sellerOrder.fills.map((fill: Json) => Number(fill.id))).toEqual([...tradeIds].reverse())
    await second.stop('SIGTERM')
  }, 120_000)
})
