import { describe, expect, it } from 'vitest'
import {
  accountLimits,
  brandFacts,
  canonicalDecimalPattern,
  compareDecimals,
  paymentMethod,
  paymentMethods,
} from '../src/index.ts'

describe('payment methods', () => {
  it('are the 8 of the marketing, with unique ids, including instant euro bank transfers', () => {
    expect(paymentMethods).toHaveLength(8)
    expect(new Set(paymentMethods.map((method) => method.id)).size).toBe(8)
    expect(paymentMethods.some((method) => method.instantBankTransfer)).toBe(true)
    expect(paymentMethod('ideal')?.name).toBe('iDEAL')
    expect(paymentMethod('nope')).toBeUndefined()
  })

  it('have canonical amounts with min ≤ max ≤ daily limit and a fee below 5%', () => {
    for (const method of paymentMethods) {
      for (const amount of [
        method.feeFixedEur,
        method.depositMinEur,
        method.depositMaxEur,
        method.dailyLimitEur,
      ])
        expect(amount, method.id).toMatch(canonicalDecimalPattern)
      expect(compareDecimals(method.depositMinEur, method.depositMaxEur), method.id).toBeLessThan(0)
      expect(
        compareDecimals(method.depositMaxEur, method.dailyLimitEur),
        method.id,
      ).toBeLessThanOrEqual(0)
      expect(method.feePpm).toBeGreaterThanOrEqual(0)
      expect(method.feePpm).toBeLessThan(50_000)
    }
  })

  it('lets euros out by bank transfer only', () => {
    expect(
      paymentMethods.filter((method) => method.withdrawals).map((method) => method.id),
    ).toEqual(['sepa-instant', 'sepa'])
  })
})

describe('account limits', () => {
  it('grow with the level', () => {
    expect(accountLimits.map((limits) => limits.level)).toEqual(['verified', 'plus', 'business'])
    for (let i = 1; i < accountLimits.length; i++) {
      expect(
        compareDecimals(accountLimits[i - 1]!.depositDailyEur, accountLimits[i]!.depositDailyEur),
      ).toBeLessThan(0)
      expect(
        compareDecimals(
          accountLimits[i - 1]!.withdrawalDailyEur,
          accountLimits[i]!.withdrawalDailyEur,
        ),
      ).toBeLessThan(0)
    }
  })
})

describe('brand facts', () => {
  it('state the marketing facts the product cannot compute', () => {
    expect(brandFacts.launchYear).toBe(2018)
    expect(brandFacts.rating).toEqual({ score: 8.4, outOf: 10, reviewsMin: 12_500 })
    expect(brandFacts.usersMin).toBe(1_000_000)
  })
})
