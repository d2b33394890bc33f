import { floorDiv } from './arithmetic.ts'
import type { Book, BookKind } from './book.ts'
import { significantDigits } from './decimal.ts'
import { DirtyLevels } from './dirty-levels.ts'
import {
  EngineConfigError,
  ErrorCode,
  type ErrorCodeValue,
  invariant,
  type Rejection,
  reject,
} from './errors.ts'
import { FastBook, type FastLevel } from './fast-book.ts'
import { feeOfFill, type OrderFees } from './fees.ts'
import { feePpmMax, type MarketSpec, marketSpecFromConfig, ppmScale } from './market.ts'
import { OpenCounts } from './open-counts.ts'
import {
  fromState,
  hasLimitPrice,
  hasTrigger,
  isOpenStatus,
  Order,
  type OrderState,
  toState,
} from './order.ts'
import { ClosedOrder, hashOrderId, type IndexedOrder, OrderIndex } from './order-index.ts'
import { ReferenceBook } from './reference-book.ts'
import type {
  AddMarket,
  CancelOrder,
  CancelOrders,
  Command,
  FlushBook,
  MarketConfig,
  MarketStatus,
  OrderStatus,
  OrderType,
  PlaceOrder,
  RestatementReason,
  SelfTradePrevention,
  SetMarketStatus,
  Side,
  TimeInForce,
  TriggerReference,
  UpdateOrder,
} from './types.ts'

/** One match between a taker and a maker. The object is reused: copy what you keep. */
export interface Trade {
  market: string
  /** Per-market sequence, from 1; both fills and the public trade carry it. */
  tradeId: number
  timestamp: number
  price: number
  amount: number
  /** price × amount in quote units. */
  quote: number
  takerSide: Side
  taker: Order
  maker: Order
  takerFee: number
  makerFee: number
}

/** Best bid, best ask and last price of a market; 0 means none. Reused: copy what you keep. */
export interface Ticker {
  market: string
  bestBid: number
  bestBidSize: number
  bestAsk: number
  bestAskSize: number
  lastPrice: number
}

/** The changed levels of one published batch. `size` 0 removes the level. */
export interface BookDelta {
  readonly market: string
  readonly nonce: number
  readonly timestamp: number
  /** [price, size] best first. */
  readonly bids: readonly (readonly [number, number])[]
  readonly asks: readonly (readonly [number, number])[]
}

export interface BookSnapshot {
  readonly market: string
  /** The snapshot is the state after the batch with this nonce (0: before any batch). */
  readonly nonce: number
  readonly bids: readonly (readonly [number, number])[]
  readonly asks: readonly (readonly [number, number])[]
}

/**
 * Receives the events synchronously, in order, while a command runs. Objects passed in are live
 * engine records or reused scratch objects: read them in the callback, copy what you keep.
 */
export interface EngineSink {
  order(order: Order, market: MarketSpec): void
  trade(trade: Trade, market: MarketSpec): void
  ticker(ticker: Ticker, market: MarketSpec): void
  book(delta: BookDelta, market: MarketSpec): void
}

export interface Accepted {
  readonly ok: true
}

export interface CancelOrdersAccepted {
  readonly ok: true
  readonly orderIds: readonly string[]
}

export type CommandResult = Accepted | CancelOrdersAccepted | Rejection

const accepted: Accepted = Object.freeze({ ok: true })

export const closedOrdersRememberedMaxDefault = 1_000
const orderPoolMax = 1 << 16
const clientOrderIdLengthMax = 64
const orderIdLengthMax = 64

export interface EngineOptions {
  /** Which book implementation to use. Default 'fast'. */
  readonly book?: BookKind
  readonly sink?: EngineSink
  /**
   * How many of the most recently closed orders the engine remembers (engine-wide, default
   * 1,000), so a cancel or update of one gives 233 (234 for a market order) instead of 240, and
   * its id cannot be reused meanwhile. Older history is the server's (it stores every order).
   */
  readonly closedOrdersRememberedMax?: number
}

export interface OrderSnapshot {
  readonly state: OrderState
  readonly makerFeePpm: number
  readonly takerFeePpm: number
  readonly seq: number
  /** Cancel-on-disconnect group; absent when none. */
  readonly codGroupId?: number
  /** Present for an order placed with `feeRules` 2: its fee rules and its notional filled as maker. */
  readonly feeRules?: 2
  readonly makerFilledQuote?: number
}

export interface MarketSnapshot {
  readonly config: MarketConfig
  readonly status: MarketStatus
  readonly nonce: number
  readonly tradeSeq: number
  readonly lastPrice: number
  /** Open orders in placement order. */
  readonly orders: readonly OrderSnapshot[]
  /** Resting order ids in priority order. */
  readonly bids: readonly string[]
  readonly asks: readonly string[]
  readonly triggers: readonly string[]
  /** Levels changed since the last published batch, with their published size. */
  readonly dirtyBids: readonly (readonly [number, number])[]
  readonly dirtyAsks: readonly (readonly [number, number])[]
  readonly ticker: readonly [number, number, number, number, number]
}

/** The whole engine state as plain JSON. */
export interface EngineSnapshot {
  readonly version: 1
  readonly seq: number
  readonly closedOrdersRememberedMax: number
  readonly markets: readonly MarketSnapshot[]
  /** Recently closed orders, oldest first: [orderId, market, accountId, orderType, status]. */
  readonly closed: readonly (readonly [string, string, number, OrderType, OrderStatus])[]
}

class MarketState {
  readonly spec: MarketSpec
  readonly book: Book
  /** This market's entries in the engine's order index (open and remembered closed orders). */
  indexed = 0
  /** Open orders by `${accountId} ${clientOrderId}`. */
  readonly clientIds = new Map<string, Order>()
  /** Dense index of the market in the engine (key of the open-order counts). */
  readonly index: number
  /** Orders awaiting their trigger, in placement order (the order in which they fire). */
  readonly triggers: Order[] = []
  lastPrice = 0
  tradeSeq = 0
  nonce = 0
  /** price → size at the last published batch, for levels changed since. */
  /** Counts the batches (published or not); levels marked in this one carry it (FastLevel). */
  dirtyGen = 1
  readonly dirtyBids = new DirtyLevels()
  readonly dirtyAsks = new DirtyLevels()
  readonly ticker: Ticker

  constructor(spec: MarketSpec, book: Book, index: number) {
    this.spec = spec
    this.book = book
    this.index = index
    this.ticker = {
      market: spec.market,
      bestBid: 0,
      bestBidSize: 0,
      bestAsk: 0,
      bestAskSize: 0,
      lastPrice: 0,
    }
  }
}

/** An update checked against its order and market, with the order's new values. */
interface UpdatePlan {
  readonly ok: true
  readonly market: MarketState
  readonly order: Order
  /** The order awaits its trigger (it is not in the book). */
  readonly waiting: boolean
  readonly price: number
  readonly triggerAmount: number
  readonly amount: number
  readonly amountRemaining: number
  readonly amountQuote: number
  readonly timeInForce: TimeInForce
  readonly selfTradePrevention: SelfTradePrevention
  readonly postOnly: boolean
}

const noopSink: EngineSink = {
  order() {},
  trade() {},
  ticker() {},
  book() {},
}

/** Cancel-on-disconnect groups are 1..1000, as the protocol's docs give them. */
function isCodGroupId(value: unknown): value is number {
  return Number.isInteger(value) && (value as number) >= 1 && (value as number) <= 1000
}

/** clientOrderIds are unique per account (protocol §4.1): another account may use the same. */
function clientKey(accountId: number, clientOrderId: string): string {
  return `${accountId} ${clientOrderId}`
}

function opposite(side: Side): Side {
  return side === 'buy' ? 'sell' : 'buy'
}

function isPositiveSafeInteger(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value > 0
}

const triggerReferenceValues: readonly TriggerReference[] = [
  'lastTrade',
  'bestBid',
  'bestAsk',
  'midPrice',
]

