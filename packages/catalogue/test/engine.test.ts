import { Engine, EventLog } from '@polder/engine'
import { asset as protocolAsset, market as protocolMarket } from '@polder/protocol'
import { describe, expect, it } from 'vitest'
import {
  assetBySymbol,
  assets,
  fitsEngineBounds,
  type Market,
  marketIntegerBounds,
  markets,
  wireAsset,
} from '../src/index.ts'

// The engine refuses a market unless maxPrice × maxOrderInBaseAsset (in quote units),
// maxOrderInQuoteAsset (in quote units) and maxPrice × 10^6 are safe integers, where quote units
// are 10^-max(priceDecimals + quantityDecimals, notionalDecimals) and priceDecimals is the number
// of decimals of tickSize (engine README "Units"). Computed here on its own, in bigint, and then
// checked against the real engine.

const safeMax = BigInt(Number.MAX_SAFE_INTEGER)

function decimals(text: string): number {
  return text.includes('.') ? text.length - text.indexOf('.') - 1 : 0
}

function units(text: string, scale: number): bigint {
  const [whole = '', fraction = ''] = text.split('.')
  expect(fraction.length).toBeLessThanOrEqual(scale)
  return BigInt(whole + fraction.padEnd(scale, '0'))
}

function ownBounds(market: Market) {
  const priceDecimals = decimals(market.tickSize)
  const quoteDecimals = Math.max(priceDecimals + market.quantityDecimals, market.notionalDecimals)
  const maxPrice = units(market.maxPrice, priceDecimals)
  const maxAmount = units(market.maxOrderInBaseAsset, market.quantityDecimals)
  return {
    quoteDecimals,
    notional:
      maxPrice * maxAmount * 10n ** BigInt(quoteDecimals - priceDecimals - market.quantityDecimals),
    maxQuote: units(market.maxOrderInQuoteAsset, quoteDecimals),
    band: maxPrice * 1_000_000n,
  }
}

describe.each(markets.map((value) => [value.market, value] as const))('%s', (_id, market) => {
  it('keeps every engine product a safe integer (own bigint check)', () => {
    const bounds = ownBounds(market)
    expect(bounds.quoteDecimals).toBeLessThanOrEqual(15)
    expect(bounds.notional).toBeLessThanOrEqual(safeMax)
    expect(bounds.maxQuote).toBeLessThanOrEqual(safeMax)
    expect(bounds.band).toBeLessThanOrEqual(safeMax)
    expect(fitsEngineBounds(market)).toBe(true)
    const library = marketIntegerBounds(market)
    expect([
      library.maxNotionalQuoteUnits,
      library.maxOrderQuoteUnits,
      library.maxPriceTimesPpm,
    ]).toEqual([bounds.notional, bounds.maxQuote, bounds.band])
  })

  it('is a valid protocol §4.4 market object', () => {
    expect(protocolMarket.safeParse(market).error?.issues ?? []).toEqual([])
  })
})

describe('the real engine', () => {
  it('accepts every market with { ok: true }', () => {
    const engine = new Engine({ book: 'fast', sink: new EventLog() })
    const results = markets.map((config) => [
      config.market,
      engine.execute({ type: 'addMarket', timestamp: 0, config }),
    ])
    expect(results.filter(([, result]) => !(result as { ok: boolean }).ok)).toEqual([])
  })

  it('trades the minimum order at the reference price in every trading market', () => {
    const log = new EventLog()
    const engine = new Engine({ book: 'fast', sink: log })
    let orderId = 0
    const failures: unknown[] = []
    for (const config of markets) {
      engine.execute({ type: 'addMarket', timestamp: 0, config })
      const priceDecimals = decimals(config.tickSize)
      const price = Number(units(assetBySymbol(config.base)!.referencePriceEur, priceDecimals))
      const amount = Number(units(config.minOrderInBaseAsset, config.quantityDecimals))
      const place = (accountId: number, side: 'buy' | 'sell') =>
        engine.execute({
          type: 'placeOrder',
          timestamp: 1,
          market: config.market,
          orderId: `order-${++orderId}`,
          accountId,
          side,
          orderType: 'limit',
          amount,
          price,
          makerFeePpm: 1_500,
          takerFeePpm: 2_500,
        })
      const results = [place(1, 'sell'), place(2, 'buy')]
      for (const result of results) {
        const code = result.ok ? undefined : result.errorCode
        // A delisted asset's market is halted: the engine refuses placements with 423.
        const expected = config.status === 'trading' ? undefined : 423
        if (code !== expected) failures.push([config.market, result])
      }
    }
    expect(failures).toEqual([])
    const trades = log.take().filter((event) => event.type === 'trade')
    expect(trades).toHaveLength(markets.filter((value) => value.status === 'trading').length)
  })

  it('refuses a market one step beyond the bounds, as the own check predicts', () => {
    const bitcoin = markets.find((value) => value.market === 'BTC-EUR')!
    const tooLarge = { ...bitcoin, maxOrderInBaseAsset: '1300' }
    expect(fitsEngineBounds(tooLarge)).toBe(false)
    const engine = new Engine({ book: 'fast', sink: new EventLog() })
    expect(() => engine.execute({ type: 'addMarket', timestamp: 0, config: tooLarge })).toThrow(
      /safe/i,
    )
  })
})

describe('the protocol §4.5 asset object', () => {
  it.each(assets.map((value) => [value.symbol, value] as const))('%s', (_symbol, value) => {
    const wire = wireAsset(value)
    expect(protocolAsset.safeParse(wire).error?.issues ?? []).toEqual([])
    expect(Object.keys(wire)).toEqual([
      'symbol',
      'name',
      'decimals',
      'depositFee',
      'depositConfirmations',
      'depositStatus',
      'withdrawalFee',
      'withdrawalMinAmount',
      'withdrawalStatus',
      'networks',
      'message',
    ])
  })
})
