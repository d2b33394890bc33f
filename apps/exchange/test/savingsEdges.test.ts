// Savings plans at the edges of the calendar: runs bought late (the exchange was stopped over a
// run's date, or a tick crossed midnight) must not let one plan buy twice on one day, and a
// start date must be a real day, not in the past and at most a year ahead. The API over HTTP on
// a test clock, the scheduler driven by hand, as in savingsApi.test.ts.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startDaysAheadMax } from '../src/api/savingsRoutes.ts'
import { ExchangeCore } from '../src/core/exchangeCore.ts'
import type { Execution } from '../src/savings/savingsBook.ts'
import { dateToMs, lastOccurrenceIndex, msToDate, occurrence } from '../src/savings/schedule.ts'
import { SavingsScheduler } from '../src/savings/scheduler.ts'
import type { ExchangeServer } from '../src/server.ts'
import { startSavingsServer } from './fixtures/savingsServer.ts'
import { webRequest } from './fixtures/webRequest.ts'

const dayMs = 86_400_000
let nowMs = Date.parse('2026-11-22T09:00:00Z')
let server: ExchangeServer
let baseUrl: string
let token: string

const api = (method: string, path: string, body?: unknown) =>
  webRequest(baseUrl, token, method, path, body)
const dateIn = (days: number) => msToDate(Math.floor(nowMs / dayMs) * dayMs + days * dayMs)
const executionsOf = (id: string) => server.service.core.savingsPlans.get(id)!.executions
/** The UTC days on which a plan bought, one entry per buy. */
const buyDays = (executions: Execution[]) =>
  executions
    .filter((execution) => execution.status === 'SUCCESS')
    .map((execution) => msToDate(execution.executedAt!))

beforeAll(async () => {
  ;({ server, baseUrl, token } = await startSavingsServer(() => nowMs, 10_000))
})
afterAll(() => server.close())

describe('a savings plan bought late buys at most once a day', () => {
  it.each([
    ['its start moved to today', [{ startDate: 'today' }]],
    [
      'paused, its start moved to today, then re-activated',
      [{ status: 'INACTIVE' }, { startDate: 'today' }, { status: 'ACTIVE' }],
    ],
    ['made daily from today', [{ frequency: 'DAILY', startDate: 'today' }]],
  ])(
    'after a run bought the day after its date, then %s, it does not buy again that day',
    async (_, changes) => {
      const created = await api('POST', '/exchange/savings-plans/v1', {
        asset: 'BTC',
        amount: '100',
        frequency: 'WEEKLY',
        startDate: dateIn(1),
      })
      expect(created.status).toBe(201)
      const id = created.json.id
      // Stopped over the whole first day: the scheduler catches up at 01:00 the day after.
      nowMs = Math.floor(nowMs / dayMs) * dayMs + 2 * dayMs + 3_600_000
      await server.savingsScheduler.tick()
      const [late] = executionsOf(id)
      expect(late).toMatchObject({ status: 'SUCCESS', scheduledAt: dateToMs(dateIn(-1)) })
      expect(msToDate(late!.executedAt!)).toBe(dateIn(0))

      nowMs += 3_600_000
      for (const change of changes) {
        const data = change.startDate === 'today' ? { ...change, startDate: dateIn(0) } : change
        expect((await api('PATCH', `/exchange/savings-plans/v1/${id}`, { data })).status).toBe(200)
      }
      await server.savingsScheduler.tick()
      expect(buyDays(executionsOf(id))).toEqual([dateIn(0)])
      const plan = await api('GET', `/exchange/savings-plans/v1/${id}`)
      expect(plan.json).toMatchObject({ status: 'ACTIVE', startDate: dateIn(0) })
      expect(plan.json.nextExecutionDate > dateIn(0)).toBe(true)

      // It runs again on its next date, once.
      const lateDay = dateIn(0)
      nowMs = dateToMs(plan.json.nextExecutionDate) + 60_000
      await server.savingsScheduler.tick()
      await server.savingsScheduler.tick()
      expect(buyDays(executionsOf(id))).toEqual([lateDay, plan.json.nextExecutionDate])
    },
  )

  it('a run whose tick began before midnight and was submitted after it is the new day’s, and the next tick buys nothing', async () => {
    const midnightMs = dateToMs(dateIn(1))
    nowMs = midnightMs - 2_000
    const created = await api('POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '100',
      frequency: 'DAILY',
      startDate: dateIn(0),
    })
    expect(created.json.nextExecutionDate).toBe(dateIn(0))
    const id = created.json.id
    // The tick begins 2 s before midnight; looking up the fees takes 5 s.
    const slow = new SavingsScheduler(server.service, {
      nowMs: () => nowMs,
      feesOf: async () => {
        nowMs += 5_000
        return { makerFeePpm: 1_500, takerFeePpm: 2_500 }
      },
    })
    await slow.tick()
    await server.savingsScheduler.tick()
    expect(buyDays(executionsOf(id))).toEqual([msToDate(midnightMs)])
    // The day before had no buy: recorded as missed, as when the exchange was stopped over it.
    expect(
      executionsOf(id).map((execution) => [
        msToDate(execution.scheduledAt),
        execution.status,
        execution.failureErrorCode,
      ]),
    ).toEqual([
      [msToDate(midnightMs - dayMs), 'FAILED', 419],
      [msToDate(midnightMs), 'SUCCESS', null],
    ])
  })
})

