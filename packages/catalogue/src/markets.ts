import {
  ceilDiv,
  decimalsOf,
  fromUnits,
  magnitudeOf,
  pow10,
  roundSignificant,
  toUnits,
} from './decimal.ts'
import { CatalogueError } from './errors.ts'
import type { Asset, Market, MarketStatus } from './schema.ts'
import { orderTypes } from './schema.ts'

// One EUR market per crypto-asset, derived from the asset's reference price by the rules below
// (plus a short table of overrides), so that 200 markets follow one policy and a new asset needs
// no hand-written market. The README ("Markets") states the rules with examples.

export const quoteAsset = 'EUR'
/** EUR cents: every fee and notional rounds to a whole cent (engine README "Fees"). */
export const notionalDecimals = 2
export const minOrderInQuoteAsset = '5'
/** Tried in order: the first that leaves maxPrice ≥ 10× the reference price wins. */
export const maxOrderInQuoteAssetSteps = ['1000000', '500000', '250000', '100000'] as const
/** Significant digits of a price at the reference level (the tick is chosen to give them). */
export const priceSignificantDigits = 5
export const pricePrecision = 5
export const priceDecimalsMax = 9
export const quantityDecimalsMax = 8
/** maxPrice aims at 100× the reference price and must not fall below 10×. */
export const maxPriceMultiple = 100n
export const maxPriceMultipleMin = 10n
export const maxOpenOrdersDefault = 100
export const feeCategoryDefault = 'A'

/** Number.MAX_SAFE_INTEGER as a bigint: the engine's integer bound (engine README "Units"). */
export const safeIntegerMax = 2n ** 53n - 1n
/** The engine computes maxPrice × 10^6 for its market-protection band. */
export const ppmScale = 1_000_000n

/** What a market may set differently from the derived rules. */
export interface MarketOverride {
  readonly tickSize?: string
  readonly quantityDecimals?: number
  readonly maxOrderInQuoteAsset?: string
}

/**
 * Per-asset exceptions, keyed by symbol. Dollar stablecoins quote with 4 decimals (0.8612): five
 * significant digits would give a tick of 0.00001 EUR, finer than their price ever moves.
 */
export const marketOverrides: Readonly<Record<string, MarketOverride>> = {
  DAI: { tickSize: '0.0001' },
  USDC: { tickSize: '0.0001' },
  USDT: { tickSize: '0.0001' },
}

/** The engine's integer scales and the three products it requires to be safe integers. */
export interface MarketIntegerBounds {
  readonly priceDecimals: number
  readonly quantityDecimals: number
  /** max(priceDecimals + quantityDecimals, notionalDecimals): the unit of every notional. */
  readonly quoteDecimals: number
  /** maxPrice × maxOrderInBaseAsset, in quote units. */
  readonly maxNotionalQuoteUnits: bigint
  /** maxOrderInQuoteAsset, in quote units. */
  readonly maxOrderQuoteUnits: bigint
  /** maxPrice (price units) × 10^6. */
  readonly maxPriceTimesPpm: bigint
}

export function marketIntegerBounds(market: Market): MarketIntegerBounds {
  const priceDecimals = decimalsOf(market.tickSize)
  const quantityDecimals = market.quantityDecimals
  const quoteDecimals = Math.max(priceDecimals + quantityDecimals, market.notionalDecimals)
  const maxPriceUnits = toUnits(market.maxPrice, priceDecimals)
  const maxBaseUnits = toUnits(market.maxOrderInBaseAsset, quantityDecimals)
  return {
    priceDecimals,
    quantityDecimals,
    quoteDecimals,
    maxNotionalQuoteUnits:
      maxPriceUnits * maxBaseUnits * pow10(quoteDecimals - priceDecimals - quantityDecimals),
    maxOrderQuoteUnits: toUnits(market.maxOrderInQuoteAsset, quoteDecimals),
    maxPriceTimesPpm: maxPriceUnits * ppmScale,
  }
}

/** True when the engine's `addMarket` accepts the market's bounds. */
export function fitsEngineBounds(market: Market): boolean {
  const bounds = marketIntegerBounds(market)
  return (
    bounds.quoteDecimals <= 15 &&
    bounds.maxNotionalQuoteUnits <= safeIntegerMax &&
    bounds.maxOrderQuoteUnits <= safeIntegerMax &&
    bounds.maxPriceTimesPpm <= safeIntegerMax
  )
}

/**
 * The EUR market of `asset`:
 * - tickSize gives the reference price 5 significant digits (at most 9 decimals);
 * - quantityDecimals makes one base unit worth about 0.0001 to 0.001 EUR (at most 8, and at most
 *   the asset's ledger decimals);
 * - minOrderInBaseAsset is worth just over 5 EUR, maxOrderInBaseAsset just over
 *   maxOrderInQuoteAsset, both at the reference price (rounded up to 2 significant digits);
 * - maxPrice is 100× the reference price (2 significant digits), lowered until the engine's
 *   safe-integer bounds hold; if that leaves less than 10×, maxOrderInQuoteAsset steps down.
 * A delisted asset's market stays listed as 'halted' so that its order history keeps a market.
 */
