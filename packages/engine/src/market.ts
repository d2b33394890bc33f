import { decimalsMax, decimalsOf, parseDecimal, pow10 } from './decimal.ts'
import { EngineConfigError } from './errors.ts'
import type { MarketConfig, MarketStatus } from './types.ts'

/** Default open orders per account and market (protocol §4.4 `maxOpenOrders`). */
export const openOrdersPerMarketMaxDefault = 100
/** Default market protection band: 10% of the best opposite price at arrival. */
export const marketProtectionPpmDefault = 100_000
export const ppmScale = 1_000_000
/** Fee rates beyond ±10% are refused (error 205): a tier table typo must not empty an account. */
export const feePpmMax = 100_000

/**
 * A market in integer form. Scales:
 * - price units: 10^-priceDecimals, priceDecimals = decimals of tickSize;
 * - base units: 10^-quantityDecimals;
 * - quote units: 10^-quoteDecimals, quoteDecimals = max(priceDecimals + quantityDecimals,
 *   notionalDecimals), so price × amount is exact: notional = price × amount × quotePerPriceBase.
 */
export interface MarketSpec {
  readonly market: string
  readonly base: string
  readonly quote: string
  status: MarketStatus
  readonly config: MarketConfig
  readonly priceDecimals: number
  readonly quantityDecimals: number
  readonly notionalDecimals: number
  readonly quoteDecimals: number
  readonly tickUnits: number
  /** Quote units per (price unit × base unit). */
  readonly quotePerPriceBase: number
  /** Quote units per notional unit (10^-notionalDecimals): fees are whole multiples of it. */
  readonly quotePerNotional: number
  readonly pricePrecision: number
  readonly minPrice: number
  readonly maxPrice: number
  readonly minAmount: number
  readonly maxAmount: number
  readonly minQuote: number
  readonly maxQuote: number
  readonly maxOpenOrders: number
  readonly marketProtectionPpm: number
}

const marketStatuses: readonly MarketStatus[] = [
  'trading',
  'halted',
  'auction',
  'auctionMatching',
  'cancelOnly',
]

export function isMarketStatus(value: unknown): value is MarketStatus {
  return marketStatuses.includes(value as MarketStatus)
}

export function marketSpecFromConfig(config: MarketConfig): MarketSpec {
  const fail = (message: string): never => {
    throw new EngineConfigError(`market ${String(config.market)}: ${message}`)
  }
  if (typeof config.market !== 'string' || config.market.length === 0) fail('market id missing')
  if (typeof config.base !== 'string' || config.base.length === 0) fail('base missing')
  if (typeof config.quote !== 'string' || config.quote.length === 0) fail('quote missing')
  const status = config.status ?? 'trading'
  if (!isMarketStatus(status)) fail(`unknown status ${String(status)}`)
  const quantityDecimals = config.quantityDecimals
  const notionalDecimals = config.notionalDecimals
  for (const [name, value] of [
    ['quantityDecimals', quantityDecimals],
    ['notionalDecimals', notionalDecimals],
  ] as const) {
    if (!Number.isInteger(value) || value < 0 || value > decimalsMax) fail(`${name} invalid`)
  }
  let priceDecimals = 0
  try {
    priceDecimals = decimalsOf(config.tickSize)
  } catch {
    fail('tickSize is not a plain decimal')
  }
  const quoteDecimals = Math.max(priceDecimals + quantityDecimals, notionalDecimals)
  if (quoteDecimals > 15) fail('quote scale above 15 decimals')
  const units = (name: string, text: string | undefined, decimals: number): number => {
    if (text === undefined) return fail(`${name} missing`)
    const parsed = parseDecimal(text, decimals)
    if (!parsed.ok) return fail(`${name} ${parsed.reason}`)
    return parsed.units
  }
  const tickUnits = units('tickSize', config.tickSize, priceDecimals)
  if (tickUnits <= 0) fail('tickSize must be > 0')
  const minPrice =
    config.minPrice === undefined ? tickUnits : units('minPrice', config.minPrice, priceDecimals)
  const maxPrice = units('maxPrice', config.maxPrice, priceDecimals)
  const minAmount = units('minOrderInBaseAsset', config.minOrderInBaseAsset, quantityDecimals)
  const maxAmount = units('maxOrderInBaseAsset', config.maxOrderInBaseAsset, quantityDecimals)
  const quotePerNotional = pow10(quoteDecimals - notionalDecimals)
  const minQuote =
    units('minOrderInQuoteAsset', config.minOrderInQuoteAsset, notionalDecimals) * quotePerNotional
  const maxQuote =
    units('maxOrderInQuoteAsset', config.maxOrderInQuoteAsset, notionalDecimals) * quotePerNotional
  if (minPrice <= 0 || minPrice > maxPrice) fail('need 0 < minPrice <= maxPrice')
  if (minPrice % tickUnits !== 0 || maxPrice % tickUnits !== 0) {
    fail('minPrice and maxPrice must be multiples of tickSize')
  }
  if (minAmount <= 0 || minAmount > maxAmount) fail('need 0 < minOrderInBaseAsset <= max')
  if (minQuote < 0 || minQuote > maxQuote) fail('need 0 <= minOrderInQuoteAsset <= max')
  const quotePerPriceBase = pow10(quoteDecimals - priceDecimals - quantityDecimals)
  // The bounds that make number arithmetic exact (README "Units"): every notional of one order is
  // at most maxPrice × maxAmount, and the market-protection band computes maxPrice × ppm.
  const notionalMax = maxPrice * maxAmount * quotePerPriceBase
  if (!Number.isSafeInteger(notionalMax) || !Number.isSafeInteger(maxQuote)) {
    fail('maxPrice × maxOrderInBaseAsset exceeds Number.MAX_SAFE_INTEGER quote units')
  }
  if (!Number.isSafeInteger(maxPrice * ppmScale)) fail('maxPrice × 10^6 is not a safe integer')
  const pricePrecision = config.pricePrecision ?? 0
  if (!Number.isInteger(pricePrecision) || pricePrecision < 0) fail('pricePrecision invalid')
  const maxOpenOrders = config.maxOpenOrders ?? openOrdersPerMarketMaxDefault
  if (!Number.isInteger(maxOpenOrders) || maxOpenOrders < 1 || maxOpenOrders > 1_000_000) {
    fail('maxOpenOrders invalid')
  }
  const marketProtectionPpm = config.marketProtectionPpm ?? marketProtectionPpmDefault
  if (
    !Number.isInteger(marketProtectionPpm) ||
    marketProtectionPpm < 0 ||
    marketProtectionPpm >= ppmScale
  ) {
    fail('marketProtectionPpm must be in 0..999999')
  }
  return {
    market: config.market,
    base: config.base,
    quote: config.quote,
    status,
    config,
    priceDecimals,
    quantityDecimals,
    notionalDecimals,
    quoteDecimals,
    tickUnits,
    quotePerPriceBase,
    quotePerNotional,
    pricePrecision,
    minPrice,
    maxPrice,
    minAmount,
    maxAmount,
    minQuote,
    maxQuote,
    maxOpenOrders,
    marketProtectionPpm,
  }
}
