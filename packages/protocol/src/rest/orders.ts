import { z } from 'zod'
import type { IssueErrorCode } from '../errors/ValidationError.ts'
import {
  assetSymbol,
  codGroupId,
  decimalString,
  idString,
  integerParameter,
  marketId,
  nonNegativeDecimalString,
  operatorId,
  orderStatus,
  orderType,
  positiveDecimalString,
  restatementReason,
  selfTradePrevention,
  side,
  timeInForce,
  timestampMs,
  timestampParameter,
  triggerReference,
  triggerType,
  uuid,
} from '../primitives.ts'
import { endWithinOneDayOfStart } from './timeWindow.ts'

// Orders and own trades (protocol §3.2, §4.1–4.3). Bodies (POST/PUT) and queries (GET/DELETE)
// are strict; they accept every parameter the SDK and ccxt send (§3.2), including `operatorId`
// (optional, 0 allowed), `clientOrderId`, `responseRequired` and the deprecated
// `disableMarketProtection`.

/** Most orders one `GET /orders` may return (default 500). */
export const ordersLimitMax = 1000

// --- Fill, Order -------------------------------------------------------------------------------

/** A fill inside `order.fills` (§4.3). `fee` and `feeCurrency` are left out until settled. */
export const fill = z.object({
  id: idString,
  timestamp: timestampMs,
  amount: positiveDecimalString,
  price: positiveDecimalString,
  taker: z.boolean(),
  /** Negative for rebates. */
  fee: decimalString.optional(),
  feeCurrency: assetSymbol.optional(),
  settled: z.boolean(),
})
export type Fill = z.infer<typeof fill>

/** Fields every order message has, and the ones that depend on the order type. */
const orderCoreShape = {
  orderId: uuid,
  /** Only when the client set one. */
  clientOrderId: idString.optional(),
  market: marketId,
  created: timestampMs,
  updated: timestampMs,
  status: orderStatus,
  side,
  orderType,
  /** Present when the order was placed by amount. */
  amount: nonNegativeDecimalString.optional(),
  amountRemaining: nonNegativeDecimalString.optional(),
  /** Present when the order was placed by amountQuote. */
  amountQuote: nonNegativeDecimalString.optional(),
  amountQuoteRemaining: nonNegativeDecimalString.optional(),
  /** Limit types only. */
  price: positiveDecimalString.optional(),
  /** stopLoss/takeProfit types only. */
  triggerPrice: positiveDecimalString.optional(),
  triggerAmount: positiveDecimalString.optional(),
  triggerType: triggerType.optional(),
  triggerReference: triggerReference.optional(),
  filledAmount: nonNegativeDecimalString.optional(),
  filledAmountQuote: nonNegativeDecimalString.optional(),
  /** Negative for rebates. */
  feePaid: decimalString.optional(),
  feeCurrency: assetSymbol.optional(),
  timeInForce: timeInForce.optional(),
  postOnly: z.boolean().optional(),
  /** Deprecated, always false. */
  disableMarketProtection: z.boolean().optional(),
  operatorId: z.number().optional(),
  restatementReason: restatementReason.optional(),
}

/** The order object of REST and WS responses (§4.2). */
export const order = z.object({
  ...orderCoreShape,
  /** Funds reserved: quote currency for buys, base for sells. */
  onHold: nonNegativeDecimalString,
  onHoldCurrency: assetSymbol,
  filledAmount: nonNegativeDecimalString,
  filledAmountQuote: nonNegativeDecimalString,
  feePaid: decimalString,
  feeCurrency: assetSymbol,
  /** Fills so far; empty for resting orders. */
  fills: z.array(fill),
  selfTradePrevention,
  /** Resting in the book. */
  visible: z.boolean(),
})
export type Order = z.infer<typeof order>

/** Payload fields of the `order` event of the account channel (§6.3); no `fills`. */
export const orderEventShape = {
  ...orderCoreShape,
  onHold: nonNegativeDecimalString,
  onHoldCurrency: assetSymbol,
  timeInForce,
  postOnly: z.boolean(),
  selfTradePrevention,
  visible: z.boolean(),
}

// --- POST /order -------------------------------------------------------------------------------

/** Order types whose amount rests at `price` (need amount and price; postOnly allowed). */
export const limitOrderTypes = ['limit', 'stopLossLimit', 'takeProfitLimit'] as const
/** Order types that wait for a trigger (need triggerAmount, triggerType, triggerReference). */
export const triggerOrderTypes = [
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
] as const
const triggerFields = ['triggerAmount', 'triggerType', 'triggerReference'] as const

