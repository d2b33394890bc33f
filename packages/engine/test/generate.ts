import type {
  Command,
  MarketConfig,
  OrderType,
  SelfTradePrevention,
  TimeInForce,
  TriggerReference,
} from '../src/index.ts'

/** Markets of the random streams: a tight protection band and few open orders so that market
 * protection and error 235 happen; the second market has finer scales. */
export const randomMarkets: readonly MarketConfig[] = [
  {
    market: 'RND-EUR',
    base: 'RND',
    quote: 'EUR',
    tickSize: '1',
    quantityDecimals: 0,
    notionalDecimals: 2,
    pricePrecision: 4,
    minOrderInBaseAsset: '1',
    maxOrderInBaseAsset: '100000',
    minOrderInQuoteAsset: '0',
    maxOrderInQuoteAsset: '100000000',
    maxPrice: '100000',
    maxOpenOrders: 25,
    marketProtectionPpm: 20_000,
  },
  {
    market: 'ALT-USDC',
    base: 'ALT',
    quote: 'USDC',
    tickSize: '0.05',
    quantityDecimals: 3,
    notionalDecimals: 2,
    minOrderInBaseAsset: '0.001',
    maxOrderInBaseAsset: '100000',
    minOrderInQuoteAsset: '0.01',
    maxOrderInQuoteAsset: '100000000',
    maxPrice: '100000',
    maxOpenOrders: 25,
  },
]

/** A source of small random integers: a seeded PRNG or a fast-check array of draws. */
export interface Draw {
  /** An integer in [0, bound). */
  int(bound: number): number
}

/** mulberry32: tiny, seedable, good enough to drive test streams. */
export function seeded(seed: number): Draw {
  let state = seed >>> 0
  return {
    int(bound) {
      state = (state + 0x6d2b79f5) >>> 0
      let t = state
      t = Math.imul(t ^ (t >>> 15), t | 1)
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
      const unit = ((t ^ (t >>> 14)) >>> 0) / 4294967296
      return Math.floor(unit * bound)
    },
  }
}

/**
 * Replays a list of draws (from fast-check), then continues with a PRNG seeded from them, so a
 * short list still drives a long, varied stream and shrinking still simplifies its start.
 */
export function fromDraws(draws: readonly number[]): Draw {
  let index = 0
  let seed = draws.length
  for (const value of draws) seed = (Math.imul(seed, 31) + value) | 0
  const rest = seeded(seed)
  return {
    int(bound) {
      if (index < draws.length) return (draws[index++] as number) % bound
      return rest.int(bound)
    },
  }
}

const stpModes: readonly SelfTradePrevention[] = [
  'decrementAndCancel',
  'cancelOldest',
  'cancelNewest',
  'cancelBoth',
]
const references: readonly TriggerReference[] = ['lastTrade', 'bestBid', 'bestAsk', 'midPrice']
const stopTypes: readonly OrderType[] = [
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
]
const makerFees = [1_000, 0, -200, 1_500, 2_500]
const takerFees = [2_500, 0, 1_000, 3_333]

function pick<T>(draw: Draw, values: readonly T[]): T {
  return values[draw.int(values.length)] as T
}

/**
 * Generates random commands over both random markets: every order type, time in force,
 * post-only, stops with every reference, updates, cancels, cancel-all, flushes, status changes,
 * and every self-trade mode (four accounts, so self-trades are frequent).
 */
export class CommandGenerator {
  private readonly draw: Draw
  private timestamp = 1_700_000_000_000
  private nextId = 0
  private readonly ids: {
    market: string
    orderId: string
    clientOrderId?: string
    accountId: number
  }[] = []
  private readonly mids = [1_000, 2_000]

  constructor(draw: Draw) {
    this.draw = draw
  }

