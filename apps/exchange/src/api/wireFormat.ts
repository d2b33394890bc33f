// Engine integers to protocol decimal strings (§4), in one place for REST, WebSocket and events.
import {
  type BookDelta,
  type BookSnapshot,
  type FillEvent,
  formatAmount,
  formatPrice,
  formatQuote,
  type MarketSpec,
  type OrderState,
  orderToWire,
  type TradeEvent,
} from '@polder/engine'
import type { Candle, Stats24h } from '../core/marketStats.ts'
import { formatLedgerUnits, toLedgerUnits } from '../ledger/ledger.ts'

export type Level = readonly [number, number]

export function levelsToWire(spec: MarketSpec, levels: readonly Level[]): [string, string][] {
  return levels.map(([price, size]) => [formatPrice(spec, price), formatAmount(spec, size)])
}

export function bookToWire(
  spec: MarketSpec,
  book: BookSnapshot | BookDelta,
): Record<string, unknown> {
  return {
    market: book.market,
    nonce: book.nonce,
    bids: levelsToWire(spec, book.bids),
    asks: levelsToWire(spec, book.asks),
  }
}

/** A fill inside an order object (§4.3). Fills settle at once here, so `settled` is true. */
export function fillToWire(spec: MarketSpec, fill: FillEvent): Record<string, unknown> {
  return {
    id: String(fill.fillId),
    timestamp: fill.timestamp,
    amount: formatAmount(spec, fill.amount),
    price: formatPrice(spec, fill.price),
    taker: fill.taker,
    fee: formatQuote(spec, fill.fee),
    feeCurrency: fill.feeCurrency,
    settled: true,
  }
}

/** The `fill` event of the account channel (§6.3). */
export function fillEventToWire(spec: MarketSpec, fill: FillEvent): Record<string, unknown> {
  return {
    event: 'fill',
    timestamp: fill.timestamp,
    market: fill.market,
    orderId: fill.orderId,
    ...(fill.clientOrderId === null ? {} : { clientOrderId: fill.clientOrderId }),
    fillId: String(fill.fillId),
    side: fill.side,
    amount: formatAmount(spec, fill.amount),
    price: formatPrice(spec, fill.price),
    taker: fill.taker,
    fee: formatQuote(spec, fill.fee),
    feeCurrency: fill.feeCurrency,
  }
}

/** The full order object (§4.2): the engine's fields plus funds on hold and the fills. */
export function orderObject(
  spec: MarketSpec,
  state: OrderState,
  heldLedgerUnits: bigint,
  fills: readonly FillEvent[],
  assetDecimals: (asset: string) => number,
): Record<string, unknown> {
  const wire = withHold(spec, state, heldLedgerUnits, assetDecimals)
  wire.fills = fills.map((fill) => fillToWire(spec, fill))
  return wire
}

/** The `order` event of the account channel (§6.3): the order object without its fills. */
export function orderEventText(
  spec: MarketSpec,
  state: OrderState,
  heldLedgerUnits: bigint,
  assetDecimals: (asset: string) => number,
): string {
  const wire = withHold(spec, state, heldLedgerUnits, assetDecimals)
  // `event` first, then the object's own text: no copy of the object to put it in front.
  return `{"event":"order",${JSON.stringify(wire).slice(1)}`
}

/**
 * The engine's wire fields with the funds on hold, added to that new object in place (spreading
 * it into another copied its 25 fields once more for every order answered).
 */
function withHold(
  spec: MarketSpec,
  state: OrderState,
  heldLedgerUnits: bigint,
  assetDecimals: (asset: string) => number,
): Record<string, unknown> {
  const wire = orderToWire(spec, state)
  const onHoldCurrency = state.side === 'buy' ? spec.quote : spec.base
  wire.onHold = formatLedgerUnits(heldLedgerUnits, assetDecimals(onHoldCurrency))
  wire.onHoldCurrency = onHoldCurrency
  return wire
}

/** A public trade (REST `/{market}/trades` row, and the `trade` event without `event`). */
export function tradeToWire(spec: MarketSpec, trade: TradeEvent): Record<string, unknown> {
  return {
    id: String(trade.tradeId),
    timestamp: trade.timestamp,
    amount: formatAmount(spec, trade.amount),
    price: formatPrice(spec, trade.price),
    side: trade.side,
  }
}

