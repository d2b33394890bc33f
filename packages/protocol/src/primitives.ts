import { z } from 'zod'

// Wire primitives shared by every message (protocol §1). Money is a decimal string in plain
// notation (no exponent, no leading '+', no bare '.5'); timestamps are integer milliseconds.

/** Longest decimal string accepted anywhere (sign, digits and point). Real values stay far below. */
export const decimalStringLengthMax = 64
/** Largest accepted timestamp, the upper bound the protocol gives for `end` (§1). */
export const timestampMsMax = 8_640_000_000_000_000
/** Longest market id or asset symbol part accepted (`BTC`, `1INCH`, ...). */
export const assetSymbolLengthMax = 16

const decimalPattern = /^-?\d+(\.\d+)?$/
const nonNegativeDecimalPattern = /^\d+(\.\d+)?$/
const nonZeroDigitPattern = /[1-9]/
const marketIdPattern = /^[A-Z0-9]{1,16}-[A-Z0-9]{1,16}$/
const assetSymbolPattern = /^[A-Z0-9]{1,16}$/
const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const unsignedIntegerPattern = /^\d{1,16}$/

const decimalMessage = 'expected a decimal string'

/** A decimal string such as `"-0.5"` or `"3304"`: plain notation, optional leading '-'. */
export const decimalString = z
  .string({ error: decimalMessage })
  .max(decimalStringLengthMax, { error: decimalMessage })
  .regex(decimalPattern, { error: decimalMessage })

/** A decimal string ≥ 0 (amounts, sizes, balances, volumes). */
export const nonNegativeDecimalString = z
  .string({ error: decimalMessage })
  .max(decimalStringLengthMax, { error: decimalMessage })
  .regex(nonNegativeDecimalPattern, { error: 'expected a non-negative decimal string' })

/** A decimal string > 0 (order amounts, prices, trigger prices, tick sizes). */
export const positiveDecimalString = z
  .string({ error: decimalMessage })
  .max(decimalStringLengthMax, { error: decimalMessage })
  .regex(nonNegativeDecimalPattern, { error: 'expected a positive decimal string' })
  .refine((value) => nonZeroDigitPattern.test(value), {
    error: 'expected a positive decimal string',
  })

/** `BASE-QUOTE`, e.g. `BTC-EUR`. ccxt splits on '-'. */
export const marketId = z
  .string({ error: 'expected a market id BASE-QUOTE' })
  .regex(marketIdPattern, { error: 'expected a market id BASE-QUOTE' })

/** An asset symbol such as `BTC` or `1INCH`. */
export const assetSymbol = z
  .string({ error: 'expected an asset symbol' })
  .regex(assetSymbolPattern, { error: 'expected an asset symbol' })

/** Integer milliseconds since the epoch, as a JSON number. */
export const timestampMs = z
  .int({ error: 'expected an integer timestamp in ms' })
  .min(0, { error: 'expected an integer timestamp in ms' })
  .max(timestampMsMax, { error: 'expected an integer timestamp in ms' })

/** A UUID string (orderId, clientOrderId, fill and trade ids). Any version, either case. */
export const uuid = z
  .string({ error: 'expected a UUID' })
  .regex(uuidPattern, { error: 'expected a UUID' })

/** A non-empty identifier string without a format guarantee. */
export const idString = z.string({ error: 'expected an id string' }).min(1).max(128)

/**
 * An integer parameter. Query strings carry it as digits (`"500"`), WebSocket requests and JSON
 * bodies as a JSON number; both parse to a number.
 */
export function integerParameter(min: number, max: number) {
  const message = `expected an integer between ${min} and ${max}`
  return z
    .union(
      [
        z.int({ error: message }),
        z
          .string({ error: message })
          .regex(unsignedIntegerPattern, { error: message })
          .transform((digits) => Number(digits)),
      ],
      { error: message },
    )
    .pipe(z.number().min(min, { error: message }).max(max, { error: message }))
}

/** A timestamp parameter (`start`, `end`): digits in a query, a JSON integer elsewhere. */
export const timestampParameter = integerParameter(0, timestampMsMax)

/**
 * A boolean parameter: a JSON boolean in bodies and WebSocket requests, `"true"`/`"false"` in a
 * query string.
 */
export const booleanParameter = z
  .union([z.boolean(), z.enum(['true', 'false']).transform((text) => text === 'true')], {
    error: 'expected a boolean',
  })
  .pipe(z.boolean())

/**
 * `operatorId` (protocol §8): an int64 identifying the trader or bot. ccxt sends the configured
 * integer, SDK 1.5.0 sends 0, SDK 1.4.1 never sends it, so schemas keep it optional and accept 0.
 * Digits are accepted too because DELETE carries it in the query string. Any integer within
 * ±(2^53 − 1), negative ones too; past that a JSON number cannot be told from its neighbours
 * (2^53 + 1 reads as 2^53), so it could not be echoed as sent: refused (205), as the engine does.
 */
