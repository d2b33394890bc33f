// An account's whole record of deposits and withdrawals over the wire, beyond what the core keeps
// in memory (its newest 5,000 to 10,000 and the last 24 hours): `/depositHistory`,
// `/withdrawalHistory` and `/account/history` read the transfer archive
// (src/storage/transferArchive.ts), on a data directory as `npm start` runs, and again after a
// restart.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { transfersPerAccountMax } from '../src/core/orderHistory.ts'
import type { ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader, type Trader } from './fixtures/trader.ts'

const dataDir = mkdtempSync(join(tmpdir(), 'polder-transfers-'))
const servers: ExchangeServer[] = []
afterAll(async () => {
  for (const server of servers) await server.close().catch(() => {})
  rmSync(dataDir, { recursive: true, force: true })
})

const euro = 10n ** 18n
const minuteMs = 60_000
/** More than the core keeps, one a minute from ten days ago: the oldest are forgotten. */
const total = transfersPerAccountMax * 2 + 10
const firstMs = Date.now() - 10 * 24 * 60 * minuteMs

async function serve(): Promise<{ server: ExchangeServer; baseUrl: string }> {
  // Withdrawals are due an hour on: the test moves them on itself.
  const started = await startTestServer({ dataDir, withdrawalDelayMs: 3_600_000 })
  servers.push(started.server)
  return started
}

describe('deposits and withdrawals beyond what the core keeps', () => {
  let baseUrl: string
  let server: ExchangeServer
  let trader: Trader
  const get = async (path: string) => {
    const { status, json } = await signedRequest(baseUrl, trader, 'GET', path)
    expect(status, `${path}: ${JSON.stringify(json)}`).toBe(200)
    return json
  }

  it('lists every deposit, the oldest too, by time window and in the ledger', async () => {
    ;({ server, baseUrl } = await serve())
    trader = await createTrader(server, 'many-transfers@example.com', {})
    // Deposit i (from 0) is i + 1 euros, made i minutes after the first.
    for (let from = 0; from < total; from += 1_000) {
      const batch = []
      for (let index = from; index < Math.min(total, from + 1_000); index += 1)
        batch.push(
          server.service.submit({
            type: 'deposit',
            timestamp: firstMs + index * minuteMs,
            accountId: trader.accountId,
            asset: 'EUR',
            amount: String(BigInt(index + 1) * euro),
            reference: `deposit-${index}`,
          }),
        )
      for (const outcome of await Promise.all(batch)) expect(outcome.ok).toBe(true)
    }
    const kept = server.service.core.history.transfersOf(trader.accountId, 'deposit')
    expect(kept.length).toBeLessThan(total) // the core has forgotten the oldest
    expect(kept.length).toBeGreaterThanOrEqual(transfersPerAccountMax)

    const oldest = await get(
      `/v2/depositHistory?symbol=EUR&start=${firstMs}&end=${firstMs + 2 * minuteMs}`,
    )
    expect(oldest.map((row: { amount: string }) => row.amount)).toEqual(['3.00', '2.00', '1.00'])
    expect(oldest[2]).toEqual({
      timestamp: firstMs,
      symbol: 'EUR',
      amount: '1.00',
      address: '',
      fee: '0.00',
      status: 'completed',
    })
    expect(await get('/v2/depositHistory?symbol=EUR&limit=2')).toMatchObject([
      { amount: `${total}.00` },
      { amount: `${total - 1}.00` },
    ])
    expect(await get('/v2/depositHistory?symbol=BTC')).toEqual([])

    const pages = Math.ceil(total / 100)
    const lastPage = await get(`/v2/account/history?type=deposit&maxItems=100&page=${pages}`)
    expect(lastPage).toMatchObject({ currentPage: pages, totalPages: pages, maxItems: 100 })
    expect(lastPage.items.at(-1)).toMatchObject({
      type: 'deposit',
      receivedCurrency: 'EUR',
      receivedAmount: '1.00',
      executedAt: new Date(firstMs).toISOString(),
    })
    expect((await get('/v2/account/history?maxItems=100')).totalPages).toBe(pages)
  }, 120_000)

  it('lists a withdrawal with the status it reached, and all of it again after a restart', async () => {
    const withdrawer = {
      ...trader,
      ...(await server.accounts.createApiKey(trader.accountId, ['view', 'withdraw'])),
    }
    const requested = await signedRequest(baseUrl, withdrawer, 'POST', '/v2/withdrawal', {
      body: { symbol: 'EUR', amount: '10', address: 'NL91ABNA0417164300' },
    })
    expect(requested.json).toEqual({ success: true, symbol: 'EUR', amount: '10' })
    const withdrawals = await get('/v2/withdrawalHistory?symbol=EUR')
    expect(withdrawals).toMatchObject([{ amount: '10.00', status: 'awaiting_processing' }])
    // Advanced as the withdrawal processor does, once each step is due.
    const { reference, sendingAtMs, completedAtMs } = [
      ...server.service.core.pendingWithdrawals.values(),
    ][0]!
    for (const [status, timestamp] of [
      ['sending', sendingAtMs],
      ['completed', completedAtMs],
    ] as const) {
      const outcome = await server.service.submit({
        type: 'advanceWithdrawal',
        timestamp,
        reference,
        status,
      })
      expect(outcome.ok).toBe(true)
    }
    expect(await get('/v2/withdrawalHistory?symbol=EUR')).toMatchObject([
      { amount: '10.00', status: 'completed' },
    ])

    await server.close()
    ;({ server, baseUrl } = await serve())
    expect(await get('/v2/withdrawalHistory?symbol=EUR')).toMatchObject([
      { amount: '10.00', status: 'completed' },
    ])
    const oldest = await get(`/v2/depositHistory?symbol=EUR&start=${firstMs}&end=${firstMs}`)
    expect(oldest).toMatchObject([{ amount: '1.00', timestamp: firstMs }])
    const pages = Math.ceil((total + 1) / 100)
    expect((await get('/v2/account/history?maxItems=100')).totalPages).toBe(pages)
  }, 120_000)
})

describe('listeners of durable commands', () => {
  it('all hear of each, whatever one of them throws, and the first failure is the caller’s', async () => {
    const { server, baseUrl } = await startTestServer()
    servers.push(server)
    const trader = await createTrader(server, 'listeners@example.com', { EUR: '1000' })
    const heard: string[] = []
    // It fails for the order alone: a command the server submits itself (a book flush) would
    // leave its failure unhandled.
    server.service.onEvents((_events, command) => {
      if (command.type === 'placeOrder') throw new Error('a listener failed')
    })
    server.service.onEvents((events) => {
      for (const event of events) heard.push(event.type)
    })
    server.service.onDurable((command) => heard.push(`durable ${command.type}`))
    const placed = await signedRequest(baseUrl, trader, 'POST', '/v2/order', {
      body: { market: 'BTC-EUR', side: 'buy', orderType: 'limit', amount: '0.01', price: '1000' },
    })
    expect(placed.status).toBe(500) // the failure reached the caller
    expect(heard).toContain('order')
    expect(heard).toContain('durable placeOrder')
    // And the order is there, durable, as the listeners were told.
    const open = await signedRequest(baseUrl, trader, 'GET', '/v2/ordersOpen?market=BTC-EUR')
    expect(open.json).toMatchObject([{ side: 'buy', price: '1000', status: 'new' }])
  })
})