const createOrderShape = {
  market: marketId,
  side,
  orderType,
  operatorId: operatorId.optional(),
  clientOrderId: uuid.optional(),
  amount: positiveDecimalString.optional(),
  amountQuote: positiveDecimalString.optional(),
  price: positiveDecimalString.optional(),
  triggerAmount: positiveDecimalString.optional(),
  triggerType: triggerType.optional(),
  triggerReference: triggerReference.optional(),
  timeInForce: timeInForce.optional(),
  postOnly: z.boolean().optional(),
  selfTradePrevention: selfTradePrevention.optional(),
  /** Deprecated; must be false when present. */
  disableMarketProtection: z.boolean().optional(),
  responseRequired: z.boolean().optional(),
  /** Cancel-on-disconnect group (armed by POST /cancelOrdersAfter); not for market orders. */
  codGroupId: codGroupId.optional(),
}

/** A broken order rule: the errorCode, the parameter it names and a message for people. */
export type OrderRuleViolation = {
  errorCode: number
  param: string
  message: string
  messageParams: Readonly<Record<string, string>>
}

type CreateOrderFields = {
  orderType?: unknown
  amount?: unknown
  amountQuote?: unknown
  price?: unknown
  triggerAmount?: unknown
  triggerType?: unknown
  triggerReference?: unknown
  postOnly?: unknown
  disableMarketProtection?: unknown
  codGroupId?: unknown
}

function violation(
  errorCode: number,
  param: string,
  message: string,
  messageParams: Record<string, string> = {},
): OrderRuleViolation {
  return { errorCode, param, message, messageParams: { param, ...messageParams } }
}

/**
 * The §4.1 rules that need no market data, in the order a server reports them:
 * - limit types need `amount` (203) and `price` (203) and take no `amountQuote` (202);
 * - market, stopLoss and takeProfit need exactly one of `amount` and `amountQuote` (206 if both,
 *   203 `amount` if neither), take no `price` (202) and no `postOnly: true` (202);
 * - trigger types need `triggerAmount`, `triggerType` and `triggerReference`: 237 for stopLoss and
 *   takeProfit, 238 for their limit variants; other types take none of them (202);
 * - `disableMarketProtection` is deprecated and must be false (205).
 * Decimals, tick size, minimums and balances need the market and the account: the engine checks them.
 */
export function createOrderRuleViolations(request: CreateOrderFields): OrderRuleViolation[] {
  const found: OrderRuleViolation[] = []
  const type = request.orderType
  if (typeof type !== 'string') return found
  const isLimitType = (limitOrderTypes as readonly string[]).includes(type)
  const isTriggerType = (triggerOrderTypes as readonly string[]).includes(type)
  if (isLimitType) {
    if (request.amountQuote !== undefined) {
      found.push(violation(202, 'amountQuote', `not supported for ${type} orders`))
    }
    if (request.amount === undefined) {
      found.push(violation(203, 'amount', `required for ${type} orders`))
    }
    if (request.price === undefined) {
      found.push(violation(203, 'price', `required for ${type} orders`))
    }
  } else {
    if (request.price !== undefined) {
      found.push(violation(202, 'price', `not supported for ${type} orders`))
    }
    if (request.amount !== undefined && request.amountQuote !== undefined) {
      found.push(
        violation(206, 'amountQuote', 'use either amount or amountQuote, not both', {
          a: 'amount',
          b: 'amountQuote',
        }),
      )
    } else if (request.amount === undefined && request.amountQuote === undefined) {
      found.push(violation(203, 'amount', `amount or amountQuote is required for ${type} orders`))
    }
    if (request.postOnly === true) {
      found.push(violation(202, 'postOnly', `not supported for ${type} orders`))
    }
  }
  for (const field of triggerFields) {
    if (isTriggerType && request[field] === undefined) {
      const code = isLimitType ? 238 : 237
      found.push(violation(code, field, `required for ${type} orders`))
    } else if (!isTriggerType && request[field] !== undefined) {
      found.push(violation(202, field, `not supported for ${type} orders`))
    }
  }
  if (type === 'market' && request.codGroupId !== undefined) {
    found.push(violation(202, 'codGroupId', 'cancel-on-disconnect is not for market orders'))
  }
  if (request.disableMarketProtection === true) {
    found.push(violation(205, 'disableMarketProtection', 'deprecated; must be false'))
  }
  return found
}

function addViolations(violations: OrderRuleViolation[], context: z.core.$RefinementCtx): void {
  for (const broken of violations) {
    const params: IssueErrorCode = {
      errorCode: broken.errorCode,
      messageParams: broken.messageParams,
    }
    context.addIssue({ code: 'custom', path: [broken.param], message: broken.message, params })
  }
}