export class Engine {
  private readonly markets = new Map<string, MarketState>()
  private readonly bookKind: BookKind
  private readonly sink: EngineSink
  private readonly closedOrdersRememberedMax: number
  /**
   * The most recently closed orders, engine-wide, oldest at `closedHead`, as small records that
   * take the order's place in the order index until they leave this ring (and are reused for
   * the next closed order), so a late cancel or update finds them (233, 234) and the id cannot
   * be reused meanwhile. The order record itself goes back to the pool when its command ends.
   */
  private readonly closedRing: ClosedOrder[] = []
  private closedHead = 0
  /** Markets by their dense index. */
  private readonly marketList: MarketState[] = []
  private seq = 0
  /** Counts `open` calls: the placement order of open orders (Order.openSeq). */
  private openSeq = 0
  private readonly pool: Order[] = []
  private readonly released: Order[] = []
  /** Open orders per account and market (error 235). */
  private readonly openCounts = new OpenCounts()
  /** Open and remembered closed orders by (market, orderId). */
  private readonly orderIndex = new OrderIndex()
  /** The orderId hash computed by validatePlace, for placeOrder. */
  private placeHash = 0
  private readonly trade: Trade
  private readonly scratchLevels: number[] = []

  constructor(options: EngineOptions = {}) {
    this.bookKind = options.book ?? 'fast'
    this.sink = options.sink ?? noopSink
    const remembered = options.closedOrdersRememberedMax ?? closedOrdersRememberedMaxDefault
    if (!Number.isInteger(remembered) || remembered < 1) {
      throw new EngineConfigError('closedOrdersRememberedMax must be an integer >= 1')
    }
    this.closedOrdersRememberedMax = remembered
    // The reused trade record starts out pointing at an empty order; every fill overwrites both.
    const noOrder = new Order()
    this.trade = {
      market: '',
      tradeId: 0,
      timestamp: 0,
      price: 0,
      amount: 0,
      quote: 0,
      takerSide: 'buy',
      taker: noOrder,
      maker: noOrder,
      takerFee: 0,
      makerFee: 0,
    }
  }

  /** Runs any command. Same effect as calling the method named by `command.type`. */
  execute(command: Command): CommandResult {
    switch (command.type) {
      case 'placeOrder':
        return this.placeOrder(command)
      case 'cancelOrder':
        return this.cancelOrder(command)
      case 'updateOrder':
        return this.updateOrder(command)
      case 'cancelOrders':
        return this.cancelOrders(command)
      case 'flushBook':
        if (!this.markets.has(command.market)) return reject(ErrorCode.parameterInvalid, 'market')
        this.flushBook(command)
        return accepted
      case 'addMarket':
        return this.addMarket(command)
      case 'setMarketStatus':
        return this.setMarketStatus(command)
    }
  }

  addMarket(command: AddMarket): Accepted {
    const spec = marketSpecFromConfig(command.config)
    if (this.markets.has(spec.market)) {
      throw new EngineConfigError(`market ${spec.market} already exists`)
    }
    const book: Book = this.bookKind === 'fast' ? new FastBook() : new ReferenceBook()
    const market = new MarketState(spec, book, this.markets.size)
    this.markets.set(spec.market, market)
    this.marketList.push(market)
    return accepted
  }

  setMarketStatus(command: SetMarketStatus): Accepted | Rejection {
    const market = this.markets.get(command.market)
    if (market === undefined) return reject(ErrorCode.parameterInvalid, 'market')
    if (
      !['trading', 'halted', 'auction', 'auctionMatching', 'cancelOnly'].includes(command.status)
    ) {
      return reject(ErrorCode.parameterInvalid, 'status')
    }
    market.spec.status = command.status
    this.afterCommand(market, command.timestamp)
    return accepted
  }

  /**
   * What `placeOrder(command)` would be refused with for the command itself (its market, its
   * parameters against the market's rules), without placing it; null when it would be placed.
   * The exchange asks before refusing an order for the balance, so that an invalid order gets
   * the same answer whatever its owner holds.
   */
  placeRejection(command: PlaceOrder): Rejection | null {
    const market = this.placeTarget(command)
    return market instanceof MarketState ? null : market
  }

  /** The market `command` would be placed in, or why it would be refused. */
  private placeTarget(command: PlaceOrder): MarketState | Rejection {
    const market = this.markets.get(command.market)
    if (market === undefined) return reject(ErrorCode.parameterInvalid, 'market')
    return tradingRejection(market.spec.status) ?? this.validatePlace(market, command) ?? market
  }

  placeOrder(command: PlaceOrder): Accepted | Rejection {
    const market = this.placeTarget(command)
    if (!(market instanceof MarketState)) return market
    const spec = market.spec
    const order = this.pool.pop() ?? new Order()
    const orderType = command.orderType
    const byQuote = command.amountQuote !== undefined
    order.orderId = command.orderId
    order.idHash = this.placeHash
    order.marketIndex = market.index
    order.clientOrderId = command.clientOrderId ?? null
    order.market = spec.market
    order.accountId = command.accountId
    order.operatorId = command.operatorId ?? 0
    order.codGroupId = command.codGroupId ?? 0
    order.side = command.side
    order.orderType = orderType
    order.byQuote = byQuote
    if (byQuote) {
      order.amountQuote = command.amountQuote as number
      order.amountQuoteRemaining = order.amountQuote
    } else {
      order.amount = command.amount as number
      order.amountRemaining = order.amount
    }
    order.price = hasLimitPrice(orderType) ? (command.price as number) : 0
    order.timeInForce = hasLimitPrice(orderType) ? (command.timeInForce ?? 'GTC') : 'IOC'
    order.postOnly = command.postOnly === true
    order.selfTradePrevention = command.selfTradePrevention ?? 'decrementAndCancel'
    order.disableMarketProtection = command.disableMarketProtection === true
    order.created = command.timestamp
    order.updated = command.timestamp
    order.makerFeePpm = command.makerFeePpm
    order.takerFeePpm = command.takerFeePpm
    order.feeRules = command.feeRules ?? 1
    if (hasTrigger(orderType)) {
      this.open(market, order)
      order.triggerAmount = command.triggerAmount as number
      order.triggerType = 'price'
      order.triggerReference = command.triggerReference as TriggerReference
      order.status = 'awaitingTrigger'
      market.triggers.push(order)
      this.sink.order(order, spec)
    } else {
      order.status = 'new'
      this.run(market, order, command.timestamp)
    }
    this.afterCommand(market, command.timestamp)
    return accepted
  }

  cancelOrder(command: CancelOrder): Accepted | Rejection {
    const market = this.markets.get(command.market)
    if (market === undefined) return reject(ErrorCode.parameterInvalid, 'market')
    const found = this.findOrder(market, command, false)
    if (!(found instanceof Order)) return found
    this.cancelOpen(market, found, 'canceled', null, command.timestamp)
    this.afterCommand(market, command.timestamp)
    return accepted
  }

  cancelOrders(command: CancelOrders): CancelOrdersAccepted | Rejection {
    let markets: MarketState[]
    if (command.market === undefined) {
      markets = [...this.markets.values()]
    } else {
      const market = this.markets.get(command.market)
      if (market === undefined) return reject(ErrorCode.parameterInvalid, 'market')
      markets = [market]
    }
    const group = command.codGroupId
    if (group !== undefined && !isCodGroupId(group)) {
      return reject(ErrorCode.parameterInvalid, 'codGroupId')
    }
    const reason = group === undefined ? null : 'cancelOnDisconnect'
    const orderIds: string[] = []
    for (const market of markets) {
      const mine: Order[] = []
      for (const order of this.openList(market)) {
        if (order.accountId !== command.accountId) continue
        if (group === undefined || order.codGroupId === group) mine.push(order)
      }
      for (const order of mine) {
        orderIds.push(order.orderId)
        this.cancelOpen(market, order, 'canceled', reason, command.timestamp)
      }
      this.afterCommand(market, command.timestamp)
    }
    return { ok: true, orderIds }
  }

