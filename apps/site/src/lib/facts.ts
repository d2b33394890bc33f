// Marketing figures. Those the product can compute come from its own data (catalogue, fee tiers,
// payment methods, savings-plan limits); the business facts come from the one brand-facts file.
// Pages and content never type these numbers; they read them here.

import {
  accountLimits,
  assets,
  brandFacts,
  compareDecimals,
  feeTiers,
  minOrderInQuoteAsset,
  paymentMethods,
  savingsPlanLimits,
} from '@polder/catalogue'
import { formatEurInText, formatNumber, formatPercent, type Locale } from '@polder/i18n'
import { assetPageSlugs } from './routes.ts'

export type ProductFacts = {
  assetCount: number
  /** Highest trading fee in percent (the default tier's taker fee). */
  maxTradingFeePercent: number
  paymentMethodCount: number
  /** Highest staking yield in percent a year. */
  maxStakingYieldPercent: number
  /** What a business account may move a day (the lower of its deposit and withdrawal limits), EUR. */
  businessDailyLimitEur: string
}

export function productFacts(): ProductFacts {
  const fees = feeTiers.flatMap((tier) => [tier.makerFeePpm, tier.takerFeePpm])
  const yields = assets
    .filter((asset) => asset.staking?.eligible === true)
    .map((asset) => Number(asset.staking?.yieldPercentPerYear ?? '0'))
  const business = accountLimits.find((limits) => limits.level === 'business')
  if (business === undefined) throw new Error('the catalogue has no business account limits')
  return {
    assetCount: assetPageSlugs.length,
    maxTradingFeePercent: Math.max(...fees) / 10_000,
    paymentMethodCount: paymentMethods.length,
    maxStakingYieldPercent: Math.max(...yields),
    businessDailyLimitEur: [business.depositDailyEur, business.withdrawalDailyEur].sort(
      compareDecimals,
    )[0]!,
  }
}

/** Values for ICU placeholders and {{token}}s, formatted for a locale where they are text. */
export function factValues(locale: Locale): Record<string, string | number> {
  const facts = productFacts()
  const address = brandFacts.address
  return {
    assetCount: facts.assetCount,
    maxTradingFee: formatPercent(locale, facts.maxTradingFeePercent),
    paymentMethodCount: facts.paymentMethodCount,
    maxStakingYield: formatPercent(locale, facts.maxStakingYieldPercent),
    /** The smallest order of every market, e.g. "5 euros". */
    minOrder: formatEurInText(locale, minOrderInQuoteAsset),
    businessDailyLimit: formatEurInText(locale, facts.businessDailyLimitEur),
    /** The smallest and largest savings-plan purchase, e.g. "10 euros", "10,000 euros". */
    savingsMin: formatEurInText(locale, savingsPlanLimits.amountMinEur),
    savingsMax: formatEurInText(locale, savingsPlanLimits.amountMaxEur),
    /** For ICU selects: `{mobileApp, select, yes {…} other {…}}`. */
    mobileApp: brandFacts.mobileApp ? 'yes' : 'no',
    users: brandFacts.usersMin,
    launchYear: String(brandFacts.launchYear),
    rating: brandFacts.rating.score,
    outOf: brandFacts.rating.outOf,
    reviews: brandFacts.rating.reviewsMin,
    reviewCount: formatNumber(locale, brandFacts.rating.reviewsMin),
    companyName: brandFacts.companyName,
    predecessorBrand: brandFacts.predecessorBrand.name,
    supportEmail: brandFacts.emails.support,
    securityEmail: brandFacts.emails.security,
    complaintsEmail: brandFacts.emails.complaints,
    pressEmail: brandFacts.emails.press,
    address: `${address.street}, ${address.postcode} ${address.city}`,
    kvk: brandFacts.registrations.chamberOfCommerce.number,
    vatNumber: brandFacts.vatNumber,
    centralBank: brandFacts.registrations.centralBank.name,
    chamber: brandFacts.registrations.chamberOfCommerce.name,
  }
}

/** Replace {{token}}s in content; an unknown token is an error, never shown to a reader. */
export function fillTokens(text: string, locale: Locale): string {
  const values = factValues(locale)
  return text.replace(/\{\{(\w+)\}\}/g, (_match, name: string) => {
    const value = values[name]
    if (value === undefined) throw new Error(`unknown content token {{${name}}}`)
    return typeof value === 'number' ? formatNumber(locale, value) : value
  })
}