/** Build a create-order schema from a shape (the WS variant adds action and requestId). */
export function withCreateOrderRules<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z
    .strictObject({ ...createOrderShape, ...shape })
    .superRefine((value, context) => addViolations(createOrderRuleViolations(value), context))
}

/** POST /order body (§4.1), with the rules of `createOrderRuleViolations`. */
export const createOrderRequest = withCreateOrderRules({})
export type CreateOrderRequest = z.input<typeof createOrderRequest>

/** The short acknowledgement sent when `responseRequired` is false. */
export const orderAcknowledgement = z.object({
  market: marketId,
  orderId: uuid,
  clientOrderId: idString.optional(),
  created: timestampMs,
  updated: timestampMs,
})
export type OrderAcknowledgement = z.infer<typeof orderAcknowledgement>

export const createOrderResponse = z.union([order, orderAcknowledgement])
export type CreateOrderResponse = z.infer<typeof createOrderResponse>

// --- PUT /order --------------------------------------------------------------------------------

const updateOrderShape = {
  market: marketId,
  orderId: uuid.optional(),
  /** Wins over orderId when both are given. */
  clientOrderId: uuid.optional(),
  operatorId: operatorId.optional(),
  amount: positiveDecimalString.optional(),
  amountQuote: positiveDecimalString.optional(),
  amountRemaining: positiveDecimalString.optional(),
  price: positiveDecimalString.optional(),
  triggerAmount: positiveDecimalString.optional(),
  timeInForce: timeInForce.optional(),
  selfTradePrevention: selfTradePrevention.optional(),
  postOnly: z.boolean().optional(),
  responseRequired: z.boolean().optional(),
  /** Deprecated; must be false when present. */
  disableMarketProtection: z.boolean().optional(),
}

const updatableFields = [
  'amount',
  'amountQuote',
  'amountRemaining',
  'price',
  'triggerAmount',
  'timeInForce',
  'selfTradePrevention',
  'postOnly',
] as const

type UpdateOrderFields = Partial<Record<(typeof updatableFields)[number], unknown>> & {
  orderId?: unknown
  clientOrderId?: unknown
  disableMarketProtection?: unknown
}

/**
 * Rules of PUT /order that need no order state: `orderId` or `clientOrderId` (203), at least one
 * field to change (232), at most one of amount, amountRemaining and amountQuote (236).
 */
export function updateOrderRuleViolations(request: UpdateOrderFields): OrderRuleViolation[] {
  const found: OrderRuleViolation[] = []
  if (request.orderId === undefined && request.clientOrderId === undefined) {
    found.push(violation(203, 'orderId', 'orderId or clientOrderId is required'))
  }
  if (updatableFields.every((field) => request[field] === undefined)) {
    found.push(violation(232, 'amount', 'nothing to change'))
  }
  const amounts = (['amount', 'amountRemaining', 'amountQuote'] as const).filter(
    (field) => request[field] !== undefined,
  )
  if (amounts.length > 1) {
    found.push(
      violation(236, amounts[1] ?? 'amount', 'only one of amount, amountRemaining or amountQuote'),
    )
  }
  if (request.disableMarketProtection === true) {
    found.push(violation(205, 'disableMarketProtection', 'deprecated; must be false'))
  }
  return found
}

export function withUpdateOrderRules<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z
    .strictObject({ ...updateOrderShape, ...shape })
    .superRefine((value, context) => addViolations(updateOrderRuleViolations(value), context))
}

export const updateOrderRequest = withUpdateOrderRules({})
export type UpdateOrderRequest = z.input<typeof updateOrderRequest>

// --- GET /order, DELETE /order -----------------------------------------------------------------

function orderIdentifierRule(
  value: { orderId?: unknown; clientOrderId?: unknown },
  context: z.core.$RefinementCtx,
): void {
  if (value.orderId === undefined && value.clientOrderId === undefined) {
    addViolations([violation(203, 'orderId', 'orderId or clientOrderId is required')], context)
  }
}

export const getOrderShape = {
  market: marketId,
  orderId: uuid.optional(),
  clientOrderId: uuid.optional(),
}
export function withOrderIdentifierRule<Shape extends z.core.$ZodLooseShape>(shape: Shape) {
  return z.strictObject(shape).superRefine(orderIdentifierRule)
}

export const getOrderRequest = withOrderIdentifierRule(getOrderShape)
export type GetOrderRequest = z.input<typeof getOrderRequest>