describe('a savings plan bought late, in the core', () => {
  const startMs = dateToMs('2026-11-22')
  const lateMs = startMs + dayMs + 3_600_000
  /** A weekly plan whose first run (22 November) was made on 23 November, at `lateMs`. */
  function boughtLate() {
    const core = new ExchangeCore()
    core.apply({
      type: 'createSavingsPlan',
      timestamp: startMs - dayMs,
      planId: 'p',
      accountId: 1,
      asset: 'BTC',
      market: 'BTC-EUR',
      amount: '100',
      frequency: 'WEEKLY',
      startMs,
      status: 'ACTIVE',
      schedule: 2,
    })
    // No market: each run fails, but is recorded; what matters is which runs the core accepts.
    expect(run(core, lateMs, 'e0').ok).toBe(true)
    return core
  }
  const run = (core: ExchangeCore, timestamp: number, executionId: string) =>
    core.apply({
      type: 'runSavingsPlan',
      timestamp,
      planId: 'p',
      index: 0,
      executionIds: [executionId],
      orderId: `o-${executionId}`,
      makerFeePpm: 0,
      takerFeePpm: 0,
    })
  /** Moves the plan's start to the day of the late run. */
  const startThatDay = (core: ExchangeCore, schedule: 2 | 3) =>
    core.apply({
      type: 'updateSavingsPlan',
      timestamp: lateMs + 1,
      planId: 'p',
      accountId: 1,
      startMs: startMs + dayMs,
      schedule,
    })

  it('under rules 3, a start moved to the day of a late run does not run that day', () => {
    const core = boughtLate()
    expect(startThatDay(core, 3).ok).toBe(true)
    expect(core.savingsPlans.get('p')!.nextIndex).toBe(1)
    expect(run(core, lateMs + 2, 'e1')).toMatchObject({ ok: false, errorCode: 232 })
  })

  it('commands journaled under rules 2 replay as they were applied, a second run that day included', () => {
    const core = boughtLate()
    expect(startThatDay(core, 2).ok).toBe(true)
    expect(run(core, lateMs + 2, 'e1').ok).toBe(true)
  })
})

describe('savings plan start dates', () => {
  const create = (startDate: string, frequency = 'MONTHLY') =>
    api('POST', '/exchange/savings-plans/v1', { asset: 'BTC', amount: '25', frequency, startDate })
  const invalidStart = {
    status: 400,
    json: { errorCode: 205, error: 'startDate parameter is invalid.' },
  }

  it(`a plan starts today or at most ${startDaysAheadMax} days ahead: later is 205, on create and on PATCH`, async () => {
    expect((await create(dateIn(0))).status).toBe(201)
    const latest = await create(dateIn(startDaysAheadMax))
    expect(latest.status).toBe(201)
    expect(latest.json.nextExecutionDate).toBe(dateIn(startDaysAheadMax))
    for (const startDate of [dateIn(startDaysAheadMax + 1), '9999-12-31'])
      expect(await create(startDate), startDate).toEqual(invalidStart)
    const path = `/exchange/savings-plans/v1/${latest.json.id}`
    expect(await api('PATCH', path, { data: { startDate: '9999-12-31' } })).toEqual(invalidStart)
    expect((await api('GET', path)).json.startDate).toBe(dateIn(startDaysAheadMax))
    expect(await api('DELETE', path)).toMatchObject({ status: 200 })
  })

  it.each([
    '2026-02-30',
    '2027-02-29',
    '2100-02-29',
    '2026-13-01',
    '2026-00-10',
    '+275760-09-13',
    '275760-09-13',
    '2026-1-1',
    '2026-12-01T00:00:00Z',
  ])('%s is not a date: 400, and no plan', async (startDate) => {
    const before = server.service.core.savingsPlans.size
    const answer = await create(startDate)
    expect(answer.status).toBe(400)
    expect(answer.json.errorCode).toBe(205)
    expect(server.service.core.savingsPlans.size).toBe(before)
  })

  it.each([
    ['2028-01-29', ['2028-01-29', '2028-02-29', '2028-03-29', '2029-01-29', '2029-02-28']],
    ['2027-01-30', ['2027-01-30', '2027-02-28', '2027-03-30', '2028-01-30', '2028-02-29']],
    ['2028-02-29', ['2028-02-29', '2028-03-29', '2028-04-29', '2029-02-28', '2029-03-29']],
    ['2027-12-31', ['2027-12-31', '2028-01-31', '2028-02-29', '2028-12-31', '2029-01-31']],
  ])('monthly from %s keeps its day, clamped to short months and leap years', (start, dates) => {
    const startMs = dateToMs(start)
    const runs = [0, 1, 2, 12, 13].map((k) => msToDate(occurrence(startMs, 'MONTHLY', k)))
    expect(runs).toEqual(dates)
  })

  it('over a century of monthly runs from the 28th to the 31st, each run is found again at its date and none before', () => {
    for (const day of [28, 29, 30, 31]) {
      const startMs = Date.UTC(2027, 0, day)
      for (let k = 0; k < 1_200; k += 1) {
        const atMs = occurrence(startMs, 'MONTHLY', k)
        expect(occurrence(startMs, 'MONTHLY', k + 1)).toBeGreaterThan(atMs)
        expect(lastOccurrenceIndex(startMs, 'MONTHLY', atMs)).toBe(k)
        expect(lastOccurrenceIndex(startMs, 'MONTHLY', atMs - 1)).toBe(k - 1)
      }
    }
  })
})