export function deriveMarket(asset: Asset, override: MarketOverride = {}): Market {
  if (asset.category === 'fiat') throw new RangeError(`${asset.symbol} is the quote currency`)
  const price = asset.referencePriceEur
  const magnitude = magnitudeOf(price)
  const quantityDecimals =
    override.quantityDecimals ??
    clamp(magnitude + 4, 0, Math.min(quantityDecimalsMax, asset.decimals))
  const tickSize =
    override.tickSize ??
    fromUnits(1n, clamp(priceSignificantDigits - 1 - magnitude, 0, priceDecimalsMax))
  const priceDecimals = decimalsOf(tickSize)
  const quoteDecimals = Math.max(priceDecimals + quantityDecimals, notionalDecimals)
  const quotePerPriceBase = pow10(quoteDecimals - priceDecimals - quantityDecimals)
  const tickUnits = toUnits(tickSize, priceDecimals)
  const priceUnits = toUnits(price, priceDecimals)
  if (priceUnits % tickUnits !== 0n) {
    throw new RangeError(`${asset.symbol}: reference price ${price} is not on the tick ${tickSize}`)
  }
  const status: MarketStatus =
    asset.depositStatus === 'DELISTED' || asset.withdrawalStatus === 'DELISTED'
      ? 'halted'
      : 'trading'
  const minBaseUnits = baseUnitsWorth(minOrderInQuoteAsset, price, quantityDecimals)
  const steps =
    override.maxOrderInQuoteAsset === undefined
      ? maxOrderInQuoteAssetSteps
      : [override.maxOrderInQuoteAsset]
  for (const maxOrderInQuoteAsset of steps) {
    const maxBaseUnits = baseUnitsWorth(maxOrderInQuoteAsset, price, quantityDecimals)
    const byNotional = safeIntegerMax / (maxBaseUnits * quotePerPriceBase)
    const byPpm = safeIntegerMax / ppmScale
    const target = [priceUnits * maxPriceMultiple, byNotional, byPpm].reduce((a, b) =>
      a < b ? a : b,
    )
    const maxPriceUnits = (roundSignificant(target, 2, 'floor') / tickUnits) * tickUnits
    if (maxPriceUnits < priceUnits * maxPriceMultipleMin) continue
    return {
      market: `${asset.symbol}-${quoteAsset}`,
      status,
      base: asset.symbol,
      quote: quoteAsset,
      pricePrecision,
      tickSize,
      quantityDecimals,
      notionalDecimals,
      minOrderInBaseAsset: fromUnits(minBaseUnits, quantityDecimals),
      maxOrderInBaseAsset: fromUnits(maxBaseUnits, quantityDecimals),
      minOrderInQuoteAsset,
      maxOrderInQuoteAsset,
      maxPrice: fromUnits(maxPriceUnits, priceDecimals),
      orderTypes: [...orderTypes],
      maxOpenOrders: maxOpenOrdersDefault,
      feeCategory: feeCategoryDefault,
    }
  }
  throw new RangeError(
    `${asset.symbol}: no maxOrderInQuoteAsset leaves maxPrice ≥ ${maxPriceMultipleMin}× the reference price within the engine's bounds`,
  )
}

/**
 * Every crypto-asset's market, in the assets' (slug) order. Collects every failure before
 * throwing, so one run of the tests shows all the assets whose data needs fixing.
 */
export function deriveMarkets(
  assets: readonly Asset[],
  overrides: Readonly<Record<string, MarketOverride>> = marketOverrides,
): Market[] {
  const markets: Market[] = []
  const issues: string[] = []
  for (const asset of assets) {
    if (asset.category === 'fiat') continue
    try {
      markets.push(deriveMarket(asset, overrides[asset.symbol]))
    } catch (error) {
      issues.push(`market of ${asset.slug}: ${(error as Error).message}`)
    }
  }
  if (issues.length > 0) throw new CatalogueError(issues)
  return markets
}

/** Base units (10^-quantityDecimals) worth at least `amountEur` at `price`: ≥ 1, 2 significant digits. */
function baseUnitsWorth(amountEur: string, price: string, quantityDecimals: number): bigint {
  const scale = Math.max(decimalsOf(amountEur), decimalsOf(price))
  const units = ceilDiv(toUnits(amountEur, scale) * pow10(quantityDecimals), toUnits(price, scale))
  return units < 1n ? 1n : roundSignificant(units, 2, 'ceil')
}

function clamp(value: number, low: number, high: number): number {
  return Math.min(Math.max(value, low), high)
}
