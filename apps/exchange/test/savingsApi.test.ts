// Savings plans end to end: the spec's API over HTTP with a session, the scheduler on a test
// clock running a month of daily plans, exactly once per occurrence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SavingsScheduler } from '../src/savings/scheduler.ts'
import type { ExchangeServer } from '../src/server.ts'
import { answeredWithin, holdJournalWrites } from './fixtures/journalGate.ts'
import { startSavingsServer } from './fixtures/savingsServer.ts'
import { webRequest } from './fixtures/webRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const dayMs = 86_400_000
let nowMs = Date.parse('2026-11-22T09:00:00Z')
let server: ExchangeServer
let baseUrl: string
let token: string

const api = (method: string, path: string, body?: unknown, bearer: string | null = token) =>
  webRequest(baseUrl, bearer ?? undefined, method, path, body)

beforeAll(async () => {
  ;({ server, baseUrl, token } = await startSavingsServer(() => nowMs, 150_000))
})
afterAll(() => server.close())

describe('savings plans API', () => {
  it('answers 401 with the protocol error body without a session or a signed key', async () => {
    expect(await api('GET', '/exchange/savings-plans/v1', undefined, null)).toEqual({
      status: 401,
      json: { errorCode: 300, error: 'Authentication is required for this endpoint.' },
    })
  })

  it('lists eligible assets with amount limits', async () => {
    const assets = await api('GET', '/exchange/savings-plans/v1/assets')
    expect(assets.json.find((asset: Json) => asset.symbol === 'BTC')).toMatchObject({
      market: 'BTC-EUR',
      minAmount: '10',
      maxAmount: '10000',
    })
  })

  it('validates create: asset, amount limits, start date', async () => {
    const base = { asset: 'BTC', amount: '100', frequency: 'DAILY', startDate: '2026-11-23' }
    expect(
      (await api('POST', '/exchange/savings-plans/v1', { ...base, asset: 'NOPE' })).json.errorCode,
    ).toBe(205)
    expect(
      (await api('POST', '/exchange/savings-plans/v1', { ...base, amount: '5' })).json.errorCode,
    ).toBe(212)
    expect(
      (await api('POST', '/exchange/savings-plans/v1', { ...base, amount: '20000' })).json
        .errorCode,
    ).toBe(210)
    expect(
      (await api('POST', '/exchange/savings-plans/v1', { ...base, startDate: '2026-11-01' })).json
        .errorCode,
    ).toBe(205)
    expect(
      (await api('POST', '/exchange/savings-plans/v1', { ...base, frequency: 'HOURLY' })).status,
    ).toBe(400)
  })

  it('runs a daily plan once per day for a month, exactly once even when ticked twice', async () => {
    const created = await api('POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '100',
      frequency: 'DAILY',
      startDate: '2026-11-23',
    })
    expect(created.status).toBe(201)
    expect(created.json).toMatchObject({
      asset: 'BTC',
      market: 'BTC-EUR',
      status: 'ACTIVE',
      nextExecutionDate: '2026-11-23',
    })
    const id = created.json.id
    for (let day = 1; day <= 30; day += 1) {
      nowMs += dayMs
      expect(await server.savingsScheduler.tick()).toBe(1)
      expect(await server.savingsScheduler.tick()).toBe(0) // the same day again: nothing
    }
    const executions = await api('GET', `/exchange/savings-plans/v1/${id}/executions?size=100`)
    expect(executions.json.total).toBe(31) // 30 runs and the next SCHEDULED one
    expect(executions.json.items[0]).toMatchObject({ status: 'SCHEDULED', orderId: null })
    const runs = executions.json.items.slice(1)
    expect(
      runs.every(
        (run: Json) =>
          run.status === 'SUCCESS' && run.filledAmount === '0.00200000' && run.price === '50000',
      ),
    ).toBe(true)
    expect(new Set(runs.map((run: Json) => run.scheduledAt)).size).toBe(30)
    server.service.core.ledger.checkInvariant()
  })

  it('PATCH wraps changes in data; INACTIVE plans do not run; DELETE hides the plan', async () => {
    const created = await api('POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '50',
      frequency: 'WEEKLY',
      startDate: new Date(nowMs).toISOString().slice(0, 10),
    })
    const id = created.json.id
    expect(
      (await api('PATCH', `/exchange/savings-plans/v1/${id}`, { data: {} })).json.errorCode,
    ).toBe(232)
    const paused = await api('PATCH', `/exchange/savings-plans/v1/${id}`, {
      data: { status: 'INACTIVE', amount: '60' },
    })
    expect(paused.json).toMatchObject({ status: 'INACTIVE', amount: '60', nextExecutionDate: null })
    nowMs += 8 * dayMs
    const before = (await api('GET', `/exchange/savings-plans/v1/${id}/executions`)).json.total
    await server.savingsScheduler.tick()
    expect((await api('GET', `/exchange/savings-plans/v1/${id}/executions`)).json.total).toBe(
      before,
    )
    expect((await api('DELETE', `/exchange/savings-plans/v1/${id}`)).json.status).toBe('DELETED')
    expect((await api('GET', `/exchange/savings-plans/v1/${id}`)).status).toBe(404)
    expect(
      (await api('GET', '/exchange/savings-plans/v1?status=DELETED')).json.map(
        (plan: Json) => plan.id,
      ),
    ).toContain(id)
  })
})

