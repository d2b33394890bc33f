// Euro payment methods and account limits: one table for the exchange (which applies them) and
// the site (which shows them in its fees and limits tables). Amounts are EUR decimal strings;
// percentage fees are parts per million of the amount, so no float ever touches money.

export type PaymentMethodId =
  | 'sepa-instant'
  | 'sepa'
  | 'ideal'
  | 'bancontact'
  | 'card'
  | 'apple-pay'
  | 'google-pay'
  | 'paypal'

export type PaymentMethod = {
  readonly id: PaymentMethodId
  /** Brand or scheme name; the same in every language. */
  readonly name: string
  /** True for instant euro bank transfers (the marketing's "instant euro bank transfers"). */
  readonly instantBankTransfer: boolean
  /** Fixed part of the deposit fee in EUR. */
  readonly feeFixedEur: string
  /** Proportional part of the deposit fee in parts per million of the amount. */
  readonly feePpm: number
  readonly depositMinEur: string
  readonly depositMaxEur: string
  /** Most that may be deposited by this method per rolling 24 hours. */
  readonly dailyLimitEur: string
  /** Whether euro withdrawals may go out by this method. */
  readonly withdrawals: boolean
  /** ISO 3166 countries where it is offered; empty for the whole SEPA area. */
  readonly countries: readonly string[]
}

export const paymentMethods: readonly PaymentMethod[] = [
  {
    id: 'sepa-instant',
    name: 'SEPA Instant',
    instantBankTransfer: true,
    feeFixedEur: '0',
    feePpm: 0,
    depositMinEur: '1',
    depositMaxEur: '100000',
    dailyLimitEur: '100000',
    withdrawals: true,
    countries: [],
  },
  {
    id: 'sepa',
    name: 'SEPA',
    instantBankTransfer: false,
    feeFixedEur: '0',
    feePpm: 0,
    depositMinEur: '1',
    depositMaxEur: '1000000',
    dailyLimitEur: '1000000',
    withdrawals: true,
    countries: [],
  },
  {
    id: 'ideal',
    name: 'iDEAL',
    instantBankTransfer: true,
    feeFixedEur: '0',
    feePpm: 0,
    depositMinEur: '1',
    depositMaxEur: '50000',
    dailyLimitEur: '50000',
    withdrawals: false,
    countries: ['NL'],
  },
  {
    id: 'bancontact',
    name: 'Bancontact',
    instantBankTransfer: true,
    feeFixedEur: '0',
    feePpm: 3_900,
    depositMinEur: '1',
    depositMaxEur: '25000',
    dailyLimitEur: '25000',
    withdrawals: false,
    countries: ['BE'],
  },
  {
    id: 'card',
    name: 'Visa / Mastercard',
    instantBankTransfer: false,
    feeFixedEur: '0',
    feePpm: 17_500,
    depositMinEur: '10',
    depositMaxEur: '5000',
    dailyLimitEur: '10000',
    withdrawals: false,
    countries: [],
  },
  {
    id: 'apple-pay',
    name: 'Apple Pay',
    instantBankTransfer: false,
    feeFixedEur: '0',
    feePpm: 17_500,
    depositMinEur: '10',
    depositMaxEur: '5000',
    dailyLimitEur: '10000',
    withdrawals: false,
    countries: [],
  },
  {
    id: 'google-pay',
    name: 'Google Pay',
    instantBankTransfer: false,
    feeFixedEur: '0',
    feePpm: 17_500,
    depositMinEur: '10',
    depositMaxEur: '5000',
    dailyLimitEur: '10000',
    withdrawals: false,
    countries: [],
  },
  {
    id: 'paypal',
    name: 'PayPal',
    instantBankTransfer: false,
    feeFixedEur: '0',
    feePpm: 19_000,
    depositMinEur: '10',
    depositMaxEur: '2500',
    dailyLimitEur: '5000',
    withdrawals: false,
    countries: [],
  },
]

export function paymentMethod(id: string): PaymentMethod | undefined {
  return paymentMethods.find((method) => method.id === id)
}

export type AccountLevel = 'verified' | 'plus' | 'business'

/** Transfer limits per verification level, in EUR (crypto valued at the last price) per rolling
 * 24 hours. New accounts are `verified`; per-order limits are the markets' own (min 5 EUR). */
export type AccountLimits = {
  readonly level: AccountLevel
  readonly depositDailyEur: string
  readonly withdrawalDailyEur: string
  readonly cryptoWithdrawalDailyEur: string
}

export const accountLimits: readonly AccountLimits[] = [
  {
    level: 'verified',
    depositDailyEur: '100000',
    withdrawalDailyEur: '100000',
    cryptoWithdrawalDailyEur: '100000',
  },
  {
    level: 'plus',
    depositDailyEur: '1000000',
    withdrawalDailyEur: '1000000',
    cryptoWithdrawalDailyEur: '1000000',
  },
  {
    level: 'business',
    depositDailyEur: '5000000',
    withdrawalDailyEur: '5000000',
    cryptoWithdrawalDailyEur: '5000000',
  },
]
