// The edge between decimal strings (protocol §4) and the engine's integer commands and states.
// The server parses request parameters with these functions (errors 205 and 429, and 215 and 422
// for a price with too many decimals, come from here; every other validation is in the engine)
// and formats engine states for responses and events.

import { decimalsOf, formatDecimal, parseBigDecimal } from './decimal.ts'
import { ErrorCode, type Rejection, reject } from './errors.ts'
import type { MarketSpec } from './market.ts'
import type { OrderState } from './order.ts'
import type {
  OrderType,
  PlaceOrder,
  SelfTradePrevention,
  Side,
  TimeInForce,
  TriggerReference,
  TriggerType,
  UpdateOrder,
} from './types.ts'

/** Create-order parameters as they arrive on the wire (protocol §4.1). */
export interface WirePlaceOrder {
  readonly side: Side
  readonly orderType: OrderType
  readonly clientOrderId?: string
  readonly operatorId?: number
  readonly amount?: string
  readonly amountQuote?: string
  readonly price?: string
  readonly triggerAmount?: string
  readonly triggerType?: TriggerType
  readonly triggerReference?: TriggerReference
  readonly timeInForce?: TimeInForce
  readonly postOnly?: boolean
  readonly selfTradePrevention?: SelfTradePrevention
  readonly disableMarketProtection?: boolean
  readonly codGroupId?: number
}

export interface WireUpdateOrder {
  readonly orderId?: string
  readonly clientOrderId?: string
  readonly amount?: string
  readonly amountRemaining?: string
  readonly amountQuote?: string
  readonly price?: string
  readonly triggerAmount?: string
  readonly timeInForce?: TimeInForce
  readonly selfTradePrevention?: SelfTradePrevention
  readonly postOnly?: boolean
}

/** What the server adds to a request: time, ids and the account's fee tier. */
export interface PlaceContext {
  readonly timestamp: number
  readonly orderId: string
  readonly accountId: number
  readonly makerFeePpm: number
  readonly takerFeePpm: number
}

type Scale = 'price' | 'base' | 'quote'

/** Decimals a price may have at most (protocol §5, 215), whatever its market's tick. */
const priceDecimalsMax = 15

function toUnits(spec: MarketSpec, name: string, text: unknown, scale: Scale): number | Rejection {
  if (typeof text !== 'string') return reject(ErrorCode.parameterInvalid, name)
  const decimals =
    scale === 'price'
      ? spec.priceDecimals
      : scale === 'base'
        ? spec.quantityDecimals
        : spec.notionalDecimals
  const parsed = parseBigDecimal(text, decimals)
  if (!parsed.ok) {
    if (parsed.errorCode !== 429) return reject(ErrorCode.parameterInvalid, name)
    // A price finer than the tick is not a multiple of it (422), and the protocol has its own
    // code for one past 15 decimals (215); other values with too many decimals are 429.
    if (name !== 'price') return reject(ErrorCode.tooManyDecimals, name)
    return reject(
      decimalsOf(text) > priceDecimalsMax
        ? ErrorCode.priceTooManyDecimals
        : ErrorCode.priceNotMultipleOfTick,
    )
  }
  const units = scale === 'quote' ? parsed.units * BigInt(spec.quotePerNotional) : parsed.units
  // Past a number's exact integers is past the market's maximum (marketSpecFromConfig keeps the
  // maximums safe): the maximum's error, as for any value over it, whatever its digits.
  if (units > BigInt(Number.MAX_SAFE_INTEGER)) {
    return reject(scale === 'price' ? ErrorCode.priceAboveMaximum : ErrorCode.amountAboveMaximum)
  }
  return Number(units)
}

const priceFields = ['price', 'triggerAmount'] as const

/** Converts wire create-order parameters into an engine command (or error 205, 215, 422 / 429). */
export function placeOrderFromWire(
  spec: MarketSpec,
  params: WirePlaceOrder,
  context: PlaceContext,
): PlaceOrder | Rejection {
  const units: Record<string, number> = {}
  const fields: readonly [string, string | undefined, Scale][] = [
    ['amount', params.amount, 'base'],
    ['amountQuote', params.amountQuote, 'quote'],
    [priceFields[0], params.price, 'price'],
    [priceFields[1], params.triggerAmount, 'price'],
  ]
  for (const [name, text, scale] of fields) {
    if (text === undefined) continue
    const value = toUnits(spec, name, text, scale)
    if (typeof value !== 'number') return value
    units[name] = value
  }
  return {
    type: 'placeOrder',
    timestamp: context.timestamp,
    market: spec.market,
    orderId: context.orderId,
    accountId: context.accountId,
    makerFeePpm: context.makerFeePpm,
    takerFeePpm: context.takerFeePpm,
    feeRules: 2,
    side: params.side,
    orderType: params.orderType,
    ...(params.operatorId === undefined ? {} : { operatorId: params.operatorId }),
    ...(params.clientOrderId === undefined ? {} : { clientOrderId: params.clientOrderId }),
    ...units,
    ...(params.triggerType === undefined ? {} : { triggerType: params.triggerType }),
    ...(params.triggerReference === undefined ? {} : { triggerReference: params.triggerReference }),
    ...(params.timeInForce === undefined ? {} : { timeInForce: params.timeInForce }),
    ...(params.postOnly === undefined ? {} : { postOnly: params.postOnly }),
    ...(params.selfTradePrevention === undefined
      ? {}
      : { selfTradePrevention: params.selfTradePrevention }),
    ...(params.disableMarketProtection === undefined
      ? {}
      : { disableMarketProtection: params.disableMarketProtection }),
    ...(params.codGroupId === undefined ? {} : { codGroupId: params.codGroupId }),
  }
}