describe('a savings plan created with an Idempotency-Key', () => {
  const create = (key: string, amount = '25') =>
    fetch(`${baseUrl}/exchange/savings-plans/v1`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        'content-type': 'application/json',
        'idempotency-key': key,
      },
      body: JSON.stringify({
        asset: 'BTC',
        amount,
        frequency: 'MONTHLY',
        startDate: new Date(nowMs).toISOString().slice(0, 10),
      }),
    }).then(async (response) => ({
      status: response.status,
      json: (await response.json()) as Json,
    }))

  it('is made once however often the create is sent, and answered with the plan each time, deleted too', async () => {
    const first = await create('retry-me')
    expect(first.status, JSON.stringify(first.json)).toBe(201)
    const again = await create('retry-me', '40') // what it asks is not looked at again
    expect(again).toEqual(first)
    const mine = (await api('GET', '/exchange/savings-plans/v1')).json as Json[]
    expect(mine.filter((plan) => plan.id === first.json.id)).toHaveLength(1)
    expect((await api('DELETE', `/exchange/savings-plans/v1/${first.json.id}`)).status).toBe(200)
    expect(await create('retry-me')).toMatchObject({
      status: 201,
      json: { id: first.json.id, status: 'DELETED' },
    })
    const other = await create('another-key')
    expect(other.status).toBe(201)
    expect(other.json.id).not.toBe(first.json.id)
    expect((await api('DELETE', `/exchange/savings-plans/v1/${other.json.id}`)).status).toBe(200)
  })

  it('answers a create sent again only once the create it repeats is durable', async () => {
    // A slow journal commit, the reason a client's first attempt times out and is sent again.
    const release = holdJournalWrites(server)
    try {
      const first = create('slow-commit')
      expect(await answeredWithin(first)).toBe('waiting')
      const again = create('slow-commit')
      // A crash now would take the plan back: the repeat must not say it was made.
      expect(await answeredWithin(again)).toBe('waiting')
      release()
      expect((await first).status).toBe(201)
      expect(await again).toEqual(await first)
      expect(
        (await api('DELETE', `/exchange/savings-plans/v1/${(await first).json.id}`)).status,
      ).toBe(200)
    } finally {
      release()
    }
  })

  it('refuses a key that is not 1 to 100 visible ASCII characters with 205, and makes nothing', async () => {
    const before = (await api('GET', '/exchange/savings-plans/v1')).json.length
    for (const key of ['with space', 'x'.repeat(101), 'clé'])
      expect(await create(key)).toEqual({
        status: 400,
        json: { errorCode: 205, error: 'Idempotency-Key parameter is invalid.' },
      })
    expect((await api('GET', '/exchange/savings-plans/v1')).json).toHaveLength(before)
  })
})

describe('the savings scheduler', () => {
  it('stamps each run as it submits it, not as its tick began', async () => {
    const ids: string[] = []
    for (const amount of ['20', '30']) {
      const created = await api('POST', '/exchange/savings-plans/v1', {
        asset: 'BTC',
        amount,
        frequency: 'DAILY',
        startDate: new Date(nowMs + dayMs).toISOString().slice(0, 10),
      })
      expect(created.status).toBe(201)
      ids.push(created.json.id)
    }
    nowMs += dayMs
    const tickStartMs = nowMs
    // Each fee lookup takes 5 s of the clock: the second run is submitted 10 s after the tick.
    const slow = new SavingsScheduler(server.service, {
      nowMs: () => nowMs,
      feesOf: async () => {
        nowMs += 5_000
        return { makerFeePpm: 1_500, takerFeePpm: 2_500 }
      },
    })
    expect(await slow.tick()).toBeGreaterThanOrEqual(2)
    const executedAt = ids.map(
      (id) => server.service.core.savingsPlans.get(id)!.executions.at(-1)!.executedAt,
    )
    expect(executedAt[0]).toBeGreaterThan(tickStartMs)
    expect(executedAt[1]).toBe(executedAt[0]! + 5_000)
  })
})

