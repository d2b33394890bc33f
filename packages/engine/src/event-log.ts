import type { BookDelta, EngineSink, Ticker, Trade } from './engine.ts'
import type { MarketSpec } from './market.ts'
import { type Order, type OrderState, toOrderEvent } from './order.ts'
import type { Side } from './types.ts'

export interface OrderEvent extends OrderState {
  readonly type: 'order'
}

/** One side of a trade, for that order's owner (protocol §6.3 `fill`). */
export interface FillEvent {
  readonly type: 'fill'
  readonly market: string
  readonly orderId: string
  readonly clientOrderId: string | null
  readonly accountId: number
  /** The trade id: the same for both sides and the public trade. */
  readonly fillId: number
  readonly timestamp: number
  readonly side: Side
  readonly price: number
  readonly amount: number
  /** price × amount in quote units. */
  readonly quote: number
  readonly taker: boolean
  /** Quote units; negative for a rebate. */
  readonly fee: number
  readonly feeCurrency: string
}

export interface TradeEvent {
  readonly type: 'trade'
  readonly market: string
  readonly tradeId: number
  readonly timestamp: number
  readonly price: number
  readonly amount: number
  /** The taker's side. */
  readonly side: Side
}

export interface TickerEvent {
  readonly type: 'ticker'
  readonly market: string
  readonly bestBid: number | null
  readonly bestBidSize: number | null
  readonly bestAsk: number | null
  readonly bestAskSize: number | null
  readonly lastPrice: number | null
}

export interface BookEvent extends BookDelta {
  readonly type: 'book'
}

export type EngineEvent = OrderEvent | FillEvent | TradeEvent | TickerEvent | BookEvent

/**
 * A sink that copies every event into plain JSON-serialisable objects, in emission order. A match
 * becomes three events: the maker's fill, the taker's fill, then the public trade.
 */
export class EventLog implements EngineSink {
  readonly events: EngineEvent[] = []

  /** Returns and forgets the events collected so far. */
  take(): EngineEvent[] {
    return this.events.splice(0, this.events.length)
  }

  order(order: Order, market: MarketSpec): void {
    this.events.push(toOrderEvent(order, market.quote))
  }

  trade(trade: Trade, market: MarketSpec): void {
    this.events.push(
      fillOf(trade, trade.maker, false, market),
      fillOf(trade, trade.taker, true, market),
      {
        type: 'trade',
        market: trade.market,
        tradeId: trade.tradeId,
        timestamp: trade.timestamp,
        price: trade.price,
        amount: trade.amount,
        side: trade.takerSide,
      },
    )
  }

  ticker(ticker: Ticker): void {
    const none = (value: number): number | null => (value === 0 ? null : value)
    this.events.push({
      type: 'ticker',
      market: ticker.market,
      bestBid: none(ticker.bestBid),
      bestBidSize: ticker.bestBid === 0 ? null : ticker.bestBidSize,
      bestAsk: none(ticker.bestAsk),
      bestAskSize: ticker.bestAsk === 0 ? null : ticker.bestAskSize,
      lastPrice: none(ticker.lastPrice),
    })
  }

  book(delta: BookDelta): void {
    this.events.push({ type: 'book', ...delta })
  }
}

function fillOf(trade: Trade, order: Order, taker: boolean, market: MarketSpec): FillEvent {
  return {
    type: 'fill',
    market: trade.market,
    orderId: order.orderId,
    clientOrderId: order.clientOrderId,
    accountId: order.accountId,
    fillId: trade.tradeId,
    timestamp: trade.timestamp,
    side: order.side,
    price: trade.price,
    amount: trade.amount,
    quote: trade.quote,
    taker,
    fee: taker ? trade.takerFee : trade.makerFee,
    feeCurrency: market.quote,
  }
}