export const cancelOrderShape = { ...getOrderShape, operatorId: operatorId.optional() }
export const cancelOrderRequest = withOrderIdentifierRule(cancelOrderShape)
export type CancelOrderRequest = z.input<typeof cancelOrderRequest>

export const cancelOrderResponse = z.object({
  orderId: uuid,
  clientOrderId: idString.optional(),
  operatorId: z.number().optional(),
})
export type CancelOrderResponse = z.infer<typeof cancelOrderResponse>

// --- GET /orders, DELETE /orders, GET /ordersOpen -----------------------------------------------

export const ordersShape = {
  market: marketId,
  limit: integerParameter(1, ordersLimitMax).optional(),
  start: timestampParameter.optional(),
  end: timestampParameter.optional(),
  orderIdFrom: uuid.optional(),
  orderIdTo: uuid.optional(),
  /** Deprecated alias of orderIdTo. */
  orderId: uuid.optional(),
}
export const ordersRequest = z.strictObject(ordersShape).superRefine(endWithinOneDayOfStart)
export type OrdersRequest = z.input<typeof ordersRequest>
/** Newest first; includes closed orders. */
export const ordersResponse = z.array(order)

export const cancelOrdersShape = {
  /** Omit it to cancel every open order of the account. */
  market: marketId.optional(),
  operatorId: operatorId.optional(),
}
export const cancelOrdersRequest = z.strictObject(cancelOrdersShape)
export type CancelOrdersRequest = z.input<typeof cancelOrdersRequest>
export const cancelOrdersResponse = z.array(
  z.object({ orderId: uuid, operatorId: z.number().optional() }),
)
export type CancelOrdersResponse = z.infer<typeof cancelOrdersResponse>

export const ordersOpenShape = { market: marketId.optional(), base: assetSymbol.optional() }
export const ordersOpenRequest = z.strictObject(ordersOpenShape)
export type OrdersOpenRequest = z.input<typeof ordersOpenRequest>
/** Orders with status new, partiallyFilled or awaitingTrigger. */
export const ordersOpenResponse = z.array(order)

// --- GET /trades (own trades) ------------------------------------------------------------------

export const tradesShape = {
  market: marketId,
  limit: integerParameter(1, 1000).optional(),
  start: timestampParameter.optional(),
  end: timestampParameter.optional(),
  tradeIdFrom: idString.optional(),
  tradeIdTo: idString.optional(),
  /** Deprecated alias of tradeIdTo. */
  tradeId: idString.optional(),
}
export const tradesRequest = z.strictObject(tradesShape).superRefine(endWithinOneDayOfStart)
export type TradesRequest = z.input<typeof tradesRequest>

/** One of your own trades (§3.2): a fill plus order id, market and side. */
export const privateTrade = z.object({
  id: idString,
  orderId: uuid,
  clientOrderId: idString.optional(),
  timestamp: timestampMs,
  market: marketId,
  side,
  amount: positiveDecimalString,
  price: positiveDecimalString,
  taker: z.boolean(),
  fee: decimalString.optional(),
  feeCurrency: assetSymbol.optional(),
  settled: z.boolean(),
})
export type PrivateTrade = z.infer<typeof privateTrade>
export const tradesResponse = z.array(privateTrade)

// --- POST /cancelOrdersAfter (optional; only ccxt cancelAllOrdersAfter uses it) ----------------

/** Shortest countdown of cancel-on-disconnect, in seconds (the docs' range is 10..300). */
export const cancelAfterSecondsMin = 10
/** Longest countdown of cancel-on-disconnect, in seconds. */
export const cancelAfterSecondsMax = 300

const expiryMessage = `expected 0 (stop the countdown) or an integer between ${cancelAfterSecondsMin} and ${cancelAfterSecondsMax}`

export const cancelOrdersAfterShape = {
  codGroupId,
  /** Seconds until the group's open orders are canceled; 0 stops the countdown [infer]. */
  expiryAfterSeconds: integerParameter(0, cancelAfterSecondsMax).refine(
    (seconds) => seconds === 0 || seconds >= cancelAfterSecondsMin,
    { error: expiryMessage },
  ),
}
export const cancelOrdersAfterRequest = z.strictObject(cancelOrdersAfterShape)
export type CancelOrdersAfterRequest = z.infer<typeof cancelOrdersAfterRequest>
export const cancelOrdersAfterResponse = z.object({
  codGroupId: z.int().min(1),
  /** When the group's orders are canceled, in seconds since the epoch; 0 once stopped. */
  timeOfExpirySeconds: z.int().min(0),
})