describe('savings plan dates and answers', () => {
  const today = () => new Date(nowMs).toISOString().slice(0, 10)
  const create = (changes: Record<string, string>) =>
    api('POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '25',
      frequency: 'DAILY',
      startDate: today(),
      ...changes,
    })
  const executionsOf = (id: string) => server.service.core.savingsPlans.get(id)!.executions

  it('a plan starting today buys today, at the next tick', async () => {
    const created = await create({ frequency: 'MONTHLY' })
    expect(created.status).toBe(201)
    expect(created.json.nextExecutionDate).toBe(today())
    await server.savingsScheduler.tick()
    expect(executionsOf(created.json.id)).toEqual([
      expect.objectContaining({ status: 'SUCCESS', scheduledAt: Date.parse(today()) }),
    ])
    const plan = await api('GET', `/exchange/savings-plans/v1/${created.json.id}`)
    expect(plan.json.nextExecutionDate).not.toBe(today())
  })

  it('a plan re-activated after a pause runs next at the first occurrence after the re-activation, recording nothing for the pause', async () => {
    const created = await create({ startDate: new Date(nowMs + dayMs).toISOString().slice(0, 10) })
    const id = created.json.id
    nowMs += dayMs
    await server.savingsScheduler.tick()
    expect(executionsOf(id).map((execution) => execution.status)).toEqual(['SUCCESS'])
    await api('PATCH', `/exchange/savings-plans/v1/${id}`, { data: { status: 'INACTIVE' } })
    nowMs += 40 * dayMs
    const resumed = await api('PATCH', `/exchange/savings-plans/v1/${id}`, {
      data: { status: 'ACTIVE' },
    })
    const tomorrow = new Date(nowMs + dayMs).toISOString().slice(0, 10)
    expect(resumed.json).toMatchObject({ status: 'ACTIVE', nextExecutionDate: tomorrow })
    await server.savingsScheduler.tick()
    expect(executionsOf(id)).toHaveLength(1) // nothing for the pause, and no buy at once
    nowMs += dayMs
    await server.savingsScheduler.tick()
    expect(executionsOf(id).map((execution) => [execution.status, execution.scheduledAt])).toEqual([
      ['SUCCESS', expect.any(Number)],
      ['SUCCESS', Date.parse(tomorrow)],
    ])
  })

  it('an amount with more than two decimals is 429, on create and on PATCH, as for orders', async () => {
    const tooPrecise = {
      status: 400,
      json: { errorCode: 429, error: 'amount parameter has too many decimal digits.' },
    }
    expect(await create({ amount: '10.001' })).toEqual(tooPrecise)
    const created = await create({ amount: '10.00' })
    expect(created.status).toBe(201)
    expect(
      await api('PATCH', `/exchange/savings-plans/v1/${created.json.id}`, {
        data: { amount: '10.001' },
      }),
    ).toEqual(tooPrecise)
    expect((await create({ amount: '10.0.1' })).json.errorCode).toBe(205)
  })

  it('speaks of savings plans, not orders: 232 for nothing to change, 404 with 240 for a plan not found, a deleted plan included', async () => {
    const id = (await create({})).json.id
    expect(await api('PATCH', `/exchange/savings-plans/v1/${id}`, { data: {} })).toEqual({
      status: 400,
      json: {
        errorCode: 232,
        error: 'You must change at least one of amount, frequency, startDate or status.',
      },
    })
    const notFound = { status: 404, json: { errorCode: 240, error: 'No savings plan found.' } }
    const unknown = '00000000-0000-4000-8000-000000000000'
    expect(await api('GET', `/exchange/savings-plans/v1/${unknown}`)).toEqual(notFound)
    expect(await api('GET', `/exchange/savings-plans/v1/${unknown}/executions`)).toEqual(notFound)
    expect((await api('DELETE', `/exchange/savings-plans/v1/${id}`)).status).toBe(200)
    for (const [method, path] of [
      ['GET', `/exchange/savings-plans/v1/${id}`],
      ['GET', `/exchange/savings-plans/v1/${id}/executions`],
      ['PATCH', `/exchange/savings-plans/v1/${id}`],
      ['DELETE', `/exchange/savings-plans/v1/${id}`],
    ] as const) {
      const body = method === 'PATCH' ? { data: { amount: '20' } } : undefined
      expect(await api(method, path, body), `${method} ${path}`).toEqual(notFound)
    }
  })
})