  /** The order `command` would change and its new values, or why it would be refused. */
  private planUpdate(command: UpdateOrder): UpdatePlan | Rejection {
    const market = this.markets.get(command.market)
    if (market === undefined) return reject(ErrorCode.parameterInvalid, 'market')
    const statusRejection = tradingRejection(market.spec.status)
    if (statusRejection !== null) return statusRejection
    const found = this.findOrder(market, command, true)
    if (!(found instanceof Order)) return found
    const order = found
    const spec = market.spec
    const amountGiven = command.amount !== undefined
    const remainingGiven = command.amountRemaining !== undefined
    const quoteGiven = command.amountQuote !== undefined
    if (Number(amountGiven) + Number(remainingGiven) + Number(quoteGiven) > 1) {
      return reject(ErrorCode.updateOneAmountOnly)
    }
    if ((quoteGiven && !order.byQuote) || ((amountGiven || remainingGiven) && order.byQuote)) {
      return reject(ErrorCode.updateCannotSwitchAmountKind)
    }
    const limitType = hasLimitPrice(order.orderType)
    const waiting = order.status === 'awaitingTrigger'
    if (command.price !== undefined && !limitType) {
      return reject(ErrorCode.orderParameterNotSupported, 'price')
    }
    if (command.postOnly !== undefined && !limitType) {
      return reject(ErrorCode.orderParameterNotSupported, 'postOnly')
    }
    if (command.triggerAmount !== undefined) {
      if (!hasTrigger(order.orderType)) {
        return reject(ErrorCode.orderParameterNotSupported, 'triggerAmount')
      }
      if (!waiting) return reject(ErrorCode.parameterInvalid, 'triggerAmount')
    }
    if (command.timeInForce !== undefined) {
      if (!limitType) return reject(ErrorCode.orderParameterNotSupported, 'timeInForce')
      if (!isTimeInForce(command.timeInForce)) {
        return reject(ErrorCode.parameterInvalid, 'timeInForce')
      }
      // A resting order must stay GTC: IOC or FOK cannot rest.
      if (!waiting && command.timeInForce !== 'GTC') {
        return reject(ErrorCode.parameterInvalid, 'timeInForce')
      }
    }
    if (command.postOnly !== undefined && typeof command.postOnly !== 'boolean') {
      return reject(ErrorCode.parameterInvalid, 'postOnly')
    }
    if (
      command.selfTradePrevention !== undefined &&
      !isSelfTradePrevention(command.selfTradePrevention)
    ) {
      return reject(ErrorCode.parameterInvalid, 'selfTradePrevention')
    }
    const price = command.price ?? order.price
    if (command.price !== undefined) {
      const invalid = validatePrice(spec, command.price, 'price')
      if (invalid !== null) return invalid
    }
    const triggerAmount = command.triggerAmount ?? order.triggerAmount
    if (command.triggerAmount !== undefined) {
      const invalid = validatePrice(spec, command.triggerAmount, 'triggerAmount')
      if (invalid !== null) return invalid
    }
    let amount = order.amount
    let amountRemaining = order.amountRemaining
    if (amountGiven || remainingGiven) {
      const given = (amountGiven ? command.amount : command.amountRemaining) as number
      const name = amountGiven ? 'amount' : 'amountRemaining'
      if (!isPositiveSafeInteger(given)) return reject(ErrorCode.parameterInvalid, name)
      amount = amountGiven ? given : order.filledAmount + given
      if (amount <= order.filledAmount) return reject(ErrorCode.parameterInvalid, name)
      if (amount > spec.maxAmount) return reject(ErrorCode.amountAboveMaximum)
      if (amount < spec.minAmount) return reject(ErrorCode.amountBelowMinimum)
      amountRemaining = amount - order.filledAmount
    }
    let amountQuote = order.amountQuote
    if (quoteGiven) {
      const invalid = validateQuote(spec, command.amountQuote)
      if (invalid !== null) return invalid
      amountQuote = command.amountQuote as number
      if (amountQuote <= order.filledAmountQuote) {
        return reject(ErrorCode.parameterInvalid, 'amountQuote')
      }
    }
    if (limitType) {
      const invalid = validateNotional(spec, price, amount)
      if (invalid !== null) return invalid
    }
    const timeInForce = command.timeInForce ?? order.timeInForce
    const selfTradePrevention = command.selfTradePrevention ?? order.selfTradePrevention
    const postOnly = command.postOnly ?? order.postOnly
    const changed =
      price !== order.price ||
      triggerAmount !== order.triggerAmount ||
      amount !== order.amount ||
      amountQuote !== order.amountQuote ||
      timeInForce !== order.timeInForce ||
      selfTradePrevention !== order.selfTradePrevention ||
      postOnly !== order.postOnly
    if (!changed) return reject(ErrorCode.updateChangesNothing)
    return {
      ok: true,
      market,
      order,
      waiting,
      price,
      triggerAmount,
      amount,
      amountRemaining,
      amountQuote,
      timeInForce,
      selfTradePrevention,
      postOnly,
    }
  }

  /**
   * What `updateOrder(command)` would be refused with (its market, its order, its parameters
   * against the market's rules), without changing anything; null when it would be applied. The
   * exchange asks before refusing an update for the balance, as it does for a new order.
   */
  updateRejection(command: UpdateOrder): Rejection | null {
    const plan = this.planUpdate(command)
    return plan.ok ? null : plan
  }

  updateOrder(command: UpdateOrder): Accepted | Rejection {
    const plan = this.planUpdate(command)
    if (!plan.ok) return plan
    const { market, order, waiting, price, amount, amountRemaining, amountQuote } = plan
    const spec = market.spec
    const timestamp = command.timestamp
    order.updated = timestamp
    order.restatementReason = null
    order.timeInForce = plan.timeInForce
    order.selfTradePrevention = plan.selfTradePrevention
    order.postOnly = plan.postOnly
    order.triggerAmount = plan.triggerAmount
    if (waiting) {
      order.price = price
      order.amount = amount
      order.amountRemaining = amountRemaining
      order.amountQuote = amountQuote
      order.amountQuoteRemaining = amountQuote - order.filledAmountQuote
      this.sink.order(order, spec)
    } else if (price !== order.price || amountRemaining > order.amountRemaining) {
      // Loses time priority: leaves the book and comes back as a new arrival at its new price,
      // taking liquidity first if the new price crosses.
      this.markDirty(market, order.side, order.price, order.level)
      market.book.remove(order)
      order.visible = false
      order.price = price
      order.amount = amount
      order.amountRemaining = amountRemaining
      this.run(market, order, timestamp)
    } else {
      if (amountRemaining < order.amountRemaining) {
        this.markDirty(market, order.side, order.price, order.level)
        market.book.reduce(order, order.amountRemaining - amountRemaining)
        order.amount = amount
        order.amountRemaining = amountRemaining
      }
      this.sink.order(order, spec)
    }
    this.afterCommand(market, timestamp)
    return accepted
  }

  /** Publishes the levels changed since the last batch; null (and no nonce change) if none. */
  flushBook(command: FlushBook): BookDelta | null {
    const market = this.markets.get(command.market)
    if (market === undefined) return null
    const book = market.book
    const bids: [number, number][] = []
    const asks: [number, number][] = []
    for (const price of market.dirtyBids.unique()) {
      const size = book.sizeAt('buy', price)
      if (size !== market.dirtyBids.publishedSize(price)) bids.push([price, size])
    }
    for (const price of market.dirtyAsks.unique()) {
      const size = book.sizeAt('sell', price)
      if (size !== market.dirtyAsks.publishedSize(price)) asks.push([price, size])
    }
    market.dirtyBids.clear()
    market.dirtyAsks.clear()
    market.dirtyGen++
    if (bids.length === 0 && asks.length === 0) return null
    for (const [price, size] of bids) market.dirtyBids.publish(price, size)
    for (const [price, size] of asks) market.dirtyAsks.publish(price, size)
    bids.sort((a, b) => b[0] - a[0])
    asks.sort((a, b) => a[0] - b[0])
    market.nonce++
    const delta: BookDelta = {
      market: market.spec.market,
      nonce: market.nonce,
      timestamp: command.timestamp,
      bids,
      asks,
    }
    this.sink.book(delta, market.spec)
    return delta
  }

