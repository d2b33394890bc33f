// A day's staking reward is paid on the least amount a position held since the previous payout:
// funds staked a second before midnight and unstaked after the payout earn nothing (they earned
// a whole day's yield before, from a review), and that least amount survives a snapshot; a
// payout journaled before the rule replays as it was paid. What changes between midnight and the
// payout (in the minute after it) counts for the next day only (rules 3, from a later review).
import { describe, expect, it } from 'vitest'
import { ExchangeCore } from '../src/core/exchangeCore.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'

const dayMs = 86_400_000
const day0 = Date.parse('2026-11-22T00:00:00Z')
const yieldPpm = { ETH: 36_500 } // 3.65% a year: a day pays 1/10,000 of what is staked
const eth = (amount: number) => toLedgerUnits(amount, 0)
const daily = (amount: number) => eth(amount) / 10_000n

function coreWithEth(amount: number): ExchangeCore {
  const core = new ExchangeCore()
  const deposit = core.apply({
    type: 'deposit',
    timestamp: day0,
    accountId: 1,
    asset: 'ETH',
    amount: eth(amount).toString(),
    reference: 'eth',
  })
  expect(deposit.ok).toBe(true)
  return core
}

let references = 0
function move(core: ExchangeCore, type: 'stake' | 'unstake', amount: number, atMs: number): void {
  references += 1
  const outcome = core.apply({
    type,
    timestamp: atMs,
    accountId: 1,
    asset: 'ETH',
    amount: eth(amount).toString(),
    acknowledgeRisk: true,
    reference: `move ${references}`,
  })
  expect(outcome.ok).toBe(true)
}

/**
 * Pays the day that began at `dayStartMs`, `afterMs` after it ended, by today's rules (or by
 * those a payout journaled by an older build was made under: none, or 2); returns what it paid.
 */
function payDay(
  core: ExchangeCore,
  dayStartMs: number,
  rules: 'none' | 2 | 3 = 3,
  afterMs = 1_000,
): bigint {
  const before = core.ledger.balance(1, 'ETH').available
  const outcome = core.apply({
    type: 'accrueStakingRewards',
    timestamp: dayStartMs + dayMs + afterMs,
    dayMs: dayStartMs,
    yieldPpm,
    ...(rules === 'none' ? {} : { rules }),
  })
  expect(outcome.ok).toBe(true)
  return core.ledger.balance(1, 'ETH').available - before
}

/** Pays the days from `fromDayMs` through `toDayMs` (a catch-up) by `rules`, 1 s after them. */
function payDays(core: ExchangeCore, fromDayMs: number, toDayMs: number, rules: number = 3) {
  return core.apply({
    type: 'accrueStakingRewards',
    timestamp: toDayMs + dayMs + 1_000,
    dayMs: toDayMs,
    ...(fromDayMs === toDayMs ? {} : { fromDayMs }),
    yieldPpm,
    rules: rules as 3,
  })
}

