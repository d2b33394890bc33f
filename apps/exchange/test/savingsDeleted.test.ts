// Deleted savings plans are kept apart and bounded: an account that creates and deletes plans
// over and over keeps its newest 100 deleted ones (listed with `?status=DELETED`), not every one
// it ever made (they stayed in the core, every snapshot and the scheduler's pass each second:
// from a security review).
import { savingsPlansPerAccountMax } from '@polder/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExchangeCore } from '../src/core/exchangeCore.ts'
import type { ExchangeServer } from '../src/server.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { webRequest } from './fixtures/webRequest.ts'

const dayMs = 86_400_000
const startMs = Date.parse('2026-12-01T00:00:00Z')

function create(core: ExchangeCore, planId: string, timestamp: number) {
  return core.apply({
    type: 'createSavingsPlan',
    timestamp,
    planId,
    accountId: 1,
    asset: 'BTC',
    market: 'BTC-EUR',
    amount: '1000',
    frequency: 'DAILY',
    startMs,
    status: 'ACTIVE',
    schedule: 2,
  })
}
const remove = (core: ExchangeCore, planId: string, timestamp: number) =>
  core.apply({ type: 'deleteSavingsPlan', timestamp, planId, accountId: 1 })

describe('deleted savings plans in the core', () => {
  it('keeps the newest deleted plans of an account, and a snapshot no more', () => {
    const core = new ExchangeCore()
    expect(create(core, 'kept', 0).ok).toBe(true)
    for (let i = 0; i < 250; i += 1) {
      expect(create(core, `p${i}`, 2 * i + 1).ok).toBe(true)
      expect(remove(core, `p${i}`, 2 * i + 2).ok).toBe(true)
    }
    expect([...core.savingsPlans.keys()]).toEqual(['kept'])
    const deleted = core.deletedSavingsPlansOf(1)
    expect(deleted).toHaveLength(savingsPlansPerAccountMax)
    expect(deleted.map((plan) => plan.id)).toEqual(
      Array.from({ length: 100 }, (_, i) => `p${150 + i}`),
    )
    expect(deleted.every((plan) => plan.status === 'DELETED')).toBe(true)
    const snapshot = core.snapshot()
    expect(snapshot.savings).toHaveLength(1 + savingsPlansPerAccountMax)
    // A deleted plan is gone for every command: deleted again, changed, run.
    expect(remove(core, 'p249', 1_000)).toMatchObject({ ok: false, errorCode: 240 })
    expect(remove(core, 'p0', 1_000)).toMatchObject({ ok: false, errorCode: 240 })
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(snapshot)))
    expect(restored.savingsPlansOf(1).map((plan) => plan.id)).toEqual(['kept'])
    expect(restored.deletedSavingsPlansOf(1)).toEqual(deleted)
  })

  it('restores its own snapshot in deletion order, even where the clock stepped back', () => {
    const core = new ExchangeCore()
    for (let i = 0; i < savingsPlansPerAccountMax; i += 1)
      expect(create(core, `p${i}`, 1_000 + i).ok).toBe(true)
    // p0 deleted, then the clock steps back 10 s (a correction), and the others are deleted.
    expect(remove(core, 'p0', 20_000).ok).toBe(true)
    for (let i = 1; i < savingsPlansPerAccountMax; i += 1)
      expect(remove(core, `p${i}`, 10_000 + i).ok).toBe(true)
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(core.snapshot())))
    expect(restored.deletedSavingsPlansOf(1)).toEqual(core.deletedSavingsPlansOf(1))
    // One more deletion lets the same plan go (p0) in both.
    for (const each of [core, restored]) {
      expect(create(each, 'last', 30_000).ok).toBe(true)
      expect(remove(each, 'last', 30_001).ok).toBe(true)
    }
    expect(restored.snapshot().savings).toEqual(core.snapshot().savings)
  })

  it('reads a snapshot of before, with every deleted plan among the others, by deletion time', () => {
    const core = new ExchangeCore()
    // Two rounds of 60 plans, each deleted newest first: p59 … p0, then p119 … p60.
    let clock = 0
    for (const first of [0, 60]) {
      for (let i = first; i < first + 60; i += 1)
        expect(create(core, `p${i}`, clock++).ok).toBe(true)
      for (let i = first + 59; i >= first; i -= 1)
        expect(remove(core, `p${i}`, clock++).ok).toBe(true)
    }
    const older = core.snapshot()
    older.savings = [...(older.savings ?? [])].sort((a, b) => a.created - b.created)
    delete older.deletedSavingsInOrder
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(older)))
    const deletionOrder = (first: number, count: number) =>
      Array.from({ length: count }, (_, i) => `p${first - i}`)
    expect(restored.deletedSavingsPlansOf(1).map((plan) => plan.id)).toEqual([
      ...deletionOrder(39, 40),
      ...deletionOrder(119, 60),
    ])
    // The per-account cap counts the plans not deleted only.
    expect(create(restored, 'new', 5_000).ok).toBe(true)
  })
})

describe('deleted savings plans over the web API', () => {
  let server: ExchangeServer
  let baseUrl: string
  let token: string

  beforeAll(async () => {
    ;({ server, baseUrl } = await startTestServer({ simulator: false }))
    const account = await server.accounts.createAccount('saver@example.com', 'a long password')
    token = (await server.accounts.createSession(account.id, dayMs)).token
  })
  afterAll(() => server.close())

  it('lists the newest 100 deleted plans, answers 404 for every deleted one', async () => {
    const startDate = new Date(Date.now() + dayMs).toISOString().slice(0, 10)
    const body = { asset: 'BTC', amount: '100', frequency: 'DAILY', startDate }
    const ids: string[] = []
    for (let i = 0; i < 110; i += 1) {
      const created = await webRequest(baseUrl, token, 'POST', '/exchange/savings-plans/v1', body)
      expect(created.status).toBe(201)
      ids.push(created.json.id)
      const path = `/exchange/savings-plans/v1/${created.json.id}`
      expect((await webRequest(baseUrl, token, 'DELETE', path)).status).toBe(200)
    }
    const kept = await webRequest(baseUrl, token, 'POST', '/exchange/savings-plans/v1', body)
    expect(kept.status).toBe(201)
    const list = async (query: string) =>
      (await webRequest(baseUrl, token, 'GET', `/exchange/savings-plans/v1${query}`)).json
    expect((await list('')).map((plan: { id: string }) => plan.id)).toEqual([kept.json.id])
    const deleted = await list('?status=DELETED')
    expect(deleted.map((plan: { id: string }) => plan.id)).toEqual(ids.slice(10))
    expect(deleted.every((plan: { status: string }) => plan.status === 'DELETED')).toBe(true)
    for (const id of [ids[0], ids[109]]) {
      const path = `/exchange/savings-plans/v1/${id}`
      const answer = await webRequest(baseUrl, token, 'GET', path)
      expect(answer).toMatchObject({ status: 404, json: { errorCode: 240 } })
      expect((await webRequest(baseUrl, token, 'DELETE', path)).status).toBe(404)
    }
    expect(server.service.core.savingsPlans.size).toBe(1)
  }, 60_000)
})
