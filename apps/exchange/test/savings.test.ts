import type { MarketConfig } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import { type CoreCommand, ExchangeCore } from '../src/core/exchangeCore.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { dateToMs, lastOccurrenceIndex, msToDate, occurrence } from '../src/savings/schedule.ts'
import { btcEur as coreMarket } from './fixtures/coreWithMarket.ts'

// The core tests' market, with a smaller base minimum for small savings buys.
const btcEur: MarketConfig = { ...coreMarket, minOrderInBaseAsset: '0.00001' }

describe('savings plan schedules', () => {
  it('monthly plans keep the day of month, clamped to the month end (31 Jan → 28/29 Feb → 31 Mar)', () => {
    const start = dateToMs('2026-01-31')
    expect([0, 1, 2, 3].map((k) => msToDate(occurrence(start, 'MONTHLY', k)))).toEqual([
      '2026-01-31',
      '2026-02-28',
      '2026-03-31',
      '2026-04-30',
    ])
    expect(msToDate(occurrence(dateToMs('2028-01-31'), 'MONTHLY', 1))).toBe('2028-02-29')
  })

  it.each([
    ['DAILY', '2026-11-22', '2026-11-25T10:00:00Z', 3],
    ['WEEKLY', '2026-11-22', '2026-12-06T00:00:00Z', 2],
    ['FORTNIGHTLY', '2026-11-22', '2026-12-05T23:59:59Z', 0],
    ['MONTHLY', '2026-01-31', '2026-03-30T00:00:00Z', 1],
    ['MONTHLY', '2026-11-22', '2026-11-21T00:00:00Z', -1],
  ] as const)(
    '%s from %s: the last run at or before %s is number %i',
    (frequency, start, at, index) => {
      expect(lastOccurrenceIndex(dateToMs(start), frequency, Date.parse(at))).toBe(index)
    },
  )
})