describe('staking rewards on the least amount held since the last payout', () => {
  it('pays nothing for funds staked a second before midnight and unstaked after the payout', () => {
    const core = coreWithEth(1_000)
    move(core, 'stake', 1_000, day0 + dayMs - 1_000)
    expect(payDay(core, day0)).toBe(0n)
    move(core, 'unstake', 1_000, day0 + dayMs + 2_000)
    expect(payDay(core, day0 + dayMs)).toBe(0n)
    expect(core.ledger.balance(1, 'ETH').available).toBe(eth(1_000))
    core.ledger.checkInvariant()
  })

  it('pays a day on what stayed staked all of it, then in full from the next day on', () => {
    const core = coreWithEth(1_000)
    move(core, 'stake', 100, day0 + 1_000)
    expect(payDay(core, day0)).toBe(0n) // staked during the day
    expect(payDay(core, day0 + dayMs)).toBe(daily(100)) // held all day
    // Day 2: 60 unstaked, then 500 staked: only the 40 held throughout earn.
    move(core, 'unstake', 60, day0 + 2 * dayMs + 3_600_000)
    move(core, 'stake', 500, day0 + 2 * dayMs + 7_200_000)
    expect(payDay(core, day0 + 2 * dayMs)).toBe(daily(40))
    expect(payDay(core, day0 + 3 * dayMs)).toBe(daily(540))
    // Everything unstaked and staked again within a day: that day pays nothing.
    move(core, 'unstake', 540, day0 + 4 * dayMs + 1_000)
    move(core, 'stake', 540, day0 + 4 * dayMs + 2_000)
    expect(payDay(core, day0 + 4 * dayMs)).toBe(0n)
    expect(payDay(core, day0 + 5 * dayMs)).toBe(daily(540))
    core.ledger.checkInvariant()
  })

  it('keeps the least amount held in the snapshot', () => {
    const core = coreWithEth(1_000)
    move(core, 'stake', 100, day0 + 1_000)
    expect(payDay(core, day0)).toBe(0n)
    move(core, 'unstake', 70, day0 + dayMs + 1_000)
    move(core, 'stake', 200, day0 + dayMs + 2_000)
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(core.snapshot())))
    expect(payDay(restored, day0 + dayMs)).toBe(daily(30))
    expect(payDay(core, day0 + dayMs)).toBe(daily(30))
    // A snapshot of before the rule (no least amounts) pays on what is staked, as it did.
    const older = core.snapshot()
    delete older.staking?.lows
    expect(payDay(new ExchangeCore(JSON.parse(JSON.stringify(older))), day0 + 2 * dayMs)).toBe(
      daily(230),
    )
  })

  it('replays a payout journaled before the rule as it was paid, on what was staked then', () => {
    const core = coreWithEth(1_000)
    move(core, 'stake', 1_000, day0 + dayMs - 1_000)
    // As the older build journaled it: no rules, a whole day paid on the 1,000 just staked.
    expect(payDay(core, day0, 'none')).toBe(daily(1_000))
    move(core, 'unstake', 1_000, day0 + dayMs + 2_000)
    // A withdrawal of everything, the reward included, that the older build accepted.
    const withdrawn = core.apply({
      type: 'withdraw',
      timestamp: day0 + dayMs + 3_000,
      accountId: 1,
      asset: 'ETH',
      amount: (eth(1_000) + daily(1_000)).toString(),
      reference: 'w1',
      address: '0x0000000000000000000000000000000000000001',
    })
    expect(withdrawn.ok).toBe(true)
    // The next payout, journaled now, pays nothing: nothing was held through the day.
    expect(payDay(core, day0 + dayMs)).toBe(0n)
  })
})

/** A core whose `amount` of ETH was staked on day 0 and paid nothing for it: day 1 holds it all. */
function stakedOnDay0(amount: number): ExchangeCore {
  const core = coreWithEth(1_000)
  expect(payDay(core, day0 - dayMs)).toBe(0n)
  move(core, 'stake', amount, day0 + 5_000)
  expect(payDay(core, day0)).toBe(0n)
  return core
}

