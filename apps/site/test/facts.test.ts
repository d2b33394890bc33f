import { describe, expect, it } from 'vitest'
import { factValues, fillTokens, productFacts } from '../src/lib/facts.ts'

describe('marketing figures', () => {
  it('are computed from the product’s own data where it can', () => {
    const facts = productFacts()
    expect(facts.assetCount).toBeGreaterThanOrEqual(190)
    expect(facts.maxTradingFeePercent).toBe(0.25)
    expect(facts.paymentMethodCount).toBe(8)
    expect(facts.maxStakingYieldPercent).toBeLessThanOrEqual(15)
    expect(facts.maxStakingYieldPercent).toBeGreaterThan(5)
  })

  it('fill content tokens in the page language', () => {
    expect(fillTokens('fees of at most {{maxTradingFee}}', 'de')).toMatch(/0,25\s%/)
    expect(fillTokens('{{reviewCount}} reviews', 'nl')).toBe('12.500 reviews')
    expect(factValues('en').companyName).toBe('Polder Exchange B.V.')
  })

  it('refuse an unknown token rather than print it', () => {
    expect(() => fillTokens('{{nope}}', 'en')).toThrow(/unknown content token/)
  })
})

describe('MiCA sustainability indicator', () => {
  it('classes consensus mechanisms by energy use', async () => {
    const { energyClass } = await import('../src/lib/views.ts')
    expect(energyClass('Proof of work (SHA-256)')).toBe('high')
    expect(energyClass('Tree-Graph proof of work with proof-of-stake finality')).toBe('high')
    expect(energyClass('Nominated proof of stake (BABE, GRANDPA)')).toBe('low')
    expect(energyClass('Layer-2 rollup settled on Ethereum')).toBe('inherited')
    expect(energyClass('')).toBe('notApplicable')
  })
})
