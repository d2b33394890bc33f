// Trading fee tiers by 30-day traded volume in EUR: one table for the exchange (which charges
// them) and the site (which shows them). Tier 0 is the spec's default (maker 0.15%, taker 0.25%,
// the marketing's "maximum trading fee 0.25%"). Rates are parts per million of the notional.

export type FeeTier = {
  readonly tier: number
  /** Lowest 30-day volume in EUR that reaches this tier. */
  readonly volumeEurMin: number
  readonly makerFeePpm: number
  readonly takerFeePpm: number
}

export const feeTiers: readonly FeeTier[] = [
  { tier: 0, volumeEurMin: 0, makerFeePpm: 1_500, takerFeePpm: 2_500 },
  { tier: 1, volumeEurMin: 100_000, makerFeePpm: 1_000, takerFeePpm: 2_000 },
  { tier: 2, volumeEurMin: 250_000, makerFeePpm: 800, takerFeePpm: 1_600 },
  { tier: 3, volumeEurMin: 500_000, makerFeePpm: 600, takerFeePpm: 1_200 },
  { tier: 4, volumeEurMin: 1_000_000, makerFeePpm: 500, takerFeePpm: 1_000 },
  { tier: 5, volumeEurMin: 2_500_000, makerFeePpm: 400, takerFeePpm: 800 },
  { tier: 6, volumeEurMin: 5_000_000, makerFeePpm: 200, takerFeePpm: 600 },
  { tier: 7, volumeEurMin: 10_000_000, makerFeePpm: 0, takerFeePpm: 500 },
]

export function feeTier(tier: number): FeeTier {
  const found = feeTiers[tier]
  if (found === undefined) throw new RangeError(`no fee tier ${tier}`)
  return found
}

/** The tier a 30-day volume reaches. */
export function feeTierForVolume(volumeEur: number): FeeTier {
  let reached = feeTiers[0]!
  for (const tier of feeTiers) if (volumeEur >= tier.volumeEurMin) reached = tier
  return reached
}

/** A rate in ppm as the protocol's fraction string: 2500 → "0.0025". */
export function ppmToFraction(ppm: number): string {
  const digits = String(Math.abs(ppm)).padStart(7, '0')
  const text = `${digits.slice(0, -6)}.${digits.slice(-6)}`.replace(/0+$/, '').replace(/\.$/, '')
  return `${ppm < 0 ? '-' : ''}${text}`
}