  /**
   * Whether a market's book changed since its last published batch (a `flushBook` would publish
   * them; it may find they came back to the published sizes and publish nothing). A restart from
   * a snapshot or the journal brings such changes back: whoever batches them must learn of them.
   */
  hasUnpublishedChanges(marketId: string): boolean {
    const market = this.markets.get(marketId)
    return market !== undefined && (market.dirtyBids.changed || market.dirtyAsks.changed)
  }

  /**
   * The book as of the last published batch (unpublished changes are left out, so the snapshot
   * and the next delta fit together exactly), `depthMax` levels per side.
   */
  bookSnapshot(marketId: string, depthMax = 1000): BookSnapshot | null {
    const market = this.markets.get(marketId)
    if (market === undefined) return null
    const side = (name: Side): [number, number][] => {
      const dirty = name === 'buy' ? market.dirtyBids : market.dirtyAsks
      const levels = [...dirty.published.entries()]
      levels.sort(name === 'buy' ? (a, b) => b[0] - a[0] : (a, b) => a[0] - b[0])
      return levels.slice(0, depthMax)
    }
    return { market: marketId, nonce: market.nonce, bids: side('buy'), asks: side('sell') }
  }

  /** Current best bid/ask and last price (a copy). */
  ticker(marketId: string): Ticker | null {
    const market = this.markets.get(marketId)
    if (market === undefined) return null
    const book = market.book
    const bestBid = book.bestPrice('buy')
    const bestAsk = book.bestPrice('sell')
    return {
      market: marketId,
      bestBid,
      bestBidSize: bestBid === 0 ? 0 : book.sizeAt('buy', bestBid),
      bestAsk,
      bestAskSize: bestAsk === 0 ? 0 : book.sizeAt('sell', bestAsk),
      lastPrice: market.lastPrice,
    }
  }

  market(marketId: string): MarketSpec | null {
    return this.markets.get(marketId)?.spec ?? null
  }

  marketIds(): string[] {
    return [...this.markets.keys()]
  }

  /** Open orders of a market (optionally of one account), in placement order, as plain copies. */
  openOrders(marketId: string, accountId?: number): OrderState[] {
    const market = this.markets.get(marketId)
    if (market === undefined) return []
    const states: OrderState[] = []
    for (const order of this.openList(market)) {
      if (accountId === undefined || order.accountId === accountId) {
        states.push(toState(order, market.spec.quote))
      }
    }
    return states
  }

  getOrder(marketId: string, orderId: string): OrderState | null {
    const market = this.markets.get(marketId)
    if (market === undefined) return null
    const order = this.lookup(market, orderId)
    return order === null || !order.registered ? null : toState(order, market.spec.quote)
  }

  /** An open order's fee rules and fills so far (for `restFeeAtMost`), or null. */
  orderFees(marketId: string, orderId: string): OrderFees | null {
    const market = this.markets.get(marketId)
    if (market === undefined) return null
    const order = this.lookup(market, orderId)
    if (order === null || !order.registered) return null
    return {
      feeRules: order.feeRules,
      makerFeePpm: order.makerFeePpm,
      takerFeePpm: order.takerFeePpm,
      filledAmountQuote: order.filledAmountQuote,
      makerFilledQuote: order.makerFilledQuote,
      feePaid: order.feePaid,
    }
  }

  /** Resting orders of one side in priority order (copies). */
  restingOrders(marketId: string, side: Side): OrderState[] {
    const market = this.markets.get(marketId)
    if (market === undefined) return []
    const states: OrderState[] = []
    market.book.forEach(side, (order) => states.push(toState(order, market.spec.quote)))
    return states
  }

  /** Current (not published) levels, best first. */
  depth(marketId: string, side: Side, depthMax = 1000): [number, number][] {
    return this.depthWithOrders(marketId, side, depthMax).map(([price, size]) => [price, size])
  }

  /**
   * Current (not published) levels, best first, each with the number of orders resting there:
   * [price, size, orders].
   */
  depthWithOrders(marketId: string, side: Side, depthMax = 1000): [number, number, number][] {
    const market = this.markets.get(marketId)
    if (market === undefined) return []
    const out: number[] = []
    market.book.levels(side, depthMax, out)
    const levels: [number, number, number][] = []
    for (let index = 0; index < out.length; index += 3) {
      levels.push([out[index] as number, out[index + 1] as number, out[index + 2] as number])
    }
    return levels
  }

  snapshot(): EngineSnapshot {
    const markets: MarketSnapshot[] = []
    for (const market of this.markets.values()) {
      const quote = market.spec.quote
      const ids = (side: Side): string[] => {
        const list: string[] = []
        market.book.forEach(side, (order) => list.push(order.orderId))
        return list
      }
      const ticker = market.ticker
      markets.push({
        config: market.spec.config,
        status: market.spec.status,
        nonce: market.nonce,
        tradeSeq: market.tradeSeq,
        lastPrice: market.lastPrice,
        orders: this.openList(market).map((order) => ({
          state: toState(order, quote),
          makerFeePpm: order.makerFeePpm,
          takerFeePpm: order.takerFeePpm,
          seq: order.seq,
          ...(order.codGroupId === 0 ? {} : { codGroupId: order.codGroupId }),
          ...(order.feeRules === 2
            ? { feeRules: 2 as const, makerFilledQuote: order.makerFilledQuote }
            : {}),
        })),
        bids: ids('buy'),
        asks: ids('sell'),
        triggers: market.triggers.map((order) => order.orderId),
        dirtyBids: dirtyEntries(market.dirtyBids),
        dirtyAsks: dirtyEntries(market.dirtyAsks),
        ticker: [
          ticker.bestBid,
          ticker.bestBidSize,
          ticker.bestAsk,
          ticker.bestAskSize,
          ticker.lastPrice,
        ],
      })
    }
    return {
      version: 1,
      seq: this.seq,
      closedOrdersRememberedMax: this.closedOrdersRememberedMax,
      markets,
      closed: this.closedOrders().map((order) => [
        order.orderId,
        (this.marketList[order.marketIndex] as MarketState).spec.market,
        order.accountId,
        order.orderType,
        order.status,
      ]),
    }
  }

  /** A new engine in exactly the state of `snapshot` (the book kind and sink may differ). */
  static restore(
    snapshot: EngineSnapshot,
    options: Omit<EngineOptions, 'closedOrdersRememberedMax'> = {},
  ): Engine {
    if (snapshot.version !== 1) throw new EngineConfigError('unknown snapshot version')
    const engine = new Engine({
      ...options,
      closedOrdersRememberedMax: snapshot.closedOrdersRememberedMax,
    })
    engine.seq = snapshot.seq
    for (const saved of snapshot.markets) {
      engine.addMarket({ type: 'addMarket', timestamp: 0, config: saved.config })
      const market = engine.markets.get(saved.config.market) as MarketState
      market.spec.status = saved.status
      market.nonce = saved.nonce
      market.tradeSeq = saved.tradeSeq
      market.lastPrice = saved.lastPrice
      for (const entry of saved.orders) {
        const order = new Order()
        fromState(order, entry.state, entry.makerFeePpm, entry.takerFeePpm, entry.seq)
        order.codGroupId = entry.codGroupId ?? 0
        order.feeRules = entry.feeRules ?? 1
        order.makerFilledQuote = entry.makerFilledQuote ?? 0
        engine.open(market, order)
      }
      const byId = (id: string): Order => {
        const order = engine.lookup(market, id)
        if (order === null || !order.registered)
          throw new EngineConfigError(`snapshot: unknown order ${id}`)
        return order
      }
      for (const id of saved.bids) market.book.insert(byId(id))
      for (const id of saved.asks) market.book.insert(byId(id))
      for (const id of saved.triggers) market.triggers.push(byId(id))
      // Published state: the current levels, except the changed ones at their published size.
      for (const [name, dirty, changed] of [
        ['buy', market.dirtyBids, saved.dirtyBids],
        ['sell', market.dirtyAsks, saved.dirtyAsks],
      ] as const) {
        const out = engine.scratchLevels
        market.book.levels(name, Number.MAX_SAFE_INTEGER, out)
        for (let index = 0; index < out.length; index += 3) {
          dirty.publish(out[index] as number, out[index + 1] as number)
        }
        for (const [price, size] of changed) {
          dirty.publish(price, size)
          dirty.mark(price)
        }
      }
      const [bestBid, bestBidSize, bestAsk, bestAskSize, lastPrice] = saved.ticker
      Object.assign(market.ticker, { bestBid, bestBidSize, bestAsk, bestAskSize, lastPrice })
    }
    for (const [orderId, marketId, accountId, orderType, status] of snapshot.closed) {
      const market = engine.markets.get(marketId)
      if (market === undefined) throw new EngineConfigError(`snapshot: unknown market ${marketId}`)
      engine.remember(market, orderId, 0, accountId, orderType, status, null)
    }
    return engine
  }