  next(): Command {
    const draw = this.draw
    this.timestamp += draw.int(3)
    const timestamp = this.timestamp
    const marketIndex = draw.int(10) < 8 ? 0 : 1
    const config = randomMarkets[marketIndex] as MarketConfig
    const market = config.market
    // Prices in ticks around a drifting mid; the second market's tick is 5 price units.
    const tick = marketIndex === 0 ? 1 : 5
    const mid = this.mids[marketIndex] as number
    this.mids[marketIndex] = Math.max(100, mid + draw.int(3) - 1)
    const priceNear = (spread: number) =>
      (mid + draw.int(2 * spread + 1) - spread) * tick + (draw.int(60) === 0 ? 1 : 0)
    const quote = () => this.quote(marketIndex, mid)
    const amount = () => (marketIndex === 0 ? 1 + draw.int(20) : 1 + draw.int(20_000))
    const accountId = 1 + draw.int(4)
    const roll = draw.int(100)
    const known =
      this.ids.length > 0
        ? this.ids[this.ids.length - 1 - draw.int(Math.min(60, this.ids.length))]
        : undefined
    if (roll < 45) {
      // Mostly passive (builds depth), sometimes crossing.
      const side = draw.int(2) === 0 ? 'buy' : 'sell'
      const passive = draw.int(10) < 7
      const offset = passive ? 1 + draw.int(12) : draw.int(7) - 3
      const price =
        (side === 'buy' ? mid - offset : mid + offset) * tick + (draw.int(60) === 0 ? 1 : 0)
      return this.place(market, accountId, timestamp, {
        side,
        orderType: 'limit',
        amount: amount(),
        price,
        tif: pickTif(draw),
        postOnly: draw.int(10) === 0,
      })
    }
    if (roll < 55) {
      const byQuote = draw.int(2) === 0
      return this.place(market, accountId, timestamp, {
        orderType: 'market',
        ...(byQuote ? { amountQuote: quote() } : { amount: amount() }),
        disableMarketProtection: draw.int(10) === 0,
      })
    }
    if (roll < 65) {
      const orderType = pick(draw, stopTypes)
      const limit = orderType.endsWith('Limit')
      const byQuote = !limit && draw.int(3) === 0
      return this.place(market, accountId, timestamp, {
        orderType,
        ...(byQuote ? { amountQuote: quote() } : { amount: amount() }),
        ...(limit
          ? { price: priceNear(10), tif: pickTif(draw), postOnly: draw.int(10) === 0 }
          : {}),
        trigger: priceNear(6),
        reference: pick(draw, references),
      })
    }
    if (roll < 80 && known !== undefined) {
      const byClient = known.clientOrderId !== undefined && draw.int(3) === 0
      return {
        type: 'cancelOrder',
        timestamp,
        market: known.market,
        accountId: draw.int(10) === 0 ? accountId : known.accountId,
        ...(byClient
          ? { clientOrderId: known.clientOrderId as string }
          : { orderId: known.orderId }),
      }
    }
    if (roll < 91 && known !== undefined) {
      const knownTick = known.market === market ? tick : known.market === 'RND-EUR' ? 1 : 5
      const knownMid =
        known.market === 'RND-EUR' ? (this.mids[0] as number) : (this.mids[1] as number)
      const which = draw.int(9)
      const base = {
        type: 'updateOrder' as const,
        timestamp,
        market: known.market,
        accountId: known.accountId,
        orderId: known.orderId,
      }
      switch (which) {
        case 0:
        case 1:
          return { ...base, price: (knownMid + draw.int(17) - 8) * knownTick }
        case 2:
          return { ...base, amount: 1 + draw.int(25) }
        case 3:
          return { ...base, amountRemaining: 1 + draw.int(10) }
        case 4:
          return { ...base, triggerAmount: (knownMid + draw.int(13) - 6) * knownTick }
        case 5:
          return { ...base, selfTradePrevention: pick(draw, stpModes) }
        case 6:
          return { ...base, postOnly: draw.int(2) === 0 }
        case 7:
          return { ...base, amountQuote: this.quote(known.market === 'RND-EUR' ? 0 : 1, knownMid) }
        default:
          return {
            ...base,
            price: (knownMid + draw.int(5) - 2) * knownTick,
            amount: 1 + draw.int(25),
          }
      }
    }
    if (roll < 93 && draw.int(8) === 0) {
      return {
        type: 'cancelOrders',
        timestamp,
        accountId,
        ...(draw.int(2) === 0 ? { market } : {}),
      }
    }
    if (roll < 98) return { type: 'flushBook', timestamp, market }
    if (draw.int(10) === 0) {
      const status = pick(draw, ['halted', 'cancelOnly', 'auction', 'auctionMatching'] as const)
      return { type: 'setMarketStatus', timestamp, market, status }
    }
    return { type: 'setMarketStatus', timestamp, market, status: 'trading' }
  }

  /** An amountQuote worth a few resting orders; now and then not a whole notional unit (429). */
  private quote(marketIndex: number, mid: number): number {
    const draw = this.draw
    if (marketIndex === 0) return (1 + draw.int(30)) * mid * 100 + draw.int(100)
    const raw = (1 + draw.int(20_000)) * mid * 5
    return raw - (raw % 1_000) + 1_000 + (draw.int(40) === 0 ? 1 : 0)
  }

  private place(
    market: string,
    accountId: number,
    timestamp: number,
    fields: {
      side?: 'buy' | 'sell'
      orderType: OrderType
      amount?: number
      amountQuote?: number
      price?: number
      tif?: TimeInForce
      postOnly?: boolean
      trigger?: number
      reference?: TriggerReference
      disableMarketProtection?: boolean
    },
  ): Command {
    const draw = this.draw
    const orderId = `o${++this.nextId}`
    const clientOrderId = draw.int(4) === 0 ? `c${draw.int(50)}` : undefined
    this.ids.push({
      market,
      orderId,
      accountId,
      ...(clientOrderId === undefined ? {} : { clientOrderId }),
    })
    if (this.ids.length > 200) this.ids.splice(0, 100)
    return {
      type: 'placeOrder',
      timestamp,
      market,
      orderId,
      accountId,
      side: fields.side ?? (draw.int(2) === 0 ? 'buy' : 'sell'),
      orderType: fields.orderType,
      makerFeePpm: pick(draw, makerFees),
      takerFeePpm: pick(draw, takerFees),
      // Both fee rules: orders journaled before per-role fees still replay.
      ...(draw.int(4) === 0 ? {} : { feeRules: 2 as const }),
      selfTradePrevention: pick(draw, stpModes),
      ...(clientOrderId === undefined ? {} : { clientOrderId }),
      ...(fields.amount === undefined ? {} : { amount: fields.amount }),
      ...(fields.amountQuote === undefined ? {} : { amountQuote: fields.amountQuote }),
      ...(fields.price === undefined ? {} : { price: fields.price }),
      ...(fields.tif === undefined ? {} : { timeInForce: fields.tif }),
      ...(fields.postOnly ? { postOnly: true } : {}),
      ...(fields.disableMarketProtection ? { disableMarketProtection: true } : {}),
      ...(fields.trigger === undefined
        ? {}
        : {
            triggerAmount: fields.trigger,
            triggerType: 'price' as const,
            triggerReference: fields.reference as TriggerReference,
          }),
    }
  }
}

function pickTif(draw: Draw): TimeInForce {
  const roll = draw.int(10)
  return roll < 7 ? 'GTC' : roll < 9 ? 'IOC' : 'FOK'
}
