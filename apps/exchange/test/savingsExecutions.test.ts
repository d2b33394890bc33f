// A savings plan's executions as the web API lists them: the upcoming run keeps the id it was
// listed under once it has run, and a run that bought less than the plan amount (a thin book)
// shows what it spent. From a review (2026-11-28).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { msToDate } from '../src/savings/schedule.ts'
import type { ExchangeServer } from '../src/server.ts'
import { startSavingsServer } from './fixtures/savingsServer.ts'
import { webRequest } from './fixtures/webRequest.ts'

const dayMs = 86_400_000
const sellerOrderId = '5b0c1e2a-0000-4000-8000-000000000001'

describe('savings plan executions', () => {
  let nowMs = Date.parse('2026-11-22T09:00:00Z')
  let server: ExchangeServer
  let baseUrl: string
  let token: string
  const api = (method: string, path: string, body?: unknown) =>
    webRequest(baseUrl, token, method, path, body)
  const today = () => msToDate(nowMs)

  beforeAll(async () => {
    ;({ server, baseUrl, token } = await startSavingsServer(() => nowMs, 10_000))
  })
  afterAll(() => server.close())

  it('the execution listed as SCHEDULED keeps its id once it has run', async () => {
    const created = await api('POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '20',
      frequency: 'DAILY',
      startDate: today(),
    })
    expect(created.status).toBe(201)
    const id = created.json.id
    const before = await api('GET', `/exchange/savings-plans/v1/${id}/executions`)
    const scheduled = before.json.items[0]
    expect(scheduled).toMatchObject({ status: 'SCHEDULED', scheduledAt: Date.parse(today()) })
    await server.savingsScheduler.tick()
    const after = await api('GET', `/exchange/savings-plans/v1/${id}/executions`)
    const ran = after.json.items.find(
      (item: { scheduledAt: number; status: string }) =>
        item.scheduledAt === scheduled.scheduledAt && item.status !== 'SCHEDULED',
    )
    expect(ran).toMatchObject({ status: 'SUCCESS' })
    // The client keyed the upcoming run by its id ("so clients can key on it before it happens").
    expect(ran.id).toBe(scheduled.id)
    // So does a run missed (the exchange stopped over its date): recorded under the id it was
    // listed under.
    const next = after.json.items.find((item: { status: string }) => item.status === 'SCHEDULED')
    expect(next.scheduledAt).toBe(scheduled.scheduledAt + dayMs)
    nowMs += 2 * dayMs
    await server.savingsScheduler.tick()
    const later = await api('GET', `/exchange/savings-plans/v1/${id}/executions`)
    const missed = later.json.items.find(
      (item: { scheduledAt: number }) => item.scheduledAt === next.scheduledAt,
    )
    expect(missed).toMatchObject({ status: 'FAILED', failureErrorCode: 419, id: next.id })
    const ids = later.json.items.map((item: { id: string }) => item.id)
    expect(new Set(ids).size).toBe(ids.length)
    expect((await api('DELETE', `/exchange/savings-plans/v1/${id}`)).status).toBe(200)
  })

  it('an execution that bought only part of the plan does not report the whole amount as spent', async () => {
    const core = server.service.core
    // The earlier test's plan must not buy from the book first.
    for (const other of (await api('GET', '/exchange/savings-plans/v1')).json)
      expect((await api('DELETE', `/exchange/savings-plans/v1/${other.id}`)).status).toBe(200)
    const seller = core.engine.getOrder('BTC-EUR', sellerOrderId)!
    // Only 0.001 BTC (50 EUR) left on the book.
    const cancel = await server.service.submit({
      type: 'cancelOrder',
      timestamp: nowMs,
      market: 'BTC-EUR',
      accountId: seller.accountId,
      orderId: sellerOrderId,
    })
    expect(cancel.ok).toBe(true)
    const small = await server.service.submit({
      type: 'placeOrder',
      timestamp: nowMs,
      market: 'BTC-EUR',
      orderId: '5b0c1e2a-0000-4000-8000-000000000002',
      accountId: seller.accountId,
      side: 'sell',
      orderType: 'limit',
      amount: 100_000,
      price: 50_000,
      makerFeePpm: 1_500,
      takerFeePpm: 2_500,
    })
    expect(small.ok).toBe(true)
    nowMs += 2 * dayMs
    const created = await api('POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '100',
      frequency: 'WEEKLY',
      startDate: today(),
    })
    const plan = core.savingsPlans.get(created.json.id)!
    const saver = plan.accountId
    const eurBefore = core.ledger.balance(saver, 'EUR').available
    await server.savingsScheduler.tick()
    const spent = eurBefore - core.ledger.balance(saver, 'EUR').available
    expect(spent).toBeLessThan(toLedgerUnits(51, 0)) // about 50.13 EUR left the account
    const executions = await api('GET', `/exchange/savings-plans/v1/${plan.id}/executions`)
    const ran = executions.json.items.find(
      (item: { status: string }) => item.status !== 'SCHEDULED',
    )
    expect(ran).toMatchObject({ status: 'SUCCESS', filledAmount: '0.00100000' })
    // protocol savingsPlanExecution.amount: "EUR spent": 0.001 BTC at 50,000, not the plan's 100.
    expect(Number(ran.amount)).toBe(50)
  })
})