  /**
   * A 32-bit FNV-1a hash of everything that decides future behaviour: per market the status,
   * counters, last price, every resting order in priority order, the level sizes and the
   * triggers. Two engines that agree on it after every command agree on the book.
   */
  stateHash(): number {
    let hash = 0x811c9dc5
    const mix = (value: number): void => {
      const low = value % 0x1_0000_0000
      const high = Math.floor(value / 0x1_0000_0000)
      hash = Math.imul(hash ^ (low >>> 0), 0x01000193)
      hash = Math.imul(hash ^ (high >>> 0), 0x01000193)
    }
    const mixText = (text: string): void => {
      for (let index = 0; index < text.length; index++) {
        hash = Math.imul(hash ^ text.charCodeAt(index), 0x01000193)
      }
      mix(text.length)
    }
    const visit = (order: Order): void => {
      mixText(order.orderId)
      mix(order.price)
      mix(order.amountRemaining)
      mix(order.filledAmount)
      mix(order.feePaid)
      mix(order.feeRules)
      mix(order.feeRules === 2 ? order.makerFilledQuote : 0) // rules 1 never read it
      mix(order.seq)
      mix(order.codGroupId)
    }
    const out = this.scratchLevels
    for (const market of this.markets.values()) {
      mixText(market.spec.market)
      mixText(market.spec.status)
      mix(market.nonce)
      mix(market.tradeSeq)
      mix(market.lastPrice)
      mix(market.indexed)
      for (const side of ['buy', 'sell'] as const) {
        mix(market.book.orderCount(side))
        market.book.forEach(side, visit)
        market.book.levels(side, Number.MAX_SAFE_INTEGER, out)
        for (const value of out) mix(value)
      }
      for (const order of market.triggers) mixText(order.orderId)
    }
    return hash >>> 0
  }

  // ---------------------------------------------------------------------------------------------
  // Matching

  /** Executes an order that is not waiting for a trigger; emits its order event at the end. */
  private run(market: MarketState, order: Order, timestamp: number): void {
    if (hasLimitPrice(order.orderType)) this.runLimit(market, order, timestamp)
    else this.runMarket(market, order, timestamp)
    // An order is registered (open-order maps, counts) only once it rests: most takers finish
    // inside their own command and never need the maps.
    if (!isOpenStatus(order.status)) this.close(market, order)
    else if (!order.registered) this.open(market, order)
    this.sink.order(order, market.spec)
  }

  private runLimit(market: MarketState, order: Order, timestamp: number): void {
    const book = market.book
    const best = book.bestPrice(opposite(order.side))
    const crosses = best !== 0 && (order.side === 'buy' ? order.price >= best : order.price <= best)
    if (crosses && order.postOnly) {
      order.status = 'canceledPostOnly'
      return
    }
    if (order.timeInForce === 'FOK' && !(crosses && this.fillable(market, order, order.price))) {
      order.status = 'canceledFOK'
      return
    }
    if (crosses) {
      this.match(market, order, order.price, timestamp)
      if (order.status === 'canceledSelfTradePrevention') return
    }
    if (order.amountRemaining === 0) {
      order.status = 'filled'
      return
    }
    invariant(order.timeInForce !== 'FOK', 'FOK order left with a remainder')
    if (order.timeInForce === 'IOC') {
      order.status = 'canceledIOC'
      return
    }
    order.status = order.filledAmount > 0 ? 'partiallyFilled' : 'new'
    order.seq = ++this.seq
    book.insert(order)
    order.visible = true
    // Marked after the insert, so the fast book's level (new or not) is known.
    this.markDirty(market, order.side, order.price, order.level)
  }

  private runMarket(market: MarketState, order: Order, timestamp: number): void {
    const book = market.book
    const side = opposite(order.side)
    const reference = book.bestPrice(side)
    if (reference === 0) {
      order.status = 'expired'
      return
    }
    let limit: number
    if (order.disableMarketProtection) {
      limit = order.side === 'buy' ? Number.MAX_SAFE_INTEGER : 0
    } else {
      const band = floorDiv(reference * market.spec.marketProtectionPpm, ppmScale)
      limit = order.side === 'buy' ? reference + band : reference - band
    }
    this.match(market, order, limit, timestamp)
    if (order.status === 'canceledSelfTradePrevention') return
    const next = book.best(side)
    const withinLimit =
      next !== null && (order.side === 'buy' ? next.price <= limit : next.price >= limit)
    if (!order.byQuote) {
      if (order.amountRemaining === 0) order.status = 'filled'
      else if (next === null) order.status = 'expired'
      else {
        invariant(!withinLimit, 'market order stopped inside its protection band')
        order.status = 'canceledMarketProtection'
        order.restatementReason = 'cancelOnExecutionPriceProtection'
      }
      return
    }
    // By amountQuote: done when the rest cannot pay for one base unit (README "Market orders").
    const perBase = market.spec.quotePerPriceBase
    if (order.amountQuoteRemaining === 0) order.status = 'filled'
    else if (withinLimit && order.filledAmount > 0) order.status = 'filled'
    else if (withinLimit) {
      order.status = 'rejected'
      order.restatementReason = 'rejectOnAmountQuoteBelowOneUnit'
    } else if (order.filledAmount > 0 && order.amountQuoteRemaining < market.lastPrice * perBase) {
      order.status = 'filled'
    } else if (next === null) order.status = 'expired'
    else {
      order.status = 'canceledMarketProtection'
      order.restatementReason = 'cancelOnExecutionPriceProtection'
    }
  }

  /** Takes liquidity up to `limit` (inclusive). */
  private match(market: MarketState, taker: Order, limit: number, timestamp: number): void {
    const book = market.book
    const side = opposite(taker.side)
    const isBuy = taker.side === 'buy'
    const perBase = market.spec.quotePerPriceBase
    for (;;) {
      const maker = book.best(side)
      if (maker === null) return
      const price = maker.price
      if (isBuy ? price > limit : price < limit) return
      if (maker.accountId === taker.accountId) {
        if (this.preventSelfTrade(market, taker, maker, timestamp)) return
        continue
      }
      let quantity: number
      if (taker.byQuote) {
        const affordable = floorDiv(taker.amountQuoteRemaining, price * perBase)
        if (affordable === 0) return
        quantity = Math.min(maker.amountRemaining, affordable)
      } else {
        quantity = Math.min(maker.amountRemaining, taker.amountRemaining)
      }
      this.fill(market, taker, maker, price, quantity, timestamp)
      if (taker.byQuote ? taker.amountQuoteRemaining === 0 : taker.amountRemaining === 0) return
    }
  }