/** Converts wire update parameters into an engine command (or error 205, 215, 422 / 429). */
export function updateOrderFromWire(
  spec: MarketSpec,
  params: WireUpdateOrder,
  context: { readonly timestamp: number; readonly accountId: number },
): UpdateOrder | Rejection {
  const units: Record<string, number> = {}
  const fields: readonly [string, string | undefined, Scale][] = [
    ['amount', params.amount, 'base'],
    ['amountRemaining', params.amountRemaining, 'base'],
    ['amountQuote', params.amountQuote, 'quote'],
    ['price', params.price, 'price'],
    ['triggerAmount', params.triggerAmount, 'price'],
  ]
  for (const [name, text, scale] of fields) {
    if (text === undefined) continue
    const value = toUnits(spec, name, text, scale)
    if (typeof value !== 'number') return value
    units[name] = value
  }
  return {
    type: 'updateOrder',
    timestamp: context.timestamp,
    market: spec.market,
    accountId: context.accountId,
    ...(params.orderId === undefined ? {} : { orderId: params.orderId }),
    ...(params.clientOrderId === undefined ? {} : { clientOrderId: params.clientOrderId }),
    ...units,
    ...(params.timeInForce === undefined ? {} : { timeInForce: params.timeInForce }),
    ...(params.selfTradePrevention === undefined
      ? {}
      : { selfTradePrevention: params.selfTradePrevention }),
    ...(params.postOnly === undefined ? {} : { postOnly: params.postOnly }),
  }
}

export const formatPrice = (spec: MarketSpec, units: number): string =>
  formatDecimal(units, spec.priceDecimals)
export const formatAmount = (spec: MarketSpec, units: number): string =>
  formatDecimal(units, spec.quantityDecimals)
export const formatQuote = (spec: MarketSpec, units: number): string =>
  formatDecimal(units, spec.quoteDecimals)

/**
 * The protocol §4.2 order fields as decimal strings, for the server to complete with
 * `fills`, `onHold` and `onHoldCurrency` (balances live in the server). Absent fields are left out.
 */
export function orderToWire(spec: MarketSpec, state: OrderState): Record<string, unknown> {
  const wire: Record<string, unknown> = {
    orderId: state.orderId,
    market: state.market,
    created: state.created,
    updated: state.updated,
    status: state.status,
    side: state.side,
    orderType: state.orderType,
  }
  if (state.clientOrderId !== null) wire.clientOrderId = state.clientOrderId
  if (state.amount !== null) wire.amount = formatAmount(spec, state.amount)
  if (state.amountRemaining !== null)
    wire.amountRemaining = formatAmount(spec, state.amountRemaining)
  if (state.amountQuote !== null) wire.amountQuote = formatQuote(spec, state.amountQuote)
  if (state.amountQuoteRemaining !== null) {
    wire.amountQuoteRemaining = formatQuote(spec, state.amountQuoteRemaining)
  }
  if (state.price !== null) wire.price = formatPrice(spec, state.price)
  if (state.triggerAmount !== null) {
    wire.triggerAmount = formatPrice(spec, state.triggerAmount)
    wire.triggerType = state.triggerType
    wire.triggerReference = state.triggerReference
  }
  // The price the trigger is set at, waiting or fired (the live API's "price calculated using
  // triggerAmount and triggerType": with the one type, `price`, its triggerAmount); clients such
  // as ccxt read it as the order's trigger price. Until 2026-11-28 a fired order showed the
  // reference price that fired it, which changed, under ccxt, the trigger price a trader had set.
  if (state.triggerAmount !== null) wire.triggerPrice = formatPrice(spec, state.triggerAmount)
  wire.filledAmount = formatAmount(spec, state.filledAmount)
  wire.filledAmountQuote = formatQuote(spec, state.filledAmountQuote)
  wire.feePaid = formatQuote(spec, state.feePaid)
  wire.feeCurrency = state.feeCurrency
  wire.selfTradePrevention = state.selfTradePrevention
  wire.visible = state.visible
  wire.timeInForce = state.timeInForce
  wire.postOnly = state.postOnly
  wire.disableMarketProtection = state.disableMarketProtection
  wire.operatorId = state.operatorId
  if (state.restatementReason !== null) wire.restatementReason = state.restatementReason
  return wire
}