describe('staking changes made between midnight and the payout, in the minute after it', () => {
  it('count for the next day only: a stake does not earn for the day paid, nor for the day it was made in', () => {
    const core = coreWithEth(1_000)
    expect(payDay(core, day0 - dayMs)).toBe(0n)
    // Staked 10 s after midnight of day 1, before the payout of day 0 (40 s after it).
    move(core, 'stake', 1_000, day0 + dayMs + 10_000)
    expect(payDay(core, day0, 3, 40_000)).toBe(0n)
    expect(payDay(core, day0 + dayMs, 3, 40_000)).toBe(0n) // its first 10 s were not held
    expect(payDay(core, day0 + 2 * dayMs, 3, 40_000)).toBe(daily(1_000))
    core.ledger.checkInvariant()
  })

  it('an unstake after midnight leaves the day paid its reward on what was held all of it', () => {
    const core = stakedOnDay0(600)
    move(core, 'unstake', 500, day0 + 2 * dayMs + 10_000)
    move(core, 'stake', 300, day0 + 2 * dayMs + 20_000)
    expect(payDay(core, day0 + dayMs, 3, 40_000)).toBe(daily(600)) // day 1 held 600 throughout
    expect(payDay(core, day0 + 2 * dayMs, 3, 40_000)).toBe(daily(100)) // day 2 held 100 at least
    expect(payDay(core, day0 + 3 * dayMs, 3, 40_000)).toBe(daily(400))
  })

  it('an unstake of everything after midnight leaves the day paid its reward, as one of nearly everything does', () => {
    const paidOn = (unstaked: number) => {
      const core = stakedOnDay0(1_000)
      move(core, 'unstake', unstaked, day0 + 2 * dayMs + 10_000)
      const paid = payDay(core, day0 + dayMs, 3, 40_000) // day 1 held 1,000 all of it
      expect(payDay(core, day0 + 2 * dayMs, 3, 40_000)).toBe(daily(1_000 - unstaked))
      core.ledger.checkInvariant()
      return paid
    }
    expect(paidOn(999)).toBe(daily(1_000))
    expect(paidOn(1_000)).toBe(daily(1_000))
  })

  it('are kept apart in the snapshot, and a payout journaled under rules 2 pays as it did', () => {
    const core = stakedOnDay0(600)
    move(core, 'unstake', 500, day0 + 2 * dayMs + 10_000)
    const snapshot = JSON.stringify(core.snapshot())
    expect(payDay(new ExchangeCore(JSON.parse(snapshot)), day0 + dayMs, 3, 40_000)).toBe(daily(600))
    // Rules 2 counted the unstake for the day paid.
    expect(payDay(new ExchangeCore(JSON.parse(snapshot)), day0 + dayMs, 2, 40_000)).toBe(daily(100))
    // A catch-up payout (more than one day) counts every change since the last payout.
    const restored = new ExchangeCore(JSON.parse(snapshot))
    expect(payDays(restored, day0 + dayMs, day0 + 2 * dayMs).ok).toBe(true)
    expect(
      restored
        .stakingRewardsOf(1)
        .slice(0, 2)
        .map((reward) => BigInt(reward.amount)),
    ).toEqual([daily(100), daily(100)])
    // Unknown rules are refused.
    expect(payDays(core, day0 + dayMs, day0 + dayMs, 4)).toMatchObject({
      ok: false,
      errorCode: 205,
    })
  })
})

describe('staking days missed (the exchange stopped over midnights, a payout lost to a crash)', () => {
  it('are each paid by the next payout, on the least held since the previous one', () => {
    const core = coreWithEth(1_000)
    move(core, 'stake', 100, day0 + 1_000)
    expect(payDay(core, day0)).toBe(0n) // staked during the day
    // 50 unstaked on day 1; days 1 to 3 missed; paid together after day 3.
    move(core, 'unstake', 50, day0 + dayMs + 5_000)
    const before = core.ledger.balance(1, 'ETH').available
    expect(payDays(core, day0 + dayMs, day0 + 3 * dayMs).ok).toBe(true)
    expect(core.ledger.balance(1, 'ETH').available - before).toBe(3n * daily(50))
    expect(core.stakingRewardsOf(1).map((reward) => reward.dayMs)).toEqual([
      day0 + 3 * dayMs,
      day0 + 2 * dayMs,
      day0 + dayMs,
    ])
    // None of them again, nor a span reaching back before the last day paid, nor over a year.
    const again = (fromDayMs: number, toDayMs: number) => payDays(core, fromDayMs, toDayMs).ok
    expect(again(day0 + 3 * dayMs, day0 + 4 * dayMs)).toBe(false)
    expect(again(day0 + 5 * dayMs, day0 + (5 + 366) * dayMs)).toBe(false)
    expect(again(day0 + 4 * dayMs, day0 + 5 * dayMs)).toBe(true)
    core.ledger.checkInvariant()
  })
})