  private fill(
    market: MarketState,
    taker: Order,
    maker: Order,
    price: number,
    quantity: number,
    timestamp: number,
  ): void {
    const spec = market.spec
    const quote = price * quantity * spec.quotePerPriceBase
    const makerFee = feeOfFill(maker, quote, true, spec.quotePerNotional)
    const takerFee = feeOfFill(taker, quote, false, spec.quotePerNotional)
    this.markDirty(market, maker.side, price, maker.level)
    const makerDone = quantity === maker.amountRemaining
    if (makerDone) {
      market.book.remove(maker)
      maker.amountRemaining = 0
      maker.visible = false
      maker.status = 'filled'
    } else {
      market.book.reduce(maker, quantity)
      maker.amountRemaining -= quantity
      maker.status = 'partiallyFilled'
    }
    maker.filledAmount += quantity
    maker.filledAmountQuote += quote
    maker.makerFilledQuote += quote
    maker.feePaid += makerFee
    maker.updated = timestamp
    taker.filledAmount += quantity
    taker.filledAmountQuote += quote
    taker.feePaid += takerFee
    taker.updated = timestamp
    if (taker.byQuote) taker.amountQuoteRemaining -= quote
    else taker.amountRemaining -= quantity
    taker.status = 'partiallyFilled'
    invariant(
      taker.amountRemaining >= 0 && taker.amountQuoteRemaining >= 0,
      'taker filled beyond its amount',
    )
    market.lastPrice = price
    const trade = this.trade
    trade.market = spec.market
    trade.tradeId = ++market.tradeSeq
    trade.timestamp = timestamp
    trade.price = price
    trade.amount = quantity
    trade.quote = quote
    trade.takerSide = taker.side
    trade.taker = taker
    trade.maker = maker
    trade.takerFee = takerFee
    trade.makerFee = makerFee
    this.sink.trade(trade, spec)
    if (makerDone) this.close(market, maker)
    this.sink.order(maker, spec)
  }

  /**
   * The taker met a resting order of its own account; the taker's mode decides (protocol §4.1).
   * Returns true when the taker is done.
   */
  private preventSelfTrade(
    market: MarketState,
    taker: Order,
    maker: Order,
    timestamp: number,
  ): boolean {
    switch (taker.selfTradePrevention) {
      case 'cancelOldest':
        this.cancelOpen(
          market,
          maker,
          'canceledSelfTradePrevention',
          'cancelOnSelfTradePrevention',
          timestamp,
        )
        return false
      case 'cancelNewest':
        stopTaker(taker, timestamp)
        return true
      case 'cancelBoth':
        this.cancelOpen(
          market,
          maker,
          'canceledSelfTradePrevention',
          'cancelOnSelfTradePrevention',
          timestamp,
        )
        stopTaker(taker, timestamp)
        return true
      case 'decrementAndCancel': {
        // The smaller side is canceled, the larger decremented by the smaller's size (both when
        // equal). A taker by amountQuote has no base size to compare, so it is canceled.
        if (taker.byQuote) {
          stopTaker(taker, timestamp)
          return true
        }
        const decrement = Math.min(taker.amountRemaining, maker.amountRemaining)
        if (decrement === maker.amountRemaining) {
          this.cancelOpen(
            market,
            maker,
            'canceledSelfTradePrevention',
            'cancelOnSelfTradePrevention',
            timestamp,
          )
        } else {
          this.markDirty(market, maker.side, maker.price, maker.level)
          market.book.reduce(maker, decrement)
          maker.amountRemaining -= decrement
          maker.amount -= decrement
          maker.restatementReason = 'decrementOnSelfTradePrevention'
          maker.updated = timestamp
          this.sink.order(maker, market.spec)
        }
        if (decrement === taker.amountRemaining) {
          stopTaker(taker, timestamp)
          return true
        }
        taker.amountRemaining -= decrement
        taker.amount -= decrement
        taker.restatementReason = 'decrementOnSelfTradePrevention'
        taker.updated = timestamp
        return false
      }
    }
  }

  /** Could `order` fill completely, now, up to `limit`? Same walk as `match`, without effects. */
  private fillable(market: MarketState, order: Order, limit: number): boolean {
    const book = market.book
    const isBuy = order.side === 'buy'
    let needed = order.amountRemaining
    for (let maker = book.best(opposite(order.side)); maker !== null; maker = book.next(maker)) {
      if (isBuy ? maker.price > limit : maker.price < limit) return false
      if (maker.accountId === order.accountId) {
        // cancelOldest removes the resting order and goes on; every other mode stops the taker.
        if (order.selfTradePrevention === 'cancelOldest') continue
        return false
      }
      needed -= maker.amountRemaining
      if (needed <= 0) return true
    }
    return false
  }

  // ---------------------------------------------------------------------------------------------
  // Bookkeeping

  private open(market: MarketState, order: Order): void {
    invariant(!order.registered, 'open: order already registered')
    this.indexOrder(market, order)
    order.openSeq = ++this.openSeq
    if (order.clientOrderId !== null)
      market.clientIds.set(clientKey(order.accountId, order.clientOrderId), order)
    this.openCounts.increment(order.accountId, market.index)
    order.registered = true
  }

  private close(market: MarketState, order: Order): void {
    if (order.registered) {
      const key =
        order.clientOrderId === null ? null : clientKey(order.accountId, order.clientOrderId)
      if (key !== null && market.clientIds.get(key) === order) {
        market.clientIds.delete(key)
      }
      this.openCounts.decrement(order.accountId, market.index)
      order.registered = false
      // Its closed record takes its place in the index (same market, id and hash).
      this.remember(
        market,
        order.orderId,
        order.idHash,
        order.accountId,
        order.orderType,
        order.status,
        order,
      )
    } else {
      // Finished inside its own command: enters the index only to be remembered as closed.
      this.remember(
        market,
        order.orderId,
        order.idHash,
        order.accountId,
        order.orderType,
        order.status,
        null,
      )
    }
    // Back to the pool when the command ends (the sink still gets its last event).
    this.released.push(order)
  }

  /**
   * Remembers a closed order in the ring (evicting the oldest when full) and in the index, in
   * place of `replacing` when given. Returns the record.
   */
  private remember(
    market: MarketState,
    orderId: string,
    idHash: number,
    accountId: number,
    orderType: OrderType,
    status: OrderStatus,
    replacing: Order | null,
  ): ClosedOrder {
    const ring = this.closedRing
    let closed: ClosedOrder
    if (ring.length < this.closedOrdersRememberedMax) {
      closed = new ClosedOrder()
      ring.push(closed)
    } else {
      const head = this.closedHead
      closed = ring[head] as ClosedOrder
      if (this.orderIndex.remove(closed)) {
        const evictedMarket = this.marketList[closed.marketIndex] as MarketState
        evictedMarket.indexed--
      }
      this.closedHead = head + 1 === ring.length ? 0 : head + 1
    }
    closed.orderId = orderId
    closed.idHash = idHash === 0 ? hashOrderId(orderId, market.index) : idHash
    closed.marketIndex = market.index
    closed.accountId = accountId
    closed.orderType = orderType
    closed.status = status
    if (replacing !== null) {
      this.orderIndex.replace(replacing, closed)
    } else {
      this.orderIndex.insert(closed)
      market.indexed++
    }
    return closed
  }

  private indexOrder(market: MarketState, order: Order): void {
    order.marketIndex = market.index
    if (order.idHash === 0) order.idHash = hashOrderId(order.orderId, market.index)
    this.orderIndex.insert(order)
    market.indexed++
  }

  /** An open or remembered closed order of the market by id, or null. */
  private lookup(market: MarketState, orderId: string): IndexedOrder | null {
    if (typeof orderId !== 'string') return null
    return this.orderIndex.find(orderId, market.index, hashOrderId(orderId, market.index))
  }

  /**
   * Open orders of a market in placement order: the resting ones and the waiting ones, sorted by
   * `openSeq` (kept per order rather than in a list, so closing an order touches no other).
   */
  private openList(market: MarketState): Order[] {
    const list: Order[] = []
    const add = (order: Order): void => {
      list.push(order)
    }
    market.book.forEach('buy', add)
    market.book.forEach('sell', add)
    for (const order of market.triggers) list.push(order)
    return list.sort((a, b) => a.openSeq - b.openSeq)
  }