describe('savings plan runs in the core', () => {
  /** A plan of 100 EUR a day, its account with `eur`, and `askBtc` for sale at 50,000. */
  function setUp(eur: number, askBtc = 5) {
    const core = new ExchangeCore()
    core.apply({ type: 'addMarket', timestamp: 0, config: btcEur })
    core.apply({
      type: 'deposit',
      timestamp: 0,
      accountId: 2,
      asset: 'BTC',
      amount: toLedgerUnits(10, 0).toString(),
      reference: 'mm',
    })
    core.apply({
      type: 'placeOrder',
      timestamp: 1,
      market: 'BTC-EUR',
      orderId: 'ask',
      accountId: 2,
      side: 'sell',
      orderType: 'limit',
      amount: askBtc * 100_000_000,
      price: 50_000,
      makerFeePpm: 1_500,
      takerFeePpm: 2_500,
    })
    core.apply({
      type: 'deposit',
      timestamp: 1,
      accountId: 1,
      asset: 'EUR',
      amount: toLedgerUnits(eur * 100, 2).toString(),
      reference: 'eur',
    })
    const startMs = dateToMs('2026-11-22')
    expect(
      core.apply({
        type: 'createSavingsPlan',
        timestamp: startMs - 1000,
        planId: 'p',
        accountId: 1,
        asset: 'BTC',
        market: 'BTC-EUR',
        amount: '100',
        frequency: 'DAILY',
        startMs,
        status: 'ACTIVE',
      }).ok,
    ).toBe(true)
    return { core, startMs }
  }
  const run = (index: number, at: number, ids: string[], planId = 'p'): CoreCommand => ({
    type: 'runSavingsPlan',
    timestamp: at,
    planId,
    index,
    executionIds: ids,
    orderId: `o${index}`,
    makerFeePpm: 1_500,
    takerFeePpm: 2_500,
  })

  it('a run that bought less than the plan amount records what it spent; one journaled before, the plan amount', () => {
    for (const [amountRules, amount] of [
      [2, '50'],
      [undefined, '100'], // as the older build recorded it, and its snapshots hold it
    ] as const) {
      const { core, startMs } = setUp(1_000, 0.001) // 50 EUR of BTC on the book
      const command = {
        ...run(0, startMs + 5_000, ['e0']),
        ...(amountRules ? { amountRules } : {}),
      }
      expect(core.apply(command).ok).toBe(true)
      expect(core.savingsPlans.get('p')!.executions).toMatchObject([
        { status: 'SUCCESS', filledAmount: '0.00100000', amount },
      ])
    }
  })

  it('each occurrence runs exactly once, as a market buy of the amount in EUR', () => {
    const { core, startMs } = setUp(1_000)
    expect(core.apply(run(0, startMs + 5_000, ['e0'])).ok).toBe(true)
    expect(core.apply(run(0, startMs + 6_000, ['e0b']))).toMatchObject({
      ok: false,
      errorCode: 232,
    }) // again: refused
    expect(core.apply(run(1, startMs + 7_000, ['e1']))).toMatchObject({ ok: false }) // not due yet
    const plan = core.savingsPlans.get('p')!
    expect(plan.executions).toEqual([
      expect.objectContaining({
        id: 'e0',
        status: 'SUCCESS',
        amount: '100',
        filledAmount: '0.00200000',
        price: '50000',
        orderId: 'o0',
      }),
    ])
    expect(core.ledger.balance(1, 'BTC').available).toBe(toLedgerUnits(200_000, 8))
    core.ledger.checkInvariant()
  })

  it('runs missed while stopped are recorded as FAILED; only the latest due one buys', () => {
    const { core, startMs } = setUp(1_000)
    expect(core.apply(run(3, startMs + 3 * 86_400_000 + 10, ['m0', 'm1', 'm2', 'e3'])).ok).toBe(
      true,
    )
    const executions = core.savingsPlans.get('p')!.executions
    expect(executions.map((execution) => [execution.id, execution.status])).toEqual([
      ['m0', 'FAILED'],
      ['m1', 'FAILED'],
      ['m2', 'FAILED'],
      ['e3', 'SUCCESS'],
    ])
    expect(executions[0]!.failureErrorCode).toBe(419)
  })

  it('a run without enough EUR fails with 216 and buys nothing', () => {
    const { core, startMs } = setUp(50)
    expect(core.apply(run(0, startMs + 10, ['e0'])).ok).toBe(true)
    expect(core.savingsPlans.get('p')!.executions[0]).toMatchObject({
      status: 'FAILED',
      failureErrorCode: 216,
      orderId: null,
    })
    expect(core.ledger.balance(1, 'EUR').available).toBe(toLedgerUnits(5_000, 2))
  })

  const update = (
    core: ExchangeCore,
    at: number,
    changes: { status?: 'ACTIVE' | 'INACTIVE'; frequency?: 'WEEKLY' },
  ) =>
    core.apply({
      type: 'updateSavingsPlan',
      timestamp: at,
      planId: 'p',
      accountId: 1,
      schedule: 2,
      ...changes,
    })

  it('a plan re-activated after a pause records nothing for the pause and runs next after the re-activation', () => {
    const { core, startMs } = setUp(1_000)
    expect(core.apply(run(0, startMs + 10, ['e0'])).ok).toBe(true)
    expect(update(core, startMs + 20, { status: 'INACTIVE' }).ok).toBe(true)
    const resumedMs = startMs + 40 * 86_400_000 + 9 * 3_600_000
    expect(update(core, resumedMs, { status: 'ACTIVE' }).ok).toBe(true)
    // Day 40's occurrence (at 00:00) came before the re-activation: the next is day 41's.
    expect(core.apply(run(40, resumedMs + 10, ['e40']))).toMatchObject({ ok: false })
    expect(core.apply(run(41, startMs + 41 * 86_400_000 + 10, ['e41'])).ok).toBe(true)
    expect(core.savingsPlans.get('p')!.executions.map((execution) => execution.id)).toEqual([
      'e0',
      'e41',
    ])
  })

  it('commands journaled under the old rules replay as they were applied', () => {
    // A re-activation without `schedule` kept the plan's place, and the run journaled after it
    // (day 40, recording the paused days as missed) must still be accepted on replay.
    const { core, startMs } = setUp(1_000)
    expect(core.apply(run(0, startMs + 10, ['e0'])).ok).toBe(true)
    const old = (at: number, status: 'ACTIVE' | 'INACTIVE') =>
      core.apply({ type: 'updateSavingsPlan', timestamp: at, planId: 'p', accountId: 1, status })
    expect(old(startMs + 20, 'INACTIVE').ok).toBe(true)
    const resumedMs = startMs + 40 * 86_400_000 + 9 * 3_600_000
    expect(old(resumedMs, 'ACTIVE').ok).toBe(true)
    const ids = Array.from({ length: 40 }, (_, index) => `e${index + 1}`)
    expect(core.apply(run(40, resumedMs + 10, ids)).ok).toBe(true)
  })

  it('a plan starting today runs today, even when created after midnight', () => {
    const { core, startMs } = setUp(1_000)
    const createdMs = startMs + 9 * 3_600_000
    const create = core.apply({
      type: 'createSavingsPlan',
      timestamp: createdMs,
      planId: 'today',
      accountId: 1,
      asset: 'BTC',
      market: 'BTC-EUR',
      amount: '100',
      frequency: 'MONTHLY',
      startMs,
      status: 'ACTIVE',
      schedule: 2,
    })
    expect(create.ok).toBe(true)
    expect(core.apply(run(0, createdMs + 10, ['e0'], 'today')).ok).toBe(true)
    expect(core.savingsPlans.get('today')!.executions).toEqual([
      expect.objectContaining({ id: 'e0', status: 'SUCCESS', scheduledAt: startMs }),
    ])
  })

  it('a plan re-anchored on a day it already ran does not run that day again', () => {
    const { core, startMs } = setUp(1_000)
    const ranMs = startMs + 9 * 3_600_000
    expect(core.apply(run(0, ranMs, ['e0'])).ok).toBe(true)
    expect(update(core, ranMs + 1, { status: 'INACTIVE' }).ok).toBe(true)
    expect(update(core, ranMs + 2, { status: 'ACTIVE' }).ok).toBe(true)
    expect(core.savingsPlans.get('p')!.nextIndex).toBe(1)
    // Weekly from the same start date: its first occurrence is today, already bought.
    expect(update(core, ranMs + 3, { frequency: 'WEEKLY' }).ok).toBe(true)
    expect(core.savingsPlans.get('p')!.nextIndex).toBe(1)
  })

  it('plans survive a snapshot', () => {
    const { core, startMs } = setUp(1_000)
    core.apply(run(0, startMs + 10, ['e0']))
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(core.snapshot())))
    expect(restored.savingsPlans.get('p')).toEqual(core.savingsPlans.get('p'))
    expect(restored.apply(run(0, startMs + 20, ['again']))).toMatchObject({ ok: false })
  })
})