export const operatorId = z
  .union(
    [
      z.number(),
      z
        .string()
        .regex(/^-?\d{1,16}$/)
        .transform((digits) => Number(digits)),
    ],
    { error: 'expected an integer operatorId' },
  )
  .pipe(
    z
      .number()
      .refine(Number.isSafeInteger, { error: 'expected an integer operatorId within ±(2^53 − 1)' }),
  )

/**
 * A cancel-on-disconnect group of the caller's orders (POST /cancelOrdersAfter, and `codGroupId`
 * on POST /order): an integer from 1 to 1000, as the docs give it.
 */
export const codGroupId = integerParameter(1, 1000)

// ---------------------------------------------------------------------------------------------
// Enumerations (protocol §4)

export const side = z.enum(['buy', 'sell'])
export type Side = z.infer<typeof side>

export const orderType = z.enum([
  'market',
  'limit',
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
])
export type OrderType = z.infer<typeof orderType>

/** Every order status of §4.2, including every canceled variant, expired and rejected. */
export const orderStatus = z.enum([
  'new',
  'awaitingTrigger',
  'partiallyFilled',
  'filled',
  'canceled',
  'canceledAuction',
  'canceledSelfTradePrevention',
  'canceledIOC',
  'canceledFOK',
  'canceledMarketProtection',
  'canceledPostOnly',
  'expired',
  'rejected',
])
export type OrderStatus = z.infer<typeof orderStatus>

export const timeInForce = z.enum(['GTC', 'IOC', 'FOK'])
export type TimeInForce = z.infer<typeof timeInForce>

export const selfTradePrevention = z.enum([
  'decrementAndCancel',
  'cancelOldest',
  'cancelNewest',
  'cancelBoth',
])
export type SelfTradePrevention = z.infer<typeof selfTradePrevention>

export const triggerType = z.enum(['price'])
export type TriggerType = z.infer<typeof triggerType>

export const triggerReference = z.enum(['lastTrade', 'bestBid', 'bestAsk', 'midPrice'])
export type TriggerReference = z.infer<typeof triggerReference>

export const marketStatus = z.enum([
  'trading',
  'halted',
  'auction',
  'auctionMatching',
  'cancelOnly',
])
export type MarketStatus = z.infer<typeof marketStatus>

/** `depositStatus` and `withdrawalStatus` of an asset (§4.5). */
export const assetTransferStatus = z.enum(['OK', 'MAINTENANCE', 'DELISTED'])
export type AssetTransferStatus = z.infer<typeof assetTransferStatus>

/** Status of a row of `/depositHistory` (§3.2). */
export const depositStatus = z.enum(['completed', 'canceled'])
export type DepositStatus = z.infer<typeof depositStatus>

/** Status of a row of `/withdrawalHistory` (§4.6). */
export const withdrawalStatus = z.enum([
  'awaiting_processing',
  'awaiting_email_confirmation',
  'awaiting_bitvavo_inspection',
  'approved',
  'sending',
  'in_mempool',
  'processed',
  'completed',
  'canceled',
])
export type WithdrawalStatus = z.infer<typeof withdrawalStatus>

/** Candle intervals of `/{market}/candles` (§3.1), including the docs' 1W and 1M. */
export const candleInterval = z.enum([
  '1m',
  '5m',
  '15m',
  '30m',
  '1h',
  '2h',
  '4h',
  '6h',
  '8h',
  '12h',
  '1d',
  '1W',
  '1M',
])
export type CandleInterval = z.infer<typeof candleInterval>

/** WebSocket subscription channels (§6.3). `account` needs an authenticated socket. */
export const channelName = z.enum(['ticker', 'ticker24h', 'trades', 'book', 'candles', 'account'])
export type ChannelName = z.infer<typeof channelName>

/** Why an order's status changed (§4.2). */
export const restatementReason = z.enum([
  'decrementOnSelfTradePrevention',
  'cancelOnSelfTradePrevention',
  'cancelOnPlacementPriceProtection',
  'cancelOnExecutionPriceProtection',
  'cancelOnSpreadProtection',
  'cancelOnReferencePriceProtection',
  'cancelPostOnlyOnAuctionMatching',
  'cancelOnMaintenance',
  'cancelOnDisconnect',
  'cancelOnDelisting',
  'cancelOnLockPlaced',
  'cancelOnAdminRequest',
])
export type RestatementReason = z.infer<typeof restatementReason>

/** Key permissions of §2.1; `none` marks public endpoints. */
export const permission = z.enum(['none', 'view', 'trade', 'withdraw'])
export type Permission = z.infer<typeof permission>