  /** The remembered closed orders, oldest first. */
  private closedOrders(): ClosedOrder[] {
    const ring = this.closedRing
    return [...ring.slice(this.closedHead), ...ring.slice(0, this.closedHead)]
  }

  private cancelOpen(
    market: MarketState,
    order: Order,
    status: OrderStatus,
    reason: RestatementReason | null,
    timestamp: number,
  ): void {
    if (order.visible) {
      this.markDirty(market, order.side, order.price, order.level)
      market.book.remove(order)
      order.visible = false
    } else {
      invariant(
        order.status === 'awaitingTrigger',
        'cancel: open order neither resting nor waiting',
      )
      const index = market.triggers.indexOf(order)
      invariant(index >= 0, 'cancel: waiting order missing from the trigger list')
      market.triggers.splice(index, 1)
    }
    order.status = status
    order.restatementReason = reason
    order.updated = timestamp
    this.close(market, order)
    this.sink.order(order, market.spec)
  }

  private findOrder(
    market: MarketState,
    command: CancelOrder | UpdateOrder,
    forUpdate: boolean,
  ): Order | Rejection {
    const { accountId, orderId, clientOrderId } = command
    let order: IndexedOrder | null
    if (clientOrderId !== undefined)
      order = market.clientIds.get(clientKey(accountId, clientOrderId)) ?? null
    else if (orderId !== undefined) order = this.lookup(market, orderId)
    else return reject(ErrorCode.parameterRequired, 'orderId')
    if (order !== null && order.accountId === accountId) {
      if (order.registered) return order
      // Recently closed (another account's order is not revealed: 240 as if unknown).
      return reject(
        forUpdate && order.orderType === 'market'
          ? ErrorCode.marketOrderNotUpdatable
          : ErrorCode.orderNotActive,
      )
    }
    return reject(ErrorCode.orderNotFound)
  }

  /**
   * Notes a changed level for the next batch. `level` (the fast book's level of a resting order,
   * or null) lets a level already noted in this batch skip it.
   */
  private markDirty(market: MarketState, side: Side, price: number, level: FastLevel | null): void {
    if (level !== null) {
      if (level.dirtyGen === market.dirtyGen) return
      level.dirtyGen = market.dirtyGen
    }
    const dirty = side === 'buy' ? market.dirtyBids : market.dirtyAsks
    dirty.mark(price)
  }

  /** Fires triggers (repeatedly: a fill can fire the next), updates the ticker, recycles orders. */
  private afterCommand(market: MarketState, timestamp: number): void {
    if (market.triggers.length > 0 && market.spec.status === 'trading') {
      let fired = true
      while (fired) {
        fired = false
        const triggers = market.triggers
        for (let index = 0; index < triggers.length; index++) {
          const order = triggers[index] as Order
          const reference = this.triggerReferencePrice(market, order)
          if (reference !== 0) {
            triggers.splice(index, 1)
            order.status = 'new'
            order.updated = timestamp
            this.run(market, order, timestamp)
            fired = true
            break
          }
        }
      }
    }
    const book = market.book
    const ticker = market.ticker
    const bestBid = book.bestPrice('buy')
    const bestAsk = book.bestPrice('sell')
    const bestBidSize = book.bestSize('buy')
    const bestAskSize = book.bestSize('sell')
    if (
      bestBid !== ticker.bestBid ||
      bestAsk !== ticker.bestAsk ||
      bestBidSize !== ticker.bestBidSize ||
      bestAskSize !== ticker.bestAskSize ||
      market.lastPrice !== ticker.lastPrice
    ) {
      ticker.bestBid = bestBid
      ticker.bestBidSize = bestBidSize
      ticker.bestAsk = bestAsk
      ticker.bestAskSize = bestAskSize
      ticker.lastPrice = market.lastPrice
      this.sink.ticker(ticker, market.spec)
    }
    const released = this.released
    while (released.length > 0) {
      const order = released.pop() as Order
      if (this.pool.length < orderPoolMax) {
        order.reset()
        this.pool.push(order)
      }
    }
  }

  /** The reference price if the order's trigger condition holds now, else 0. */
  private triggerReferencePrice(market: MarketState, order: Order): number {
    const book = market.book
    // Twice the reference, so the mid price (bid + ask) / 2 compares exactly.
    let doubled: number
    switch (order.triggerReference) {
      case 'lastTrade':
        doubled = 2 * market.lastPrice
        break
      case 'bestBid':
        doubled = 2 * book.bestPrice('buy')
        break
      case 'bestAsk':
        doubled = 2 * book.bestPrice('sell')
        break
      case 'midPrice': {
        const bid = book.bestPrice('buy')
        const ask = book.bestPrice('sell')
        doubled = bid === 0 || ask === 0 ? 0 : bid + ask
        break
      }
      default:
        doubled = 0
    }
    if (doubled === 0) return 0
    const trigger = 2 * order.triggerAmount
    const stop = order.orderType === 'stopLoss' || order.orderType === 'stopLossLimit'
    const sell = order.side === 'sell'
    // stopLoss: the reference got worse or equal (lower for a sell, higher for a buy);
    // takeProfit: better or equal.
    const fires = stop === sell ? doubled <= trigger : doubled >= trigger
    return fires ? Math.floor(doubled / 2) : 0
  }

  // ---------------------------------------------------------------------------------------------
  // Validation: every check returns the protocol's error code; nothing changes before they pass.

