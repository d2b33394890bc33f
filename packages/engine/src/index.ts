// Public entry of @polder/engine: a deterministic, integer-exact matching engine.
// Commands in (plain JSON objects), events out (to an EngineSink). No I/O, no clock, no randomness.

export { feeFor, feeForRoles } from './arithmetic.ts'
export type { Book, BookKind } from './book.ts'
export {
  decimalsOf,
  formatDecimal,
  type ParseBigDecimalResult,
  type ParseDecimalResult,
  parseBigDecimal,
  parseDecimal,
  significantDigits,
} from './decimal.ts'
export {
  type Accepted,
  type BookDelta,
  type BookSnapshot,
  type CancelOrdersAccepted,
  type CommandResult,
  closedOrdersRememberedMaxDefault,
  Engine,
  type EngineOptions,
  type EngineSink,
  type EngineSnapshot,
  type MarketSnapshot,
  type OrderSnapshot,
  type Ticker,
  type Trade,
} from './engine.ts'
export {
  EngineConfigError,
  EngineInvariantError,
  ErrorCode,
  type ErrorCodeValue,
  errorMessage,
  type Rejection,
} from './errors.ts'
export {
  type BookEvent,
  type EngineEvent,
  EventLog,
  type FillEvent,
  type OrderEvent,
  type TickerEvent,
  type TradeEvent,
} from './event-log.ts'
export { FastBook } from './fast-book.ts'
export { type OrderFees, restFeeAtMost } from './fees.ts'
export {
  feePpmMax,
  type MarketSpec,
  marketProtectionPpmDefault,
  marketSpecFromConfig,
  openOrdersPerMarketMaxDefault,
} from './market.ts'
export { isOpenStatus, Order, type OrderState, toState } from './order.ts'
export { ReferenceBook } from './reference-book.ts'
export type * from './types.ts'
export {
  formatAmount,
  formatPrice,
  formatQuote,
  orderToWire,
  type PlaceContext,
  placeOrderFromWire,
  updateOrderFromWire,
  type WirePlaceOrder,
  type WireUpdateOrder,
} from './wire.ts'
