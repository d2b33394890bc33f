import { describe, expect, it } from 'vitest'
import {
  type Asset,
  assetBySymbol,
  CatalogueError,
  compareDecimals,
  cryptoAssets,
  decimalsOf,
  deriveMarket,
  deriveMarkets,
  fromUnits,
  type Market,
  marketById,
  marketOverrides,
  markets,
  maxOrderInQuoteAssetSteps,
  orderTypes,
  toUnits,
} from '../src/index.ts'

// Exact decimal products for the checks below: a × b as a canonical string.
function times(a: string, b: string): string {
  const decimals = decimalsOf(a) + decimalsOf(b)
  return fromUnits(toUnits(a, decimalsOf(a)) * toUnits(b, decimalsOf(b)), decimals)
}

function significantDigits(text: string): number {
  return text.replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length
}

const pairs: [string, Market, Asset][] = markets.map((value) => [
  value.market,
  value,
  assetBySymbol(value.base)!,
])

describe('one EUR market per crypto-asset', () => {
  it('lists exactly one market per crypto-asset, in the assets order', () => {
    expect(markets.map((value) => value.base)).toEqual(cryptoAssets.map((value) => value.symbol))
    expect(markets.every((value) => value.quote === 'EUR')).toBe(true)
  })

  it('pins the BTC-EUR market', () => {
    expect(marketById('BTC-EUR')).toEqual({
      market: 'BTC-EUR',
      status: 'trading',
      base: 'BTC',
      quote: 'EUR',
      pricePrecision: 5,
      tickSize: '1',
      quantityDecimals: 8,
      notionalDecimals: 2,
      minOrderInBaseAsset: '0.000056',
      maxOrderInBaseAsset: '12',
      minOrderInQuoteAsset: '5',
      maxOrderInQuoteAsset: '1000000',
      maxPrice: '7500000',
      orderTypes: ['market', 'limit', 'stopLoss', 'stopLossLimit', 'takeProfit', 'takeProfitLimit'],
      maxOpenOrders: 100,
      feeCategory: 'A',
    })
  })

  it.each([
    ['ETH-EUR', '0.1', 7],
    ['SOL-EUR', '0.01', 6],
    ['XRP-EUR', '0.0001', 4],
    ['ADA-EUR', '0.00001', 3],
    ['USDC-EUR', '0.0001', 3],
    ['EURC-EUR', '0.0001', 4],
    ['SHIB-EUR', '0.000000001', 0],
    ['PEPE-EUR', '0.000000001', 0],
    ['NEO-EUR', '0.0001', 0],
  ])('%s has tick %s and %i quantity decimals', (id, tickSize, quantityDecimals) => {
    expect(marketById(id)).toMatchObject({ tickSize, quantityDecimals })
  })

  it('derives the same markets on every run', () => {
    expect(deriveMarkets(cryptoAssets)).toEqual(markets)
  })
})

describe.each(pairs)('%s', (_id, market, asset) => {
  const price = asset.referencePriceEur

  it('offers every order type, 100 open orders, fee category A', () => {
    expect(market.orderTypes).toEqual([...orderTypes])
    expect(market.maxOpenOrders).toBe(100)
    expect(market.feeCategory).toBe('A')
    expect(market.pricePrecision).toBe(5)
  })

  it('has a reference price on the tick, with at most 5 significant digits', () => {
    const priceDecimals = decimalsOf(market.tickSize)
    expect(decimalsOf(price)).toBeLessThanOrEqual(priceDecimals)
    expect(toUnits(price, priceDecimals) % toUnits(market.tickSize, priceDecimals)).toBe(0n)
    expect(significantDigits(price)).toBeLessThanOrEqual(5)
  })

  it('quotes about 5 significant digits at the reference price (3 or more for sub-milli-euro coins)', () => {
    const ticksInPrice = toUnits(price, decimalsOf(market.tickSize))
    const digits = ticksInPrice.toString().length
    const floor = compareDecimals(price, '0.001') < 0 ? 3 : 4
    expect(digits).toBeGreaterThanOrEqual(floor)
    expect(digits).toBeLessThanOrEqual(6)
  })

  it('never trades finer than the ledger', () => {
    expect(market.quantityDecimals).toBeLessThanOrEqual(asset.decimals)
  })

  it('asks a minimum order worth 5 to 10 EUR at the reference price', () => {
    const worth = times(market.minOrderInBaseAsset, price)
    expect(compareDecimals(worth, market.minOrderInQuoteAsset)).toBeGreaterThanOrEqual(0)
    expect(compareDecimals(worth, '10')).toBeLessThanOrEqual(0)
    expect(market.minOrderInQuoteAsset).toBe('5')
  })

  it('allows a maximum base order worth at least the maximum quote order at the reference price', () => {
    const worth = times(market.maxOrderInBaseAsset, price)
    expect(compareDecimals(worth, market.maxOrderInQuoteAsset)).toBeGreaterThanOrEqual(0)
    expect(compareDecimals(worth, times(market.maxOrderInQuoteAsset, '1.1'))).toBeLessThanOrEqual(0)
    expect(maxOrderInQuoteAssetSteps).toContain(market.maxOrderInQuoteAsset)
  })

  it('sets maxPrice between 10× and 100× the reference price', () => {
    expect(compareDecimals(market.maxPrice, times(price, '10'))).toBeGreaterThanOrEqual(0)
    expect(compareDecimals(market.maxPrice, times(price, '100'))).toBeLessThanOrEqual(0)
  })
})

describe('derivation rules', () => {
  const base: Asset = { ...assetBySymbol('ETH')! }

  it('applies an override', () => {
    expect(marketOverrides.USDT).toEqual({ tickSize: '0.0001' })
    const market = deriveMarket(base, { tickSize: '0.5', quantityDecimals: 4 })
    expect(market).toMatchObject({ tickSize: '0.5', quantityDecimals: 4 })
    expect(toUnits(market.maxPrice, 1) % 5n).toBe(0n)
  })

  it('steps maxOrderInQuoteAsset down when the engine bounds leave maxPrice below 10×', () => {
    expect(marketById('BTC-EUR')?.maxOrderInQuoteAsset).toBe('1000000')
    expect(marketById('SHIB-EUR')?.maxOrderInQuoteAsset).toBe('500000')
  })

  it('halts the market of a delisted asset', () => {
    const delisted = { ...base, depositStatus: 'DELISTED', withdrawalStatus: 'DELISTED' } as const
    expect(deriveMarket({ ...delisted, message: 'gone' }).status).toBe('halted')
  })

  it('refuses a reference price off the tick, and EUR itself', () => {
    expect(() => deriveMarket(base, { tickSize: '0.7' })).toThrow(/not on the tick/)
    expect(() => deriveMarket(assetBySymbol('EUR')!)).toThrow(/quote currency/)
  })

  it('reports every asset whose market cannot be derived, in one CatalogueError', () => {
    const broken = [
      { ...base, referencePriceEur: '3001' },
      { ...base, symbol: 'ETH2', referencePriceEur: '3002' },
    ]
    const attempt = () => deriveMarkets(broken, { ETH: { tickSize: '2' }, ETH2: { tickSize: '4' } })
    expect(attempt).toThrow(CatalogueError)
    try {
      attempt()
    } catch (error) {
      expect((error as CatalogueError).issues).toHaveLength(2)
    }
  })
})
