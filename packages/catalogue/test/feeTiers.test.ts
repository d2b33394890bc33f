import { describe, expect, it } from 'vitest'
import { feeTier, feeTierForVolume, feeTiers, ppmToFraction } from '../src/index.ts'

describe('fee tiers', () => {
  it('tier 0 is the spec default: maker 0.15%, taker 0.25%, and no tier charges more than 0.25%', () => {
    expect(feeTier(0)).toMatchObject({ makerFeePpm: 1_500, takerFeePpm: 2_500 })
    expect(Math.max(...feeTiers.map((tier) => tier.takerFeePpm))).toBe(2_500)
  })

  it('fees fall as volume rises, tier by tier', () => {
    for (let index = 1; index < feeTiers.length; index += 1) {
      const [lower, higher] = [feeTiers[index - 1]!, feeTiers[index]!]
      expect(higher.volumeEurMin).toBeGreaterThan(lower.volumeEurMin)
      expect(higher.takerFeePpm).toBeLessThan(lower.takerFeePpm)
      expect(higher.makerFeePpm).toBeLessThanOrEqual(lower.makerFeePpm)
    }
  })

  it.each([
    [0, 0],
    [99_999.99, 0],
    [100_000, 1],
    [9_999_999, 6],
    [50_000_000, 7],
  ])('a 30-day volume of %d EUR reaches tier %d', (volume, tier) => {
    expect(feeTierForVolume(volume).tier).toBe(tier)
  })

  it.each([
    [2_500, '0.0025'],
    [1_500, '0.0015'],
    [0, '0'],
    [-1_000, '-0.001'],
    [1_000_000, '1'],
  ])('%d ppm is the fraction %s', (ppm, fraction) => {
    expect(ppmToFraction(ppm)).toBe(fraction)
  })
})
