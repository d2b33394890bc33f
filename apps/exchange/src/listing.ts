// What the exchange lists, from the shared catalogue (packages/catalogue): every asset with its
// protocol §4.5 fields, and one EUR market each with the engine's market configuration.
import { assetBySymbol, assets, markets, wireAsset } from '@polder/catalogue'
import type { MarketConfig } from '@polder/engine'
import type { ListedAsset, Listing } from './api/exchangeActions.ts'

export function defaultListing(): Listing {
  return {
    assets: assets.map((asset): ListedAsset => {
      const wire = wireAsset(asset)
      return { ...wire, networks: [...wire.networks] }
    }),
    markets: markets.map(
      (market): MarketConfig => ({
        market: market.market,
        base: market.base,
        quote: market.quote,
        status: market.status,
        tickSize: market.tickSize,
        quantityDecimals: market.quantityDecimals,
        notionalDecimals: market.notionalDecimals,
        pricePrecision: market.pricePrecision,
        minOrderInBaseAsset: market.minOrderInBaseAsset,
        maxOrderInBaseAsset: market.maxOrderInBaseAsset,
        minOrderInQuoteAsset: market.minOrderInQuoteAsset,
        maxOrderInQuoteAsset: market.maxOrderInQuoteAsset,
        maxPrice: market.maxPrice,
        maxOpenOrders: market.maxOpenOrders,
      }),
    ),
    simulation: markets.map((market) => {
      const asset = assetBySymbol(market.base)!
      return {
        market: market.market,
        referencePrice: Number(asset.referencePriceEur),
        volatilityPercentPerDay: asset.volatilityPercentPerDay,
      }
    }),
  }
}
