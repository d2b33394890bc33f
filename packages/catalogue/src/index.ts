// @polder/catalogue: the asset and market catalogue of Polder as data in the repository, the one
// source of truth for the exchange server, the trading app and the public site. No I/O.

import { assetData } from './assets.ts'
import { assertValidCatalogue } from './catalogue.ts'
import { deriveMarkets, marketOverrides } from './markets.ts'
import { networks as networkData } from './networks.ts'
import type { Asset, Market, Network } from './schema.ts'

export { supplyAsOf } from './asset-data/supply.ts'
export { type BrandFacts, brandFacts } from './brandFacts.ts'
export { assertValidCatalogue, type Catalogue, catalogueIssues } from './catalogue.ts'
export {
  canonicalDecimalPattern,
  compareDecimals,
  decimalsOf,
  fromUnits,
  toUnits,
} from './decimal.ts'
export { CatalogueError } from './errors.ts'
export { type FeeTier, feeTier, feeTierForVolume, feeTiers, ppmToFraction } from './feeTiers.ts'
export {
  deriveMarket,
  deriveMarkets,
  feeCategoryDefault,
  fitsEngineBounds,
  type MarketIntegerBounds,
  type MarketOverride,
  marketIntegerBounds,
  marketOverrides,
  maxOpenOrdersDefault,
  maxOrderInQuoteAssetSteps,
  maxPriceMultiple,
  maxPriceMultipleMin,
  minOrderInQuoteAsset,
  notionalDecimals,
  pricePrecision,
  quoteAsset,
  safeIntegerMax,
} from './markets.ts'
export {
  type AccountLevel,
  type AccountLimits,
  accountLimits,
  type PaymentMethod,
  type PaymentMethodId,
  paymentMethod,
  paymentMethods,
} from './payments.ts'
export { type SavingsPlanLimits, savingsPlanLimits } from './savingsPlanLimits.ts'
export {
  type Asset,
  type AssetCategory,
  asset as assetSchema,
  assetCategories,
  assetCategory,
  assetDecimalsMax,
  assetSlug,
  assetSymbol,
  type ConsensusFamily,
  consensusFamily,
  decimalString,
  descriptionLengthMax,
  type Market,
  type MarketStatus,
  market as marketSchema,
  marketStatus,
  type Network,
  network as networkSchema,
  type OrderType,
  orderType,
  orderTypes,
  positiveDecimalString,
  type Staking,
  type Supply,
  type Sustainability,
  type SustainabilityMethod,
  staking as stakingSchema,
  stakingYieldPercentPerYearMax,
  supply as supplySchema,
  sustainability as sustainabilitySchema,
  sustainabilityMethods,
  type TransferStatus,
  transferStatus,
  volatilityPercentPerDayMax,
} from './schema.ts'
export { depositFee, type WireAsset, wireAsset } from './wire.ts'

/** Every asset, EUR included, in slug order. Validated and frozen at load. */
export const assets: readonly Asset[] = assetData
/** Every network an asset uses, with its consensus mechanism. */
export const networks: readonly Network[] = networkData
/** One EUR market per crypto-asset, in the assets' order (delisted assets' markets are halted). */
export const markets: readonly Market[] = deriveMarkets(assets, marketOverrides)

assertValidCatalogue({ assets, markets, networks })
deepFreeze([assets, markets, networks])

/** The crypto-assets (every asset but EUR): the site's asset pages, the simulator's markets. */
export const cryptoAssets: readonly Asset[] = assets.filter((value) => value.category !== 'fiat')

const assetsBySymbol = new Map(assets.map((value) => [value.symbol, value]))
const assetsBySlug = new Map(assets.map((value) => [value.slug, value]))
const marketsById = new Map(markets.map((value) => [value.market, value]))
const networksByName = new Map(networks.map((value) => [value.name, value]))

export function assetBySymbol(symbol: string): Asset | undefined {
  return assetsBySymbol.get(symbol)
}

export function assetBySlug(slug: string): Asset | undefined {
  return assetsBySlug.get(slug)
}

/** By market id, e.g. 'BTC-EUR'. */
export function marketById(id: string): Market | undefined {
  return marketsById.get(id)
}

export function networkByName(name: string): Network | undefined {
  return networksByName.get(name)
}

/** One network an asset lives on, and whether the asset is a token that the network hosts. */
export interface AssetNetwork {
  readonly network: Network
  /**
   * True when the asset is not the network's own coin: a token inherits the network's consensus
   * mechanism and its sustainability figures (MiCA asks for them per crypto-asset).
   */
  readonly hostedToken: boolean
}

/** The networks of an asset, in its own order, each with its host relation. */
export function assetNetworks(asset: Asset): AssetNetwork[] {
  return asset.networks.map((name) => {
    const network = networksByName.get(name)
    // assertValidCatalogue has checked every network name of the catalogue's own assets.
    if (network === undefined) throw new RangeError(`asset ${asset.slug}: unknown network ${name}`)
    return { network, hostedToken: !(network.nativeAssets ?? []).includes(asset.symbol) }
  })
}

/** Shared by every importer: nobody may change the catalogue at run time. */
function deepFreeze(value: unknown): void {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return
  Object.freeze(value)
  for (const child of Object.values(value)) deepFreeze(child)
}
