import { z } from 'zod'
import {
  assetSymbol,
  assetTransferStatus,
  candleInterval,
  decimalString,
  idString,
  integerParameter,
  marketId,
  marketStatus,
  nonNegativeDecimalString,
  orderType,
  positiveDecimalString,
  side,
  timestampMs,
  timestampParameter,
} from '../primitives.ts'
import { endWithinOneDayOfStart } from './timeWindow.ts'

// Public market data (protocol §3.1, §4.4, §4.5). Request schemas are strict: the server
// answers an unknown parameter with 200 (query). Responses are plain objects (unknown fields
// are dropped on parse, never rejected) so a client keeps working when the server adds fields.

/** Most bids and asks a book request may ask for, and the default. */
export const bookDepthMax = 1000
/** Most public or private trades one request may return (default 500). */
export const tradesLimitMax = 1000
/** Most candles one request may return, and the default. */
export const candlesLimitMax = 1440

// --- GET /time ---------------------------------------------------------------------------------

export const timeRequest = z.strictObject({})
export const timeResponse = z.object({
  time: timestampMs,
  /** Nanoseconds; the newer API adds it. It exceeds 2^53, so it is only checked as a number. */
  timeNs: z.number().optional(),
})
export type TimeResponse = z.infer<typeof timeResponse>

// --- GET /markets ------------------------------------------------------------------------------

export const marketsRequest = z.strictObject({ market: marketId.optional() })
export type MarketsRequest = z.infer<typeof marketsRequest>

/** A market (§4.4). ccxt needs tickSize, quantityDecimals and notionalDecimals. */
export const market = z.object({
  market: marketId,
  status: marketStatus,
  base: assetSymbol,
  quote: assetSymbol,
  /** Significant digits (deprecated). Old ccxt needs an integer; the newer API may send null. */
  pricePrecision: z.int().min(0).nullable(),
  minOrderInBaseAsset: nonNegativeDecimalString,
  minOrderInQuoteAsset: nonNegativeDecimalString,
  maxOrderInBaseAsset: nonNegativeDecimalString,
  maxOrderInQuoteAsset: nonNegativeDecimalString,
  orderTypes: z.array(orderType),
  quantityDecimals: z.int().min(0),
  notionalDecimals: z.int().min(0),
  tickSize: positiveDecimalString,
  maxOpenOrders: z.int().min(0),
  feeCategory: z.string(),
})
export type Market = z.infer<typeof market>

/** One object when filtered by `market`, an array otherwise. */
export const marketsResponse = z.union([market, z.array(market)])
export type MarketsResponse = z.infer<typeof marketsResponse>

// --- GET /assets -------------------------------------------------------------------------------

export const assetsRequest = z.strictObject({ symbol: assetSymbol.optional() })
export type AssetsRequest = z.infer<typeof assetsRequest>

/** An asset (§4.5). `networks` must be non-empty: ccxt takes precision from it. */
export const asset = z.object({
  symbol: assetSymbol,
  name: z.string(),
  decimals: z.int().min(0),
  depositFee: nonNegativeDecimalString,
  depositConfirmations: z.int().min(0),
  depositStatus: assetTransferStatus,
  withdrawalFee: nonNegativeDecimalString,
  withdrawalMinAmount: nonNegativeDecimalString,
  withdrawalStatus: assetTransferStatus,
  networks: z.array(z.string().min(1)).min(1),
  /** Why a status is not OK; `""` otherwise. */
  message: z.string(),
})
export type Asset = z.infer<typeof asset>

export const assetsResponse = z.union([asset, z.array(asset)])
export type AssetsResponse = z.infer<typeof assetsResponse>

// --- GET /{market}/book ------------------------------------------------------------------------

/** Path parameter of the `/{market}/...` endpoints. */
export const marketPath = z.strictObject({ market: marketId })
export type MarketPath = z.infer<typeof marketPath>

export const bookRequest = z.strictObject({ depth: integerParameter(1, bookDepthMax).optional() })
export type BookRequest = z.input<typeof bookRequest>

/** `[price, size]`; size is the total at that price, `"0"` in an update deletes the level. */
export const priceLevel = z.tuple([positiveDecimalString, nonNegativeDecimalString])
export type PriceLevel = z.infer<typeof priceLevel>

/**
 * A book snapshot: bids best (highest) first, asks best (lowest) first. `nonce` is that of the
 * last published `book` event (§6.4).
 */
export const bookResponse = z.object({
  market: marketId,
  nonce: z.int().min(0),
  bids: z.array(priceLevel),
  asks: z.array(priceLevel),
  timestamp: timestampMs.optional(),
})
export type BookResponse = z.infer<typeof bookResponse>

// --- GET /{market}/trades ----------------------------------------------------------------------

export const publicTradesRequest = z
  .strictObject({
    limit: integerParameter(1, tradesLimitMax).optional(),
    start: timestampParameter.optional(),
    end: timestampParameter.optional(),
    tradeIdFrom: idString.optional(),
    tradeIdTo: idString.optional(),
  })
  .superRefine(endWithinOneDayOfStart)
