// Three kinds of failure (STYLE.md habit 5):
// - expected business outcomes are returned as data: `Rejection` with the protocol's errorCode;
// - a bad engine configuration or snapshot is a library error: `EngineConfigError`;
// - a broken invariant is an `EngineInvariantError` thrown by `invariant`, which must stop the
//   process: continuing with a corrupt book is worse than stopping.

/** The protocol's numeric error codes (../shared/protocol.md §5) that the engine returns. */
export const ErrorCode = {
  parameterRequired: 203,
  orderParameterNotSupported: 202,
  parameterInvalid: 205,
  incompatibleParameters: 206,
  amountAboveMaximum: 210,
  priceAboveMaximum: 211,
  amountBelowMinimum: 212,
  priceBelowMinimum: 213,
  priceSignificantDigits: 214,
  priceTooManyDecimals: 215,
  quoteBelowMinimum: 217,
  triggerSignificantDigits: 218,
  clientOrderIdConflict: 220,
  orderRejected: 230,
  updateChangesNothing: 232,
  orderNotActive: 233,
  marketOrderNotUpdatable: 234,
  openOrdersAboveMaximum: 235,
  updateOneAmountOnly: 236,
  stopLossParametersMissing: 237,
  stopLossLimitParametersMissing: 238,
  updateCannotSwitchAmountKind: 239,
  orderNotFound: 240,
  priceNotMultipleOfTick: 422,
  marketHalted: 423,
  marketCancelOnly: 424,
  marketAuction: 425,
  marketAuctionMatching: 426,
  tooManyDecimals: 429,
} as const

export type ErrorCodeValue = (typeof ErrorCode)[keyof typeof ErrorCode]

/** A command the engine refused. Nothing changed in the engine state and no event was emitted. */
export interface Rejection {
  readonly ok: false
  readonly errorCode: ErrorCodeValue
  /** The protocol's message wording, e.g. 'amount parameter is invalid.' */
  readonly error: string
}

export function reject(errorCode: ErrorCodeValue, param?: string): Rejection {
  return { ok: false, errorCode, error: errorMessage(errorCode, param) }
}

/**
 * Message text per code, worded as the protocol's error catalogue words it (packages/protocol;
 * apps/exchange/test/engineErrorTexts.test.ts holds them to it), which ccxt's substring
 * matching expects.
 */
export function errorMessage(errorCode: ErrorCodeValue, param = 'parameter'): string {
  switch (errorCode) {
    case 202:
      return `${param} order parameter is not supported`
    case 203:
      return `${param} parameter is required.`
    case 205:
      return `${param} parameter is invalid.`
    case 206:
      return `Use either ${param} parameter, not both.`
    case 210:
      return 'Amount exceeds the maximum allowed amount.'
    case 211:
      return 'Price exceeds the maximum allowed price.'
    case 212:
      return 'Amount is below the minimum allowed amount.'
    case 213:
      return 'Price is below the minimum allowed price.'
    case 214:
      return 'Price has too many significant digits.'
    case 215:
      return 'Price has more than 15 decimals.'
    case 217:
      return 'Minimum order size in quote currency is 5 EUR or 0.001 BTC.'
    case 218:
      return 'Trigger amount has too many significant digits.'
    case 220:
      return 'This clientOrderId is already in use by an open order in this market.'
    case 230:
      return 'The order was rejected by the matching engine.'
    case 232:
      return 'You must change at least one of amount, amountRemaining, price, timeInForce, selfTradePrevention or postOnly.'
    case 233:
      return 'Order must be active (status new or partiallyFilled) to allow updating/cancelling.'
    case 234:
      return 'Market orders cannot be updated.'
    case 235:
      return 'You can only have 100 open orders in each market.'
    case 236:
      return 'You can only update one of amount, amountRemaining or amountQuote.'
    case 237:
      return `${param} parameter is required for stopLoss and takeProfit orders.`
    case 238:
      return `${param} parameter is required for stopLossLimit and takeProfitLimit orders.`
    case 239:
      return 'You cannot switch between amount and amountQuote when updating an order.'
    case 240:
      return 'No order found. Please be aware that simultaneously updating the same order may return this error.'
    case 422:
      return 'Price is not a multiple of the tick size of this market.'
    case 423:
      return 'This market is halted.'
    case 424:
      return 'This market is in cancelOnly mode: orders can only be canceled.'
    case 425:
      return 'This market is in an auction.'
    case 426:
      return 'This market is matching its auction: orders cannot be placed or canceled.'
    case 429:
      return `${param} parameter has too many decimal digits.`
  }
}

/** A market configuration or a snapshot the engine cannot accept. */
export class EngineConfigError extends Error {
  override readonly name = 'EngineConfigError'
  readonly code = 'ENGINE_CONFIG'
}

/** An engine invariant does not hold: the state is corrupt and the process must stop. */
export class EngineInvariantError extends Error {
  override readonly name = 'EngineInvariantError'
  readonly code = 'ENGINE_INVARIANT'
}

/** Assertions stay on in production (TigerBeetle style): they are cheap next to a corrupt book. */
export function invariant(condition: boolean, message: string): asserts condition {
  if (!condition) throw new EngineInvariantError(message)
}
