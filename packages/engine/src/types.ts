// Commands in, events out. Every command is a plain JSON object (journal it as is); every
// quantity in a command is an integer count of units (see README "Units"). Decimal strings are
// converted at the edge by wire.ts.

export type Side = 'buy' | 'sell'

export type OrderType =
  | 'limit'
  | 'market'
  | 'stopLoss'
  | 'stopLossLimit'
  | 'takeProfit'
  | 'takeProfitLimit'

export const orderTypes: readonly OrderType[] = [
  'limit',
  'market',
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
]

export type TimeInForce = 'GTC' | 'IOC' | 'FOK'

export type SelfTradePrevention =
  | 'decrementAndCancel'
  | 'cancelOldest'
  | 'cancelNewest'
  | 'cancelBoth'

export type TriggerType = 'price'

export type TriggerReference = 'lastTrade' | 'bestBid' | 'bestAsk' | 'midPrice'

export type MarketStatus = 'trading' | 'halted' | 'auction' | 'auctionMatching' | 'cancelOnly'

export type OrderStatus =
  | 'new'
  | 'awaitingTrigger'
  | 'partiallyFilled'
  | 'filled'
  | 'canceled'
  | 'canceledSelfTradePrevention'
  | 'canceledIOC'
  | 'canceledFOK'
  | 'canceledMarketProtection'
  | 'canceledPostOnly'
  | 'expired'
  | 'rejected'

/**
 * The protocol's restatement reasons (§4.2) that the engine produces, plus one of its own for
 * `rejected`, which the protocol names no reason for.
 */
export type RestatementReason =
  | 'decrementOnSelfTradePrevention'
  | 'cancelOnSelfTradePrevention'
  | 'cancelOnExecutionPriceProtection'
  | 'cancelOnDisconnect'
  | 'rejectOnAmountQuoteBelowOneUnit'

/**
 * A market as listed (protocol §4.4), with decimal strings exactly as on the wire. The engine
 * converts it once, in `addMarket`, and refuses a configuration whose bounds do not keep every
 * product within safe integers.
 */
export interface MarketConfig {
  readonly market: string
  readonly base: string
  readonly quote: string
  readonly status?: MarketStatus
  /** > 0, e.g. '0.01' or '5'. Its decimals are the price scale. */
  readonly tickSize: string
  readonly quantityDecimals: number
  readonly notionalDecimals: number
  /** Significant digits allowed in a price; 0 disables the check (deprecated on the wire). */
  readonly pricePrecision?: number
  readonly minOrderInBaseAsset: string
  readonly maxOrderInBaseAsset: string
  readonly minOrderInQuoteAsset: string
  readonly maxOrderInQuoteAsset: string
  /** Lowest accepted price (error 213). Default: tickSize. */
  readonly minPrice?: string
  /** Highest accepted price (error 211). Required: it bounds every notional (README "Units"). */
  readonly maxPrice: string
  /** Open orders per account in this market (error 235). Default 100. */
  readonly maxOpenOrders?: number
  /** Market protection band in parts per million of the best price at arrival. Default 100000 (10%). */
  readonly marketProtectionPpm?: number
}

interface CommandBase {
  /** Milliseconds since the epoch, chosen by the caller: the engine never reads a clock. */
  readonly timestamp: number
}

export interface AddMarket extends CommandBase {
  readonly type: 'addMarket'
  readonly config: MarketConfig
}

export interface SetMarketStatus extends CommandBase {
  readonly type: 'setMarketStatus'
  readonly market: string
  readonly status: MarketStatus
}

export interface PlaceOrder extends CommandBase {
  readonly type: 'placeOrder'
  readonly market: string
  /** Chosen by the caller (the server makes a UUID); unique per market. */
  readonly orderId: string
  readonly accountId: number
  readonly operatorId?: number
  readonly clientOrderId?: string
  readonly side: Side
  readonly orderType: OrderType
  /** Base units (10^-quantityDecimals). */
  readonly amount?: number
  /** Quote units at the market's quote scale (10^-quoteDecimals, see README). */
  readonly amountQuote?: number
  /** Price units (10^-priceDecimals, the decimals of tickSize). */
  readonly price?: number
  readonly triggerAmount?: number
  readonly triggerType?: TriggerType
  readonly triggerReference?: TriggerReference
  readonly timeInForce?: TimeInForce
  readonly postOnly?: boolean
  readonly selfTradePrevention?: SelfTradePrevention
  readonly disableMarketProtection?: boolean
  /** Cancel-on-disconnect group (1..1000) that `cancelOrders` can cancel on its own; 0 or none. */
  readonly codGroupId?: number
  /** Fee rates of the account's tier, in parts per million of the notional (2500 = 0.25%). */
  readonly makerFeePpm: number
  readonly takerFeePpm: number
  /**
   * 2: each fill is charged at its own role's rate (README "Fees"), as every order placed now.
   * Absent, as journaled before 2026-11-28: each fill's role rate on the order's whole filled
   * total, so that a replay of those commands charges what was charged then.
   */
  readonly feeRules?: 2
}

export interface UpdateOrder extends CommandBase {
  readonly type: 'updateOrder'
  readonly market: string
  readonly accountId: number
  readonly orderId?: string
  /** Wins over orderId when both are given (protocol §3.2). */
  readonly clientOrderId?: string
  readonly amount?: number
  readonly amountRemaining?: number
  readonly amountQuote?: number
  readonly price?: number
  readonly triggerAmount?: number
  readonly timeInForce?: TimeInForce
  readonly selfTradePrevention?: SelfTradePrevention
  readonly postOnly?: boolean
}

export interface CancelOrder extends CommandBase {
  readonly type: 'cancelOrder'
  readonly market: string
  readonly accountId: number
  readonly orderId?: string
  readonly clientOrderId?: string
}

export interface CancelOrders extends CommandBase {
  readonly type: 'cancelOrders'
  readonly accountId: number
  /** Omit to cancel the account's open orders in every market. */
  readonly market?: string
  /**
   * Only the orders placed in this cancel-on-disconnect group, which are canceled with the
   * restatement reason `cancelOnDisconnect`.
   */
  readonly codGroupId?: number
}

/** Publishes the book changes since the last batch as one `book` event (nonce + 1). */
export interface FlushBook extends CommandBase {
  readonly type: 'flushBook'
  readonly market: string
}

export type Command =
  | AddMarket
  | SetMarketStatus
  | PlaceOrder
  | UpdateOrder
  | CancelOrder
  | CancelOrders
  | FlushBook