/**
 * What every MiCA report row names (Bitvavo's "Get order book report" and "Get trades report"):
 * the asset by symbol (no DTI codes here), the currencies of price and quantity, and the venue
 * by its Market Identifier Code.
 */
export type ReportContext = { spec: MarketSpec; assetName: string; venue: string }

/** An ISO 8601 time in UTC to the millisecond, the precision the exchange keeps. */
function reportTime(ms: number): string {
  return new Date(ms).toISOString()
}

/** `/report/{market}/book`: levels best first, each with its number of resting orders. */
export function bookReportToWire(
  { spec, assetName, venue }: ReportContext,
  book: { bids: readonly (readonly [number, number, number])[]; asks: typeof book.bids },
  nowMs: number,
): Record<string, unknown> {
  const levels = (side: 'BUYI' | 'SELL', levels: typeof book.bids) =>
    levels.map(([price, size, orders]) => ({
      side,
      price: formatPrice(spec, price),
      quantity: formatAmount(spec, size),
      numOrders: orders,
    }))
  return {
    submissionTimestamp: reportTime(nowMs),
    assetCode: spec.base,
    assetName,
    bids: levels('BUYI', book.bids),
    asks: levels('SELL', book.asks),
    priceCurrency: spec.quote,
    priceNotation: 'MONE',
    quantityCurrency: spec.base,
    quantityNotation: 'CRYP',
    venue,
    tradingSystem: venue,
    publicationTimestamp: reportTime(nowMs),
  }
}

/**
 * `/report/{market}/trades`: a public trade as a MiCA post-trade row. Its price is always known
 * (never pending, never not applicable), so `missingPrice` is empty, as the docs allow; a trade
 * is published as it is recorded, so both its times are the trade's.
 */
export function tradeReportToWire(
  { spec, assetName, venue }: ReportContext,
  trade: TradeEvent,
): Record<string, unknown> {
  return {
    tradeId: String(trade.tradeId),
    transactTimestamp: reportTime(trade.timestamp),
    assetCode: spec.base,
    assetName,
    price: formatPrice(spec, trade.price),
    missingPrice: '',
    priceNotation: 'MONE',
    priceCurrency: spec.quote,
    quantity: formatAmount(spec, trade.amount),
    quantityCurrency: spec.base,
    quantityNotation: 'CRYP',
    venue,
    publicationTimestamp: reportTime(trade.timestamp),
    publicationVenue: venue,
  }
}

/** Quote units of a market as a decimal string at the market's notional precision (rounded down). */
export function quoteVolumeToWire(spec: MarketSpec, quoteUnits: bigint): string {
  return formatLedgerUnits(toLedgerUnits(quoteUnits, spec.quoteDecimals), spec.notionalDecimals)
}

/** `[timestamp, open, high, low, close, volume]` (protocol §3.1). */
export function candleToWire(
  spec: MarketSpec,
  candle: Candle,
): [number, string, string, string, string, string] {
  return [
    candle.timestamp,
    formatPrice(spec, candle.open),
    formatPrice(spec, candle.high),
    formatPrice(spec, candle.low),
    formatPrice(spec, candle.close),
    formatAmount(spec, candle.volume),
  ]
}

type BestPrices = {
  bestBid: number
  bestBidSize: number
  bestAsk: number
  bestAskSize: number
} | null

/** The 24-hour ticker (REST `/ticker/24h` and the entries of the `ticker24h` event). */
export function ticker24hToWire(
  spec: MarketSpec,
  stats: Stats24h,
  best: BestPrices,
  nowMs: number,
): Record<string, unknown> {
  const price = (units: number | null | undefined) => (units ? formatPrice(spec, units) : null)
  const size = (units: number | undefined, present: boolean) =>
    present && units !== undefined ? formatAmount(spec, units) : null
  return {
    market: spec.market,
    startTimestamp: nowMs - 86_400_000,
    timestamp: nowMs,
    open: price(stats.open),
    openTimestamp: stats.openTimestamp,
    high: price(stats.high),
    low: price(stats.low),
    last: price(stats.last),
    closeTimestamp: stats.closeTimestamp,
    bid: price(best?.bestBid),
    bidSize: size(best?.bestBidSize, Boolean(best?.bestBid)),
    ask: price(best?.bestAsk),
    askSize: size(best?.bestAskSize, Boolean(best?.bestAsk)),
    volume: formatAmount(spec, stats.volume),
    volumeQuote: quoteVolumeToWire(spec, stats.volumeQuote),
  }
}
