import { describe, expect, it } from 'vitest'
import {
  canonicalDecimalPattern,
  compareDecimals,
  decimalsOf,
  savingsPlanLimits,
} from '../src/index.ts'

describe('savings-plan limits', () => {
  it('are canonical EUR amounts in whole cents (at most 2 decimals), above zero', () => {
    for (const amount of [savingsPlanLimits.amountMinEur, savingsPlanLimits.amountMaxEur]) {
      expect(amount).toMatch(canonicalDecimalPattern)
      expect(decimalsOf(amount)).toBeLessThanOrEqual(2)
      expect(compareDecimals(amount, '0')).toBe(1)
    }
  })

  it('leave room for a purchase: the minimum is below the maximum', () => {
    expect(compareDecimals(savingsPlanLimits.amountMinEur, savingsPlanLimits.amountMaxEur)).toBe(-1)
  })

  it('cannot be changed at run time', () => {
    expect(Object.isFrozen(savingsPlanLimits)).toBe(true)
  })
})