export type PublicTradesRequest = z.input<typeof publicTradesRequest>

/** A public trade; `side` is the taker's side. */
export const publicTrade = z.object({
  id: idString,
  timestamp: timestampMs,
  amount: positiveDecimalString,
  price: positiveDecimalString,
  side,
})
export type PublicTrade = z.infer<typeof publicTrade>

export const publicTradesResponse = z.array(publicTrade)

// --- GET /{market}/candles ---------------------------------------------------------------------

export const candlesRequest = z.strictObject({
  interval: candleInterval,
  limit: integerParameter(1, candlesLimitMax).optional(),
  start: timestampParameter.optional(),
  end: timestampParameter.optional(),
})
export type CandlesRequest = z.input<typeof candlesRequest>

/** `[timestamp, open, high, low, close, volume]`. The timestamp is an integer (not a string). */
export const candle = z.tuple([
  timestampMs,
  positiveDecimalString,
  positiveDecimalString,
  positiveDecimalString,
  positiveDecimalString,
  nonNegativeDecimalString,
])
export type Candle = z.infer<typeof candle>

/** Newest first; intervals without trades have no candle. */
export const candlesResponse = z.array(candle)

// --- GET /ticker/price, /ticker/book, /ticker/24h ---------------------------------------------

export const tickerRequest = z.strictObject({ market: marketId.optional() })
export type TickerRequest = z.infer<typeof tickerRequest>

/** Ticker values are null while a market has no trade or no order on a side. */
const nullableDecimal = decimalString.nullable()
const nullableAmount = nonNegativeDecimalString.nullable()

export const tickerPrice = z.object({ market: marketId, price: nullableDecimal })
export type TickerPrice = z.infer<typeof tickerPrice>
export const tickerPriceResponse = z.union([tickerPrice, z.array(tickerPrice)])

export const tickerBook = z.object({
  market: marketId,
  bid: nullableDecimal,
  bidSize: nullableAmount,
  ask: nullableDecimal,
  askSize: nullableAmount,
})
export type TickerBook = z.infer<typeof tickerBook>
export const tickerBookResponse = z.union([tickerBook, z.array(tickerBook)])

/** 24 h statistics. `volume` is in base units, `volumeQuote` in quote units. */
export const ticker24h = z.object({
  market: marketId,
  startTimestamp: timestampMs,
  timestamp: timestampMs,
  open: nullableDecimal,
  openTimestamp: timestampMs.nullable(),
  high: nullableDecimal,
  low: nullableDecimal,
  last: nullableDecimal,
  closeTimestamp: timestampMs.nullable(),
  bid: nullableDecimal,
  bidSize: nullableAmount,
  ask: nullableDecimal,
  askSize: nullableAmount,
  volume: nonNegativeDecimalString,
  volumeQuote: nonNegativeDecimalString,
})
export type Ticker24h = z.infer<typeof ticker24h>
export const ticker24hResponse = z.union([ticker24h, z.array(ticker24h)])

// --- GET /report/{market}/book, /report/{market}/trades (MiCA format; optional) -----------------
// The protocol only says "MiCA report format"; the fields follow Bitvavo's docs pages
// "Get order book report" and "Get trades report".

const reportLevel = z.object({
  side: z.enum(['BUYI', 'SELL']),
  price: positiveDecimalString,
  quantity: nonNegativeDecimalString,
  numOrders: z.int().min(0),
})

export const reportBookResponse = z.object({
  submissionTimestamp: z.iso.datetime(),
  assetCode: z.string(),
  assetName: z.string(),
  bids: z.array(reportLevel),
  asks: z.array(reportLevel),
  priceCurrency: z.string(),
  priceNotation: z.literal('MONE'),
  quantityCurrency: z.string(),
  quantityNotation: z.literal('CRYP'),
  venue: z.string(),
  tradingSystem: z.string(),
  publicationTimestamp: z.iso.datetime(),
})
export type ReportBookResponse = z.infer<typeof reportBookResponse>

export const reportTrade = z.object({
  tradeId: idString,
  transactTimestamp: z.iso.datetime(),
  assetCode: z.string(),
  assetName: z.string(),
  price: z.union([positiveDecimalString, z.literal('')]),
  /** PNDG (pending) or NOAP (not applicable; may be empty). */
  missingPrice: z.enum(['PNDG', 'NOAP', '']).optional(),
  priceNotation: z.literal('MONE'),
  priceCurrency: z.string(),
  quantity: nonNegativeDecimalString,
  quantityCurrency: z.string(),
  quantityNotation: z.literal('CRYP'),
  venue: z.string(),
  publicationTimestamp: z.iso.datetime(),
  publicationVenue: z.string(),
})
export type ReportTrade = z.infer<typeof reportTrade>
export const reportTradesResponse = z.array(reportTrade)
