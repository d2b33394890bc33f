// The amount of one savings-plan purchase: the exchange refuses a plan outside these limits
// (spec §7, errors 212 and 210) and lists them per eligible asset; the site states them in its
// texts. Amounts are EUR decimal strings with at most 2 decimals (the exchange counts cents).

export type SavingsPlanLimits = {
  /** Smallest amount of one purchase, EUR. */
  readonly amountMinEur: string
  /** Largest amount of one purchase, EUR. */
  readonly amountMaxEur: string
}

export const savingsPlanLimits: SavingsPlanLimits = Object.freeze({
  amountMinEur: '10',
  amountMaxEur: '10000',
})
