import { z } from 'zod'
import {
  assetSymbol,
  candleInterval,
  decimalString,
  idString,
  marketId,
  nonNegativeDecimalString,
  positiveDecimalString,
  side,
  timestampMs,
  uuid,
} from '../primitives.ts'
import { candle, priceLevel } from '../rest/marketData.ts'
import { orderEventShape } from '../rest/orders.ts'

// Pushed events (protocol §6.3): `{event, ...fields}` with no `action` or `response` key.

const marketIds = z.array(marketId)

/** Every subscription active on the connection, as sent in `subscribed` and `unsubscribed`. */
export const subscriptions = z.object({
  ticker: marketIds.optional(),
  ticker24h: marketIds.optional(),
  trades: marketIds.optional(),
  /** ccxt creates its empty order books from this list. */
  book: marketIds.optional(),
  candles: z.partialRecord(candleInterval, marketIds).optional(),
  account: z.union([z.array(z.union([marketId, z.literal('*')])), z.literal('*')]).optional(),
})
export type Subscriptions = z.infer<typeof subscriptions>

/** Sent after every subscribe, listing all active subscriptions (not only the new ones). */
export const subscribedEvent = z.object({ event: z.literal('subscribed'), subscriptions })
export type SubscribedEvent = z.infer<typeof subscribedEvent>

/** Sent after every unsubscribe, listing what remains. */
export const unsubscribedEvent = z.object({ event: z.literal('unsubscribed'), subscriptions })
export type UnsubscribedEvent = z.infer<typeof unsubscribedEvent>

/**
 * Changed levels of one market. `nonce` is the previous published nonce + 1 (§6.4); a size of
 * `"0"` deletes the level.
 */
export const bookEvent = z.object({
  event: z.literal('book'),
  market: marketId,
  nonce: z.int().min(0),
  bids: z.array(priceLevel),
  asks: z.array(priceLevel),
  timestamp: timestampMs.optional(),
})
export type BookEvent = z.infer<typeof bookEvent>

/** A public trade; `side` is the taker's side. */
export const tradeEvent = z.object({
  event: z.literal('trade'),
  timestamp: timestampMs,
  market: marketId,
  id: idString,
  amount: positiveDecimalString,
  price: positiveDecimalString,
  side,
  /** Nanoseconds (docs); beyond 2^53, so only checked as a number. */
  timestampNs: z.number().optional(),
})
export type TradeEvent = z.infer<typeof tradeEvent>

/** The updated current candle after a trade. The event name is singular: `candle`. */
export const candleEvent = z.object({
  event: z.literal('candle'),
  market: marketId,
  interval: candleInterval,
  candle: z.array(candle).min(1),
})
export type CandleEvent = z.infer<typeof candleEvent>

/** Best bid, best ask or last price changed; fields may be partial. */
export const tickerEvent = z.object({
  event: z.literal('ticker'),
  market: marketId,
  bestBid: decimalString.nullable().optional(),
  bestBidSize: nonNegativeDecimalString.nullable().optional(),
  bestAsk: decimalString.nullable().optional(),
  bestAskSize: nonNegativeDecimalString.nullable().optional(),
  lastPrice: decimalString.nullable().optional(),
})
export type TickerEvent = z.infer<typeof tickerEvent>

/** One entry of the `ticker24h` event (the fields ccxt reads). */
export const ticker24hEntry = z.object({
  market: marketId,
  open: decimalString.nullable(),
  high: decimalString.nullable(),
  low: decimalString.nullable(),
  last: decimalString.nullable(),
  volume: nonNegativeDecimalString,
  volumeQuote: nonNegativeDecimalString,
  bid: decimalString.nullable(),
  bidSize: nonNegativeDecimalString.nullable(),
  ask: decimalString.nullable(),
  askSize: nonNegativeDecimalString.nullable(),
  timestamp: timestampMs,
})
export type Ticker24hEntry = z.infer<typeof ticker24hEntry>

/** About once a second, the tickers that changed. `data` is always an ARRAY (both clients break on an object). */
export const ticker24hEvent = z.object({
  event: z.literal('ticker24h'),
  data: z.array(ticker24hEntry),
})
export type Ticker24hEvent = z.infer<typeof ticker24hEvent>

/** Your order changed (create, update, fill-driven status change, cancel). */
export const orderEvent = z.object({ event: z.literal('order'), ...orderEventShape })
export type OrderEvent = z.infer<typeof orderEvent>

/** One fill of your order; ccxt's watchMyTrades turns `fillId` into the trade id. */
export const fillEvent = z.object({
  event: z.literal('fill'),
  timestamp: timestampMs,
  market: marketId,
  orderId: uuid,
  clientOrderId: idString.optional(),
  fillId: idString,
  side,
  amount: positiveDecimalString,
  price: positiveDecimalString,
  taker: z.boolean(),
  /** Negative for rebates. */
  fee: decimalString,
  feeCurrency: assetSymbol,
})
export type FillEvent = z.infer<typeof fillEvent>

/** Successful `authenticate`. A failure is an error reply with action "authenticate". */
export const authenticateEvent = z.object({
  event: z.literal('authenticate'),
  authenticated: z.literal(true),
})
export type AuthenticateEvent = z.infer<typeof authenticateEvent>

/** Every pushed event, by name. */
export const wsEventSchemas = {
  subscribed: subscribedEvent,
  unsubscribed: unsubscribedEvent,
  book: bookEvent,
  trade: tradeEvent,
  candle: candleEvent,
  ticker: tickerEvent,
  ticker24h: ticker24hEvent,
  order: orderEvent,
  fill: fillEvent,
  authenticate: authenticateEvent,
} as const

export type WsEventName = keyof typeof wsEventSchemas
export const wsEvents = Object.keys(wsEventSchemas) as WsEventName[]

/** Any pushed event, discriminated by `event`. */
export const wsEvent = z.discriminatedUnion('event', [
  subscribedEvent,
  unsubscribedEvent,
  bookEvent,
  tradeEvent,
  candleEvent,
  tickerEvent,
  ticker24hEvent,
  orderEvent,
  fillEvent,
  authenticateEvent,
])
export type WsEvent = z.infer<typeof wsEvent>