  private validatePlace(market: MarketState, command: PlaceOrder): Rejection | null {
    const spec = market.spec
    if (!Number.isSafeInteger(command.timestamp) || command.timestamp < 0) {
      return reject(ErrorCode.parameterInvalid, 'timestamp')
    }
    const orderId = command.orderId
    if (typeof orderId !== 'string' || orderId.length === 0 || orderId.length > orderIdLengthMax) {
      return reject(ErrorCode.parameterInvalid, 'orderId')
    }
    // Unique among the market's open and recently closed orders (the server makes UUIDs).
    const hash = hashOrderId(orderId, market.index)
    if (this.orderIndex.find(orderId, market.index, hash) !== null) {
      return reject(ErrorCode.parameterInvalid, 'orderId')
    }
    this.placeHash = hash
    if (!Number.isSafeInteger(command.accountId)) {
      return reject(ErrorCode.parameterInvalid, 'accountId')
    }
    if (command.operatorId !== undefined && !Number.isSafeInteger(command.operatorId)) {
      return reject(ErrorCode.parameterInvalid, 'operatorId')
    }
    if (command.side !== 'buy' && command.side !== 'sell') {
      return reject(ErrorCode.parameterInvalid, 'side')
    }
    const orderType = command.orderType
    if (!isOrderType(orderType)) return reject(ErrorCode.parameterInvalid, 'orderType')
    const makerFeePpm = command.makerFeePpm
    if (!Number.isSafeInteger(makerFeePpm) || makerFeePpm < -feePpmMax || makerFeePpm > feePpmMax) {
      return reject(ErrorCode.parameterInvalid, 'makerFee')
    }
    // A taker rebate could pay out more than the matching maker fee brings in.
    const takerFeePpm = command.takerFeePpm
    if (!Number.isSafeInteger(takerFeePpm) || takerFeePpm < 0 || takerFeePpm > feePpmMax) {
      return reject(ErrorCode.parameterInvalid, 'takerFee')
    }
    const clientOrderId = command.clientOrderId
    if (
      clientOrderId !== undefined &&
      (typeof clientOrderId !== 'string' ||
        clientOrderId.length === 0 ||
        clientOrderId.length > clientOrderIdLengthMax)
    ) {
      return reject(ErrorCode.parameterInvalid, 'clientOrderId')
    }
    if (command.codGroupId !== undefined && command.codGroupId !== 0) {
      if (!isCodGroupId(command.codGroupId)) return reject(ErrorCode.parameterInvalid, 'codGroupId')
      // A market order is over within its command: there is nothing to cancel later.
      if (orderType === 'market') return reject(ErrorCode.orderParameterNotSupported, 'codGroupId')
    }
    if (command.postOnly !== undefined && typeof command.postOnly !== 'boolean') {
      return reject(ErrorCode.parameterInvalid, 'postOnly')
    }
    if (
      command.disableMarketProtection !== undefined &&
      typeof command.disableMarketProtection !== 'boolean'
    ) {
      return reject(ErrorCode.parameterInvalid, 'disableMarketProtection')
    }
    if (command.feeRules !== undefined && command.feeRules !== 2) {
      return reject(ErrorCode.parameterInvalid, 'feeRules')
    }
    if (
      command.selfTradePrevention !== undefined &&
      !isSelfTradePrevention(command.selfTradePrevention)
    ) {
      return reject(ErrorCode.parameterInvalid, 'selfTradePrevention')
    }
    if (command.timeInForce !== undefined && !isTimeInForce(command.timeInForce)) {
      return reject(ErrorCode.parameterInvalid, 'timeInForce')
    }
    const limitType = hasLimitPrice(orderType)
    const triggerType = hasTrigger(orderType)
    if (limitType) {
      if (command.amountQuote !== undefined) {
        return reject(ErrorCode.orderParameterNotSupported, 'amountQuote')
      }
      if (command.amount === undefined) return reject(ErrorCode.parameterRequired, 'amount')
      if (command.price === undefined) return reject(ErrorCode.parameterRequired, 'price')
    } else {
      if (command.price !== undefined) return reject(ErrorCode.orderParameterNotSupported, 'price')
      if (command.postOnly === true) {
        return reject(ErrorCode.orderParameterNotSupported, 'postOnly')
      }
      if (command.timeInForce === 'FOK') {
        return reject(ErrorCode.orderParameterNotSupported, 'timeInForce')
      }
      if (command.amount !== undefined && command.amountQuote !== undefined) {
        return reject(ErrorCode.incompatibleParameters, 'amount or amountQuote')
      }
      if (command.amount === undefined && command.amountQuote === undefined) {
        return reject(ErrorCode.parameterRequired, 'amount')
      }
    }
    if (triggerType) {
      if (
        command.triggerAmount === undefined ||
        command.triggerType === undefined ||
        command.triggerReference === undefined
      ) {
        const missing =
          command.triggerAmount === undefined
            ? 'triggerAmount'
            : command.triggerType === undefined
              ? 'triggerType'
              : 'triggerReference'
        return reject(
          limitType
            ? ErrorCode.stopLossLimitParametersMissing
            : ErrorCode.stopLossParametersMissing,
          missing,
        )
      }
      if (command.triggerType !== 'price') return reject(ErrorCode.parameterInvalid, 'triggerType')
      if (!triggerReferenceValues.includes(command.triggerReference)) {
        return reject(ErrorCode.parameterInvalid, 'triggerReference')
      }
      const invalid = validatePrice(spec, command.triggerAmount, 'triggerAmount')
      if (invalid !== null) return invalid
    } else if (
      command.triggerAmount !== undefined ||
      command.triggerType !== undefined ||
      command.triggerReference !== undefined
    ) {
      return reject(ErrorCode.orderParameterNotSupported, 'triggerAmount')
    }
    if (command.price !== undefined) {
      const invalid = validatePrice(spec, command.price, 'price')
      if (invalid !== null) return invalid
    }
    if (command.amount !== undefined) {
      if (!isPositiveSafeInteger(command.amount))
        return reject(ErrorCode.parameterInvalid, 'amount')
      if (command.amount < spec.minAmount) return reject(ErrorCode.amountBelowMinimum)
      if (command.amount > spec.maxAmount) return reject(ErrorCode.amountAboveMaximum)
    }
    if (command.amountQuote !== undefined) {
      const invalid = validateQuote(spec, command.amountQuote)
      if (invalid !== null) return invalid
    }
    if (limitType) {
      const invalid = validateNotional(spec, command.price as number, command.amount as number)
      if (invalid !== null) return invalid
    }
    if (this.openCounts.get(command.accountId, market.index) >= spec.maxOpenOrders) {
      return reject(ErrorCode.openOrdersAboveMaximum)
    }
    if (
      clientOrderId !== undefined &&
      market.clientIds.has(clientKey(command.accountId, clientOrderId))
    ) {
      return reject(ErrorCode.clientOrderIdConflict)
    }
    return null
  }
}

// Switches instead of Array.includes: these run on every command.
function isOrderType(value: string): value is OrderType {
  switch (value) {
    case 'limit':
    case 'market':
    case 'stopLoss':
    case 'stopLossLimit':
    case 'takeProfit':
    case 'takeProfitLimit':
      return true
    default:
      return false
  }
}

function isSelfTradePrevention(value: string): value is SelfTradePrevention {
  switch (value) {
    case 'decrementAndCancel':
    case 'cancelOldest':
    case 'cancelNewest':
    case 'cancelBoth':
      return true
    default:
      return false
  }
}

function isTimeInForce(value: string): value is TimeInForce {
  return value === 'GTC' || value === 'IOC' || value === 'FOK'
}

function stopTaker(taker: Order, timestamp: number): void {
  taker.status = 'canceledSelfTradePrevention'
  taker.restatementReason = 'cancelOnSelfTradePrevention'
  taker.updated = timestamp
}

function dirtyEntries(dirty: DirtyLevels): [number, number][] {
  const entries: [number, number][] = []
  for (const price of dirty.unique()) entries.push([price, dirty.publishedSize(price)])
  return entries
}

function tradingRejection(status: MarketStatus): Rejection | null {
  switch (status) {
    case 'trading':
      return null
    case 'halted':
      return reject(ErrorCode.marketHalted)
    case 'cancelOnly':
      return reject(ErrorCode.marketCancelOnly)
    case 'auction':
      return reject(ErrorCode.marketAuction)
    case 'auctionMatching':
      return reject(ErrorCode.marketAuctionMatching)
  }
}

function validatePrice(
  spec: MarketSpec,
  price: unknown,
  name: 'price' | 'triggerAmount',
): Rejection | null {
  if (!isPositiveSafeInteger(price)) return reject(ErrorCode.parameterInvalid, name)
  if (spec.tickUnits !== 1 && price % spec.tickUnits !== 0) {
    return reject(ErrorCode.priceNotMultipleOfTick)
  }
  if (price < spec.minPrice) return reject(ErrorCode.priceBelowMinimum)
  if (price > spec.maxPrice) return reject(ErrorCode.priceAboveMaximum)
  if (spec.pricePrecision > 0 && significantDigits(price) > spec.pricePrecision) {
    return reject(
      name === 'price' ? ErrorCode.priceSignificantDigits : ErrorCode.triggerSignificantDigits,
    )
  }
  return null
}

function validateQuote(spec: MarketSpec, amountQuote: unknown): Rejection | null {
  if (!isPositiveSafeInteger(amountQuote)) return reject(ErrorCode.parameterInvalid, 'amountQuote')
  // amountQuote has at most notionalDecimals decimals; finer quote units are too many decimals.
  if (amountQuote % spec.quotePerNotional !== 0) {
    return reject(ErrorCode.tooManyDecimals, 'amountQuote')
  }
  if (amountQuote < spec.minQuote) return reject(ErrorCode.quoteBelowMinimum)
  if (amountQuote > spec.maxQuote) return reject(ErrorCode.amountAboveMaximum)
  return null
}

function validateNotional(spec: MarketSpec, price: number, amount: number): Rejection | null {
  const notional = price * amount * spec.quotePerPriceBase
  if (notional < spec.minQuote) return reject(ErrorCode.quoteBelowMinimum)
  if (notional > spec.maxQuote) return reject(ErrorCode.amountAboveMaximum)
  return null
}

export type { ErrorCodeValue }
