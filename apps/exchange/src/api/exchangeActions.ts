// The handlers of the market-data and trading actions, shared by REST and WebSocket.
import { randomUUID } from 'node:crypto'
import { type FeeTier, feeTier, feeTierForVolume, ppmToFraction } from '@polder/catalogue'
import {
  type FillEvent,
  formatAmount,
  formatPrice,
  formatQuote,
  type MarketConfig,
  type MarketSpec,
  type OrderState,
  parseBigDecimal,
  placeOrderFromWire,
  type Side,
  type TradeEvent,
  updateOrderFromWire,
  type WirePlaceOrder,
  type WireUpdateOrder,
} from '@polder/engine'
import { errorCatalogue, isErrorCode, protocolError } from '@polder/protocol'
import type { AccountStore } from '../accounts/accountStore.ts'
import type { CoreOutcome, CoreUpdateOrder, StakingReward } from '../core/exchangeCore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import type { CandleInterval } from '../core/marketStats.ts'
import {
  compareOrderKeys,
  type OrderRecord,
  type OrderWindow,
  type Transfer,
} from '../core/orderHistory.ts'
import { newOrderId } from '../core/orderIds.ts'
import { formatLedgerUnits, toLedgerUnits } from '../ledger/ledger.ts'
import type { NewOrderLimiter } from '../limits/newOrderLimiter.ts'
import type { SimulatedMarket } from '../simulator/marketSimulator.ts'
import { type CandleArchive, readCandles } from '../storage/candleArchive.ts'
import { type FillArchive, LedgerBusyError } from '../storage/fillArchive.ts'
import type { OrderArchive } from '../storage/orderArchive.ts'
import type { TradeArchive, TradeWindow } from '../storage/tradeArchive.ts'
import {
  compareLedgerTransfers,
  type TransferArchive,
  type TransferLedgerPage,
  type TransferLedgerWindow,
  type TransferQuery,
} from '../storage/transferArchive.ts'
import {
  isValidAddress,
  isValidIban,
  sandboxDepositAddress,
  sandboxIban,
} from '../transfers/addresses.ts'
import {
  dailyLimitRefusal,
  eurToCents,
  eurValueCents,
  limitsOfAccount,
  limitWindowMs,
  withdrawalKind,
  withdrawnCentsSince,
} from '../transfers/transferLimits.ts'
import { type LedgerFills, ledgerFillsOf, ledgerPage } from './accountLedger.ts'
import { type ActionRegistry, type ActionResult, type Caller, failure, success } from './actions.ts'
import {
  bookReportToWire,
  bookToWire,
  candleToWire,
  fillToWire,
  orderObject,
  type ReportContext,
  ticker24hToWire,
  tradeReportToWire,
  tradeToWire,
} from './wireFormat.ts'

/** An asset as listed (protocol §4.5 fields). */
export type ListedAsset = {
  symbol: string
  name: string
  decimals: number
  depositFee: string
  depositConfirmations: number
  depositStatus: 'OK' | 'MAINTENANCE' | 'DELISTED'
  withdrawalStatus: 'OK' | 'MAINTENANCE' | 'DELISTED'
  withdrawalFee: string
  withdrawalMinAmount: string
  networks: string[]
  message: string
}

export type Listing = {
  assets: readonly ListedAsset[]
  markets: readonly MarketConfig[]
  /** Reference price and volatility per market, for the market simulator. */
  simulation?: readonly SimulatedMarket[]
}

export type ExchangeActionDeps = {
  service: ExchangeService
  accounts: AccountStore
  listing: Listing
  nowMs: () => number
  /** The simulated confirmation of a withdrawal: sent after half of it, completed after all. */
  withdrawalDelayMs: number
  /** Every market's public trades (the core keeps only its recent ones). */
  tradeArchive: TradeArchive
  /** Closed candles older than the core keeps. */
  candleArchive: CandleArchive
  /** Every account's fills, closed orders and transfers (the core keeps only its recent ones)... */
  fillArchive: FillArchive
  orderArchive: OrderArchive
  transferArchive: TransferArchive
  /** ...but those of these accounts (the simulator's), whose recent ones the core serves. */
  unarchivedAccounts: ReadonlySet<number>
  /** The exchange's Market Identifier Code, named by the MiCA reports. */
  venue: string
  /** The protocol's new-order limit per account (error 104). */
  newOrders: NewOrderLimiter
}

/** A refusal with its own message (from the engine or core), with the catalogue's HTTP status. */
function refused(refusal: { errorCode: number; error: string }): ActionResult {
  const status = isErrorCode(refusal.errorCode) ? errorCatalogue[refusal.errorCode].httpStatus : 400
  return { ok: false, status, body: { errorCode: refusal.errorCode, error: refusal.error } }
}

const orderTypesAll = [
  'market',
  'limit',
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
]
const listLimitDefault = 500
/** The quotes `/account/fees` names (protocol §3.2), answered whether or not a market is listed. */
const feeQuotes = new Set(['EUR', 'USDC'])
const listLimitMax = 1000
/** A staking reward is earned over one UTC day. */
const rewardDayMs = 86_400_000

/**
 * Returns `warmAccount`, which loads what an account's orders need before its first order, and
 * `currentFees`, an account's fee tier (by its 30-day volume, or the stored one if higher), the
 * stored tier read afresh.
 */
export function registerExchangeActions(
  actions: ActionRegistry,
  deps: ExchangeActionDeps,
): {
  warmAccount: (accountId: number) => Promise<void>
  currentFees: (accountId: number) => Promise<FeeTier>
} {
  const { service, accounts, listing } = deps
  const engine = service.core.engine
  const history = service.core.history
  const assetsBySymbol = new Map(listing.assets.map((asset) => [asset.symbol, asset]))
  const decimalsOf = (asset: string): number => assetsBySymbol.get(asset)?.decimals ?? 8
  /**
   * The account's fees: the tier its 30-day volume reaches, or the one stored with it (an
   * operator's) if that is higher. Synchronous once the stored tier is known (warmed at
   * WebSocket authentication), so that an order reaches the core before any request that
   * arrived after it on the same connection.
   */
  function feesOf(accountId: number): FeeTier | Promise<FeeTier> {
    const stored = accounts.cachedFeeTier(accountId)
    if (stored === undefined)
      return accounts.loadFeeTier(accountId).then(() => feesOf(accountId) as FeeTier)
    const byVolume = feeTierForVolume(service.core.volume.euros(accountId, deps.nowMs()))
    return byVolume.tier > stored ? byVolume : feeTier(stored)
  }
  /** The account's 30-day volume as the protocol gives it: euros, two decimals. */
  const volumeOf = (accountId: number): string =>
    formatLedgerUnits(service.core.volume.of(accountId, deps.nowMs()), 2)

  function specOf(market: unknown): MarketSpec | undefined {
    return typeof market === 'string' ? (engine.market(market) ?? undefined) : undefined
  }
  const unknownMarket = () => failure(protocolError(205, { param: 'market' }))
  const listedSpecs = () => listing.markets.flatMap((config) => specOf(config.market) ?? [])
  /** Protocol §1: filtered by `market`, one object; unfiltered, an array of every market. */
  const oneOrAll = (params: Record<string, unknown>, entry: (spec: MarketSpec) => unknown) => {
    if (params.market === undefined) return success(listedSpecs().map(entry))
    const spec = specOf(params.market)
    return spec ? success(entry(spec)) : unknownMarket()
  }

  function marketToWire(spec: MarketSpec): Record<string, unknown> {
    const config = spec.config
    return {
      market: spec.market,
      status: spec.status,
      base: spec.base,
      quote: spec.quote,
      pricePrecision: config.pricePrecision ?? 0,
      minOrderInBaseAsset: config.minOrderInBaseAsset,
      minOrderInQuoteAsset: config.minOrderInQuoteAsset,
      maxOrderInBaseAsset: config.maxOrderInBaseAsset,
      maxOrderInQuoteAsset: config.maxOrderInQuoteAsset,
      orderTypes: orderTypesAll,
      quantityDecimals: config.quantityDecimals,
      notionalDecimals: config.notionalDecimals,
      tickSize: config.tickSize,
      maxOpenOrders: spec.maxOpenOrders,
      feeCategory: 'A',
    }
  }

  function orderResponse(
    spec: MarketSpec,
    state: OrderState,
    fills: readonly FillEvent[],
    held = service.core.heldFor(spec.market, state.orderId),
  ) {
    return orderObject(spec, state, held, fills, decimalsOf)
  }

  /**
   * The orders' fills, all of them, each order's oldest first: those let go of an order filled
   * more than the core keeps of one (`orderFillsKeptMax`) are read from the fill archive, one
   * order after another, in the account's line of long reads (as its ledger's: a fourth under
   * way is refused, LedgerBusyError, unless `waitWhenBusy`), once every command applied before
   * the call is durable (the core lets fills go as a command is applied; the archive is given
   * them at its commit). Those the core holds are copied at the call: an open order's list grows
   * with its next fill, which the state read with it does not count. A failed read (or journal)
   * rejects.
   */
  async function allFillsOf(
    records: readonly OrderRecord[],
    waitWhenBusy = false,
  ): Promise<(readonly FillEvent[])[]> {
    const held = records.map((record) => [...record.fills])
    const earlierOf = (record: OrderRecord) =>
      deps.unarchivedAccounts.has(record.state.accountId) ? 0 : (record.earlierFills ?? 0)
    if (!records.some((record) => earlierOf(record) > 0)) return held
    await service.appliedDurable()
    const all: (readonly FillEvent[])[] = []
    for (const [at, record] of records.entries()) {
      const kept = held[at]!
      const earlier = earlierOf(record)
      if (earlier === 0) {
        all.push(kept)
        continue
      }
      const { accountId, market, orderId } = record.state
      const before = kept[0]?.fillId ?? Number.MAX_SAFE_INTEGER
      const found = await deps.fillArchive.earlierOfOrder(
        accountId,
        market,
        orderId,
        before,
        earlier,
        waitWhenBusy,
      )
      all.push([...found, ...kept])
    }
    return all
  }

  /** What a failed read of orders answers: 108 while the account's reads are many, else 101. */
  const orderReadFailure = (error: unknown) =>
    failure(protocolError(error instanceof LedgerBusyError ? 108 : 101))

  /** The latest state of `orderId` in a command's events, with the fills it got there. */
  function fromOutcome(outcome: CoreOutcome & { ok: true }, orderId: string) {
    let state: OrderState | undefined
    const fills: FillEvent[] = []
    for (const event of outcome.events) {
      if (event.type === 'order' && event.orderId === orderId) state = event
      else if (event.type === 'fill' && event.orderId === orderId) fills.push(event)
    }
    return { state, fills }
  }

  /** What `responseRequired: false` answers instead of the order (protocol §3.2). */
  function shortAck(state: OrderState) {
    return {
      market: state.market,
      orderId: state.orderId,
      ...(state.clientOrderId === null ? {} : { clientOrderId: state.clientOrderId }),
      created: state.created,
      updated: state.updated,
    }
  }

  function requireCaller(caller: Caller): number {
    if (caller === undefined) throw new Error('private action without a caller')
    return caller.accountId
  }

  /** A list request's `start`/`end` window (ms, inclusive) and its limit (500 by default). */
  function listWindow(params: Record<string, unknown>): {
    start: number
    end: number
    limit: number
  } {
    return {
      start: params.start === undefined ? 0 : Number(params.start),
      end: params.end === undefined ? Number.MAX_SAFE_INTEGER : Number(params.end),
      limit: Math.min(Number(params.limit ?? listLimitDefault), listLimitMax),
    }
  }

  /**
   * The trades a list request asks for: its window (with its limit), and whether a trade's time and id lie in its
   * `start`/`end` window and its id range of `tradeIdFrom` and `tradeIdTo` (or its deprecated
   * alias `tradeId`), all inclusive. Trade ids here are whole numbers, rising with time in each
   * market; another id can only be a mistake, refused with 205 rather than ignored.
   */
  function tradeQuery(
    params: Record<string, unknown>,
  ): { window: TradeWindow; matches: (timestamp: number, id: number) => boolean } | ActionResult {
    const bound = (name: string): number | undefined | ActionResult => {
      const value = params[name]
      if (value === undefined) return undefined
      return typeof value === 'string' && /^\d{1,15}$/.test(value)
        ? Number(value)
        : failure(protocolError(205, { param: name }))
    }
    const from = bound('tradeIdFrom')
    const to = params.tradeIdTo === undefined ? bound('tradeId') : bound('tradeIdTo')
    if (typeof from === 'object') return from
    if (typeof to === 'object') return to
    const { start, end, limit } = listWindow(params)
    const window: TradeWindow = {
      startMs: start,
      endMs: end,
      fromId: from ?? 0,
      toId: to ?? Number.MAX_SAFE_INTEGER,
      limit,
    }
    return {
      window,
      matches: (timestamp, id) =>
        timestamp >= start && timestamp <= end && id >= window.fromId && id <= window.toId,
    }
  }

  /**
   * The account's order in a market named by `orderId` or `clientOrderId`, as the core holds it
   * (open orders and recent closed ones). Undefined when it holds no such order of the account.
   */
  function coreOrder(
    market: string,
    accountId: number,
    params: { orderId?: unknown; clientOrderId?: unknown },
  ): OrderRecord | undefined {
    let record: OrderRecord | undefined
    if (typeof params.clientOrderId === 'string')
      record = history.orderByClientId(accountId, market, params.clientOrderId)
    // Our order ids are lower case; the protocol allows either.
    else if (typeof params.orderId === 'string')
      record = history.order(market, params.orderId.toLowerCase())
    return record?.state.accountId === accountId ? record : undefined
  }

  /**
   * The account's order in a market named by `orderId` or `clientOrderId`, as `findOrder`, or the
   * refusal to answer with: 240 when there is none, 101 when the archive cannot be read. At once
   * when the core holds the order (every open order), so that a cancel reaches the core before
   * any request that arrived after it on the same connection; an order only the archive knows
   * is closed, and a cancel of it is refused whenever it is found.
   */
  function orderOrRefusal(
    market: string,
    accountId: number,
    params: Record<string, unknown>,
  ): OrderRecord | ActionResult | Promise<OrderRecord | ActionResult> {
    const found = findOrder(market, accountId, params)
    if (!(found instanceof Promise)) return found ?? failure(protocolError(240))
    return found.then(
      (record) => record ?? failure(protocolError(240)),
      () => failure(protocolError(101)), // the order archive cannot be read
    )
  }

  /**
   * The account's order in a market named by `orderId` or `clientOrderId`: from the core, or else
   * from the order archive (closed orders the core no longer holds). Undefined when the account
   * has no such order; a failed archive read rejects. At once (not a promise) when the core
   * holds the order.
   */
  function findOrder(
    market: string,
    accountId: number,
    params: { orderId?: unknown; clientOrderId?: unknown },
  ): OrderRecord | undefined | Promise<OrderRecord | undefined> {
    const held = coreOrder(market, accountId, params)
    if (held || deps.unarchivedAccounts.has(accountId)) return held
    if (typeof params.clientOrderId === 'string')
      return deps.orderArchive.findByClientId(accountId, market, params.clientOrderId)
    if (typeof params.orderId === 'string')
      return deps.orderArchive.find(accountId, market, params.orderId.toLowerCase())
    return undefined
  }

  /** The public trades a `/{market}/trades` request (or its report) asks for, newest first. */
  async function publicTrades(
    params: Record<string, unknown>,
  ): Promise<{ spec: MarketSpec; trades: TradeEvent[] } | ActionResult> {
    const spec = specOf(params.market)
    if (!spec) return unknownMarket()
    const query = tradeQuery(params)
    if ('ok' in query) return query
    try {
      return { spec, trades: await deps.tradeArchive.list(spec.market, query.window) }
    } catch {
      return failure(protocolError(101)) // the archive's store cannot be read
    }
  }

  const reportContext = (spec: MarketSpec): ReportContext => ({
    spec,
    assetName: assetsBySymbol.get(spec.base)?.name ?? spec.base,
    venue: deps.venue,
  })

  actions
    .register('getMarkets', (params) => oneOrAll(params, marketToWire))
    .register('getAssets', (params) => {
      if (params.symbol !== undefined) {
        const asset = assetsBySymbol.get(String(params.symbol))
        return asset ? success(asset) : failure(protocolError(205, { param: 'symbol' }))
      }
      return success(listing.assets)
    })
    .register('getBook', async (params) => {
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const depth = params.depth === undefined ? 1000 : Number(params.depth)
      const snapshot = engine.bookSnapshot(spec.market, depth)
      if (!snapshot) return unknownMarket()
      // The snapshot is as of the last batch applied, whose journal commit (and so its delta on
      // the book channel) may still be on its way: answered once that is durable, so that a
      // crash cannot take back a level it showed, nor its nonce.
      await service.appliedDurable()
      return success(bookToWire(spec, snapshot))
    })
    .register('getTrades', async (params) => {
      const listed = await publicTrades(params)
      if ('ok' in listed) return listed
      return success(listed.trades.map((trade) => tradeToWire(listed.spec, trade)))
    })
    .register('getReportBook', (params) => {
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const depth = params.depth === undefined ? 1000 : Number(params.depth)
      const book = {
        bids: engine.depthWithOrders(spec.market, 'buy', depth),
        asks: engine.depthWithOrders(spec.market, 'sell', depth),
      }
      return success(bookReportToWire(reportContext(spec), book, deps.nowMs()))
    })
    .register('getReportTrades', async (params) => {
      const listed = await publicTrades(params)
      if ('ok' in listed) return listed
      const context = reportContext(listed.spec)
      return success(listed.trades.map((trade) => tradeReportToWire(context, trade)))
    })
    .register('getCandles', async (params) => {
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const limit = Math.min(Number(params.limit ?? 1440), 1440)
      const start = params.start === undefined ? 0 : Number(params.start)
      // `end` is where the last candle wanted ends (the docs: "must align exactly with the end of
      // the specified interval"): the candle starting at `end` is not in the window. ccxt asks
      // `end = since + limit × interval` and so gets `limit` candles from `since`, as it expects.
      const end = params.end === undefined ? Number.MAX_SAFE_INTEGER : Number(params.end) - 1
      const candles = await readCandles(
        service.core.stats,
        deps.candleArchive,
        spec.market,
        params.interval as CandleInterval,
        start,
        end,
        limit,
      )
      return success(candles.map((candle) => candleToWire(spec, candle)))
    })
    .register('getTicker24h', (params) => {
      const nowMs = service.core.stats.windowEndMs(deps.nowMs())
      const entry = (spec: MarketSpec) =>
        ticker24hToWire(
          spec,
          service.core.stats.stats24h(spec.market, nowMs),
          engine.ticker(spec.market),
          nowMs,
        )
      return oneOrAll(params, entry)
    })
    .register('getTickerPrice', (params) => {
      const entry = (spec: MarketSpec) => {
        const ticker = engine.ticker(spec.market)
        return {
          market: spec.market,
          price: ticker && ticker.lastPrice > 0 ? formatPrice(spec, ticker.lastPrice) : null,
        }
      }
      return oneOrAll(params, entry)
    })
    .register('getTickerBook', (params) => {
      const entry = (spec: MarketSpec) => {
        const ticker = engine.ticker(spec.market)
        const side = (price: number | undefined, size: number | undefined) =>
          price && price > 0 && size !== undefined
            ? [formatPrice(spec, price), formatAmount(spec, size)]
            : [null, null]
        const [bid, bidSize] = side(ticker?.bestBid, ticker?.bestBidSize)
        const [ask, askSize] = side(ticker?.bestAsk, ticker?.bestAskSize)
        return { market: spec.market, bid, bidSize, ask, askSize }
      }
      return oneOrAll(params, entry)
    })
    .register('privateGetAccount', async (_params, caller) => {
      const accountId = requireCaller(caller)
      const fees = await feesOf(accountId)
      return success({
        fees: {
          tier: String(fees.tier),
          volume: volumeOf(accountId),
          maker: ppmToFraction(fees.makerFeePpm),
          taker: ppmToFraction(fees.takerFeePpm),
        },
      })
    })
    .register('privateGetFees', async (params, caller) => {
      // Fees depend on the tier only, the same in every market; a filter must still name one.
      if (params.market !== undefined && !specOf(params.market)) return unknownMarket()
      if (
        params.quote !== undefined &&
        !feeQuotes.has(String(params.quote)) &&
        !listing.markets.some((market) => market.quote === params.quote)
      )
        return failure(protocolError(205, { param: 'quote' }))
      const accountId = requireCaller(caller)
      const fees = await feesOf(accountId)
      return success({
        tier: String(fees.tier),
        volume: volumeOf(accountId),
        maker: ppmToFraction(fees.makerFeePpm),
        taker: ppmToFraction(fees.takerFeePpm),
      })
    })
    .register('privateGetBalance', (params, caller) => {
      const accountId = requireCaller(caller)
      const ledger = service.core.ledger
      // Unfiltered: the assets held. Filtered: that asset's row, zeros included, so that
      // `balance({symbol})[0]` is there for any listed asset.
      let held: [string, { available: bigint; inOrder: bigint }][]
      if (params.symbol === undefined) held = [...ledger.balances(accountId)]
      else if (assetsBySymbol.has(String(params.symbol)))
        held = [[String(params.symbol), ledger.balance(accountId, String(params.symbol))]]
      else return failure(protocolError(205, { param: 'symbol' }))
      const rows = held.map(([symbol, balance]) => ({
        symbol,
        available: formatLedgerUnits(balance.available, decimalsOf(symbol)),
        inOrder: formatLedgerUnits(balance.inOrder, decimalsOf(symbol)),
      }))
      if (params.symbol !== undefined) return success(rows)
      // Unfiltered, only the assets it shows as held (protocol: non-zero ones): the ledger's
      // units are finer than an asset's decimals (a quote asset's remainder of a market buy by
      // amountQuote, say), and a row of two zeros would list an asset the account cannot use.
      return success(rows.filter((row) => /[1-9]/.test(row.available + row.inOrder)))
    })
    .register('privateCreateOrder', async (params, caller) => {
      const accountId = requireCaller(caller)
      if (!deps.newOrders.allow(accountId, deps.nowMs())) return failure(protocolError(104))
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const known = feesOf(accountId)
      const fees = known instanceof Promise ? await known : known
      const timestamp = deps.nowMs()
      const command = placeOrderFromWire(spec, params as unknown as WirePlaceOrder, {
        timestamp,
        orderId: newOrderId(timestamp),
        accountId,
        makerFeePpm: fees.makerFeePpm,
        takerFeePpm: fees.takerFeePpm,
      })
      if ('ok' in command) return refused(command)
      const submitted = service.submit(command)
      // What it holds as it is placed (submit applies before its first await), as its state is
      // read: a cancel applied before its commit must not show in its reply.
      const held = service.core.heldFor(spec.market, command.orderId)
      const outcome = await submitted
      if (!outcome.ok) return refused(outcome)
      const { state, fills } = fromOutcome(outcome, command.orderId)
      if (!state) throw new Error(`accepted order ${command.orderId} has no order event`)
      if (params.responseRequired === false) return success(shortAck(state))
      return success(orderResponse(spec, state, fills, held))
    })
    .register('privateUpdateOrder', async (params, caller) => {
      const accountId = requireCaller(caller)
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const fromWire = updateOrderFromWire(spec, params as unknown as WireUpdateOrder, {
        timestamp: deps.nowMs(),
        accountId,
      })
      if ('ok' in fromWire) return refused(fromWire)
      // Our order ids are lower case; the protocol allows either (as coreOrder reads them).
      const command: CoreUpdateOrder = {
        ...fromWire,
        ...(fromWire.orderId === undefined ? {} : { orderId: fromWire.orderId.toLowerCase() }),
        holdRules: 2,
      }
      const orderId = coreOrder(spec.market, accountId, params)?.state.orderId
      const submitted = service.submit(command)
      // The order as this update left it, read as it is applied (submit applies before its first
      // await): a cancel or a fill applied before the update's commit must not show in its reply.
      const record = orderId === undefined ? undefined : history.order(spec.market, orderId)
      const applied = record && {
        state: record.state,
        fills: [...record.fills],
        ...(record.earlierFills === undefined ? {} : { earlierFills: record.earlierFills }),
        held: service.core.heldFor(spec.market, record.state.orderId),
      }
      const outcome = await submitted
      if (!outcome.ok) {
        if (outcome.errorCode !== 240) return refused(outcome)
        // The engine knows open orders by their client id, and closed ones for a while only: an
        // order of the account that is closed is not active (233; 234 for a market order), as a
        // cancel of it is, however it is named and however long ago it closed.
        const found = orderOrRefusal(spec.market, accountId, params)
        const known = found instanceof Promise ? await found : found
        if (!('state' in known)) return known
        return failure(protocolError(known.state.orderType === 'market' ? 234 : 233))
      }
      if (!applied) throw new Error('updated order is not in the history')
      // The operator of this update, as the protocol echoes it (the order keeps its creator's).
      const operator =
        params.operatorId === undefined ? {} : { operatorId: Number(params.operatorId) }
      if (params.responseRequired === false)
        return success({ ...shortAck(applied.state), ...operator })
      // The update is applied: its reply waits its turn among the account's reads, however many
      // there are, and an archive that cannot be read leaves it with the fills the core holds,
      // not an error that would have the client think it was not.
      const fills = await allFillsOf([applied], true).then(
        ([all]) => all!,
        () => applied.fills,
      )
      return success({ ...orderResponse(spec, applied.state, fills, applied.held), ...operator })
    })
    .register('privateCancelOrder', async (params, caller) => {
      const accountId = requireCaller(caller)
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const found = orderOrRefusal(spec.market, accountId, params)
      const known = found instanceof Promise ? await found : found
      if (!('state' in known)) return known
      const outcome = await service.submit({
        type: 'cancelOrder',
        timestamp: deps.nowMs(),
        market: spec.market,
        accountId,
        orderId: known.state.orderId,
      })
      if (!outcome.ok) {
        // The engine forgets old closed orders (240); the history knows them: 233.
        return outcome.errorCode === 240 ? failure(protocolError(233)) : refused(outcome)
      }
      return success({
        orderId: known.state.orderId,
        ...(known.state.clientOrderId === null ? {} : { clientOrderId: known.state.clientOrderId }),
        ...(params.operatorId === undefined ? {} : { operatorId: Number(params.operatorId) }),
      })
    })
    .register('privateCancelOrders', async (params, caller) => {
      const accountId = requireCaller(caller)
      if (params.market !== undefined && !specOf(params.market)) return unknownMarket()
      const outcome = await service.submit({
        type: 'cancelOrders',
        timestamp: deps.nowMs(),
        accountId,
        ...(params.market === undefined ? {} : { market: String(params.market) }),
      })
      if (!outcome.ok) return refused(outcome)
      const operator =
        params.operatorId === undefined ? {} : { operatorId: Number(params.operatorId) }
      return success((outcome.orderIds ?? []).map((orderId) => ({ orderId, ...operator })))
    })
    // Cancel-on-disconnect: starts, restarts or (0 seconds) stops a group's countdown. Once it
    // runs out, the group's open orders are cancelled before the next command (ExchangeService)
    // or, if none comes, by the server's CancelOnDisconnect task.
    .register('privateCancelOrdersAfter', async (params, caller) => {
      const accountId = requireCaller(caller)
      const codGroupId = Number(params.codGroupId)
      const seconds = Number(params.expiryAfterSeconds)
      const nowMs = deps.nowMs()
      const expiresAtMs = seconds === 0 ? 0 : nowMs + seconds * 1000
      const outcome = await service.submit({
        type: 'setCancelDeadline',
        timestamp: nowMs,
        accountId,
        codGroupId,
        expiresAtMs,
      })
      if (!outcome.ok) return refused(outcome)
      return success({ codGroupId, timeOfExpirySeconds: Math.floor(expiresAtMs / 1000) })
    })
    .register('privateGetOrder', async (params, caller) => {
      const accountId = requireCaller(caller)
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const record = await orderOrRefusal(spec.market, accountId, params)
      if (!('state' in record)) return record
      try {
        const [fills] = await allFillsOf([record])
        return success(orderResponse(spec, record.state, fills!))
      } catch (error) {
        return orderReadFailure(error)
      }
    })
    .register('privateGetOrdersOpen', async (params, caller) => {
      const accountId = requireCaller(caller)
      if (params.market !== undefined && !specOf(params.market)) return unknownMarket()
      if (
        params.base !== undefined &&
        !listing.markets.some((market) => market.base === params.base)
      )
        return failure(protocolError(205, { param: 'base' }))
      const markets = listing.markets
        .map((config) => config.market)
        .filter((market) => params.market === undefined || market === params.market)
        .filter((market) => params.base === undefined || market.startsWith(`${params.base}-`))
      // Newest first, as every list of the protocol (§1), across markets.
      const open = markets.flatMap((market) => {
        const spec = specOf(market)
        return spec ? engine.openOrders(market, accountId).map((state) => ({ spec, state })) : []
      })
      open.sort((a, b) => compareOrderKeys(b.state, a.state))
      // The states and the fills the core holds are read now, before any archive read waits.
      const records = open.map(({ spec, state }) => ({
        spec,
        state,
        held: service.core.heldFor(spec.market, state.orderId),
        record: history.order(spec.market, state.orderId) ?? { state, fills: [] },
      }))
      try {
        const fills = await allFillsOf(records.map(({ record }) => record))
        return success(
          records.map(({ spec, state, held }, at) => orderResponse(spec, state, fills[at]!, held)),
        )
      } catch (error) {
        return orderReadFailure(error)
      }
    })
    .register('privateGetOrders', async (params, caller) => {
      const accountId = requireCaller(caller)
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const { start, end, limit } = listWindow(params)
      // Orders are listed newest first by creation time, then id (ids rise as orders are placed,
      // src/core/orderIds.ts). Id cursors, both inclusive: from the order orderIdFrom on, up to
      // the order orderIdTo (or its deprecated alias orderId). Our ids are lower case; the
      // protocol allows either.
      const toName = params.orderIdTo === undefined ? 'orderId' : 'orderIdTo'
      const window: OrderWindow = { startMs: start, endMs: end, limit }
      try {
        for (const [name, side] of [
          ['orderIdFrom', 'from'],
          [toName, 'to'],
        ] as const) {
          if (typeof params[name] !== 'string') continue
          const cursor = await findOrder(spec.market, accountId, {
            orderId: params[name].toLowerCase(),
          })
          if (!cursor) return failure(protocolError(205, { param: name }))
          window[side] = cursor.state
        }
        // The core holds the open orders and the recent closed ones; the archive every closed one.
        // Their fills copied now: an open order's list grows while the archive is read, and
        // its state was read here.
        const recent = history
          .ordersIn(accountId, spec.market, window)
          .map((record) => ({ ...record, fills: [...record.fills] }))
        const archived = deps.unarchivedAccounts.has(accountId)
          ? []
          : await deps.orderArchive.list(accountId, spec.market, window)
        const byId = new Map<string, OrderRecord>()
        for (const record of [...archived, ...recent]) byId.set(record.state.orderId, record)
        const records = [...byId.values()]
          .sort((a, b) => compareOrderKeys(b.state, a.state))
          .slice(0, limit)
        const fills = await allFillsOf(records)
        return success(records.map((record, at) => orderResponse(spec, record.state, fills[at]!)))
      } catch (error) {
        return orderReadFailure(error) // the order or fill archive cannot be read, or is busy
      }
    })
    .register('privateGetTrades', async (params, caller) => {
      const accountId = requireCaller(caller)
      const spec = specOf(params.market)
      if (!spec) return unknownMarket()
      const query = tradeQuery(params)
      if ('ok' in query) return query
      let fills: FillEvent[]
      if (deps.unarchivedAccounts.has(accountId)) {
        fills = history
          .fillsOf(accountId, spec.market)
          .filter((fill) => query.matches(fill.timestamp, fill.fillId))
          .slice(0, query.window.limit)
      } else {
        try {
          fills = await deps.fillArchive.list(accountId, spec.market, query.window)
        } catch {
          return failure(protocolError(101)) // the archive's store cannot be read
        }
      }
      return success(
        fills.map((fill) => ({
          ...fillToWire(spec, fill),
          orderId: fill.orderId,
          ...(fill.clientOrderId === null ? {} : { clientOrderId: fill.clientOrderId }),
          market: fill.market,
          side: fill.side,
        })),
      )
    })
  /**
   * An account's transfers matching the query, newest first: from the transfer archive (every one
   * the account ever had), or for an account the archive does not keep, from the core's memory.
   */
  const transfersOf = async (accountId: number, query: TransferQuery): Promise<Transfer[]> => {
    if (!deps.unarchivedAccounts.has(accountId)) return deps.transferArchive.list(accountId, query)
    return keptTransfersIn(accountId, query)
      .sort((a, b) => b.seq - a.seq)
      .slice(0, query.limit)
  }
  /** The transfers the core keeps of an account (one the archive does not keep) in a window. */
  const keptTransfersIn = (
    accountId: number,
    { kind, asset, startMs, endMs }: Omit<TransferQuery, 'limit'>,
  ): Transfer[] =>
    (kind === undefined ? (['deposit', 'withdraw'] as const) : [kind])
      .flatMap((oneKind) => history.transfersOf(accountId, oneKind))
      .filter(
        (t) =>
          (asset === undefined || t.asset === asset) &&
          t.timestamp >= startMs &&
          t.timestamp <= endMs,
      )
  /**
   * The ledger's transfers of an account: `TransferArchive.ledger` and `records`, or for an
   * account the archive does not keep, the same from the core's memory.
   */
  const transferLedgerOf = (
    accountId: number,
  ): {
    ledger(window: TransferLedgerWindow, limit: number): Promise<TransferLedgerPage>
    records(seqs: readonly number[]): Promise<Transfer[]>
  } => {
    if (!deps.unarchivedAccounts.has(accountId))
      return {
        ledger: (window, limit) => deps.transferArchive.ledger(accountId, window, limit),
        records: (seqs) => deps.transferArchive.records(accountId, seqs),
      }
    return {
      ledger: async (window, limit) => {
        const transfers = keptTransfersIn(accountId, window).sort(compareLedgerTransfers)
        return { total: transfers.length, transfers: transfers.slice(0, limit) }
      },
      records: async (seqs) =>
        keptTransfersIn(accountId, { startMs: 0, endMs: Number.MAX_SAFE_INTEGER }).filter((t) =>
          seqs.includes(t.seq),
        ),
    }
  }
  /** The account's deposits or withdrawals matching the symbol, time window and limit. */
  const transfersIn = (
    kind: 'deposit' | 'withdraw',
    params: Record<string, unknown>,
    caller: Caller,
  ): Promise<Transfer[]> => {
    const { start, end, limit } = listWindow(params)
    return transfersOf(requireCaller(caller), {
      kind,
      ...(params.symbol === undefined ? {} : { asset: String(params.symbol) }),
      startMs: start,
      endMs: end,
      limit,
    })
  }
  /** A listing of transfers, or the protocol's 101 when the archive cannot be read. */
  const listedTransfers = async (
    listed: Promise<Transfer[]>,
    item: (transfer: Transfer) => Record<string, unknown>,
  ): Promise<ActionResult> => {
    try {
      return success((await listed).map(item))
    } catch {
      return failure(protocolError(101))
    }
  }

  actions
    .register('privateDepositAssets', (params, caller) => {
      const accountId = requireCaller(caller)
      const asset = assetsBySymbol.get(String(params.symbol))
      if (!asset) return failure(protocolError(205, { param: 'symbol' }))
      if (asset.depositStatus !== 'OK') return failure(protocolError(401))
      if (asset.symbol === 'EUR') {
        return success({
          iban: sandboxIban(accountId),
          bic: 'POLDNL2A',
          description: `POLDER ${accountId}`,
        })
      }
      return success({ address: sandboxDepositAddress(accountId, asset.networks[0]!) })
    })
    .register('privateWithdrawAssets', async (params, caller) => {
      const accountId = requireCaller(caller)
      const asset = assetsBySymbol.get(String(params.symbol))
      if (!asset) return failure(protocolError(205, { param: 'symbol' }))
      if (asset.withdrawalStatus !== 'OK') return failure(protocolError(410))
      // As a bigint: 90 million SHIB is past a number's exact integers, and about 1,000 euros.
      const amount = parseBigDecimal(String(params.amount), asset.decimals)
      if (!amount.ok) return failure(protocolError(amount.errorCode, { param: 'amount' }))
      const minimum = parseBigDecimal(asset.withdrawalMinAmount, asset.decimals)
      const fee = parseBigDecimal(asset.withdrawalFee, asset.decimals)
      if (!minimum.ok || !fee.ok)
        throw new Error(`catalogue amounts of ${asset.symbol} do not parse`)
      if (amount.units < minimum.units) return failure(protocolError(406))
      const address = String(params.address)
      const addressValid =
        asset.symbol === 'EUR' ? isValidIban(address) : isValidAddress(asset.networks[0]!, address)
      if (!addressValid) return failure(protocolError(412))
      // addWithdrawalFee: the fee comes on top of the amount; otherwise out of it.
      const sent = params.addWithdrawalFee === true ? amount.units : amount.units - fee.units
      if (sent <= 0n) return failure(protocolError(406))
      const sentLedger = toLedgerUnits(sent, asset.decimals)
      const feeLedger = toLedgerUnits(fee.units, asset.decimals)
      // The balance first (the core checks it again): who cannot pay hears that, not a limit.
      if (service.core.ledger.balance(accountId, asset.symbol).available < sentLedger + feeLedger)
        return failure(protocolError(408))
      const nowMs = deps.nowMs()
      // The account level's daily limit, for euros and (valued now) for crypto.
      const kind = withdrawalKind(asset.symbol)
      const limits = limitsOfAccount(accountId)
      const valueCents = eurValueCents(engine, asset.symbol, sentLedger)
      const overLimit = dailyLimitRefusal(
        441,
        kind,
        eurToCents(kind === 'euro' ? limits.withdrawalDailyEur : limits.cryptoWithdrawalDailyEur),
        withdrawnCentsSince(history, accountId, nowMs - limitWindowMs, kind),
        valueCents,
      )
      if (overLimit !== undefined) return refused(overLimit)
      const outcome = await service.submit({
        type: 'withdraw',
        timestamp: nowMs,
        accountId,
        asset: asset.symbol,
        amount: sentLedger.toString(),
        fee: feeLedger.toString(),
        reference: randomUUID(),
        address,
        ...(params.paymentId === undefined ? {} : { paymentId: String(params.paymentId) }),
        schedule: {
          sendingAtMs: nowMs + Math.floor(deps.withdrawalDelayMs / 2),
          completedAtMs: nowMs + deps.withdrawalDelayMs,
        },
        valueEurCents: Number(valueCents),
      })
      if (!outcome.ok) return refused(outcome)
      return success({ success: true, symbol: asset.symbol, amount: String(params.amount) })
    })
    .register('privateGetDepositHistory', (params, caller) => {
      return listedTransfers(transfersIn('deposit', params, caller), (t) => ({
        timestamp: t.timestamp,
        symbol: t.asset,
        amount: formatLedgerUnits(BigInt(t.amount), decimalsOf(t.asset)),
        // Always present, as the protocol lists it: '' where a payment method has none.
        address: t.address ?? '',
        ...(t.paymentId === undefined ? {} : { paymentId: t.paymentId }),
        ...(t.txId === undefined ? {} : { txId: t.txId }),
        fee: formatLedgerUnits(BigInt(t.fee), decimalsOf(t.asset)),
        status: 'completed',
      }))
    })
    .register('privateGetWithdrawalHistory', (params, caller) => {
      return listedTransfers(transfersIn('withdraw', params, caller), (t) => ({
        timestamp: t.timestamp,
        symbol: t.asset,
        amount: formatLedgerUnits(BigInt(t.amount), decimalsOf(t.asset)),
        address: t.address ?? '',
        ...(t.paymentId === undefined ? {} : { paymentId: t.paymentId }),
        // The sandbox's transaction id is derived from the reference.
        txId: t.reference,
        fee: formatLedgerUnits(BigInt(t.fee), decimalsOf(t.asset)),
        status: t.status ?? 'completed',
      }))
    })

  actions.register('privateGetTransactionHistory', async (params, caller) => {
    const accountId = requireCaller(caller)
    const toMs = (value: unknown, fallback: number): number =>
      value === undefined
        ? fallback
        : typeof value === 'string' && value.includes('T')
          ? Date.parse(value)
          : Number(value)
    const fromMs = toMs(params.fromDate, 0)
    const untilMs = toMs(params.toDate, Number.MAX_SAFE_INTEGER)
    const maxItems = Number(params.maxItems ?? 100)
    const page = Number(params.page ?? 1)
    const type = params.type as string | undefined
    // The protocol's types (§3.2) that this exchange has: a fill's side, the transfers, and
    // staking rewards. The page needs only the newest `page * maxItems` entries other than fills
    // (accountLedger.ts), and how many there are; each built when listed.
    const side: Side | undefined = type === 'buy' || type === 'sell' ? type : undefined
    const withFills = type === undefined || side !== undefined
    const deepest = page * maxItems
    // A transfer is placed by its key and read only if it is on the page (`records` below).
    type Other = { timestamp: number; seq?: number; item?: () => Record<string, unknown> }
    let transferKeys: Other[] = []
    const rewards: Other[] = []
    let othersCount = 0
    const transferKind: Transfer['kind'] | undefined =
      type === 'deposit' ? 'deposit' : type === 'withdrawal' ? 'withdraw' : undefined
    const transfers = transferLedgerOf(accountId)
    if (type === undefined || transferKind !== undefined) {
      const window: TransferLedgerWindow = {
        ...(transferKind === undefined ? {} : { kind: transferKind }),
        startMs: fromMs,
        endMs: untilMs,
      }
      let keys: TransferLedgerPage
      try {
        keys = await transfers.ledger(window, deepest)
      } catch (error) {
        if (error instanceof LedgerBusyError) return failure(protocolError(108))
        return failure(protocolError(101)) // the transfer archive cannot be written or read
      }
      transferKeys = keys.transfers
      othersCount += keys.total
    }
    if (type === undefined || type === 'staking')
      for (const reward of service.core.stakingRewardsOf(accountId)) {
        const timestamp = reward.creditedMs ?? reward.dayMs + rewardDayMs
        if (timestamp < fromMs || timestamp > untilMs) continue
        rewards.push({ timestamp, item: () => rewardLedgerItem(reward, timestamp) })
        othersCount += 1
      }
    rewards.sort((a, b) => b.timestamp - a.timestamp)
    // The two lists merged, newest first, a transfer before a reward of the same millisecond,
    // as deep as the page: a deep page's keys are many, and already in order.
    const others: Other[] = []
    for (let t = 0, r = 0; others.length < deepest; ) {
      const transfer = transferKeys[t]
      const reward = rewards[r]
      if (transfer === undefined && reward === undefined) break
      if (
        reward === undefined ||
        (transfer !== undefined && transfer.timestamp >= reward.timestamp)
      ) {
        others.push(transfer!)
        t += 1
      } else {
        others.push(reward)
        r += 1
      }
    }
    const window = { startMs: fromMs, endMs: untilMs, side }
    // Every fill the account ever had is in the fill archive; the simulator's accounts are kept
    // in memory only.
    const fills: LedgerFills = !withFills
      ? ledgerFillsOf([])
      : deps.unarchivedAccounts.has(accountId)
        ? ledgerFillsOf(
            history
              .fillsOf(accountId)
              .filter(
                (fill) =>
                  fill.timestamp >= fromMs &&
                  fill.timestamp <= untilMs &&
                  (side === undefined || fill.side === side),
              ),
          )
        : (offset, limit) => deps.fillArchive.ledger(accountId, window, offset, limit)
    try {
      const ledger = await ledgerPage(others, fills, (page - 1) * maxItems, maxItems, othersCount)
      const shown = new Map<number, Transfer>()
      const seqs = ledger.entries.flatMap((entry) =>
        entry.kind === 'transfer' && entry.transfer.seq !== undefined ? [entry.transfer.seq] : [],
      )
      for (const transfer of await transfers.records(seqs)) shown.set(transfer.seq, transfer)
      const otherItem = (other: Other): Record<string, unknown> => {
        if (other.item !== undefined) return other.item()
        const transfer = shown.get(other.seq!)
        if (transfer === undefined) throw new Error(`transfer ${other.seq} of the page not found`)
        return transferLedgerItem(transfer)
      }
      return success({
        items: ledger.entries.map((entry) =>
          entry.kind === 'fill' ? fillLedgerItem(entry.fill) : otherItem(entry.transfer),
        ),
        currentPage: page,
        totalPages: Math.ceil(ledger.total / maxItems),
        maxItems,
      })
    } catch (error) {
      // The account has as many ledger reads under way as it may: try again shortly.
      if (error instanceof LedgerBusyError) return failure(protocolError(108))
      return failure(protocolError(101)) // an archive cannot be written or read
    }
  })

  /** A fill as an item of `/account/history` (every field of the protocol's §3.2 on each). */
  const fillLedgerItem = (fill: FillEvent): Record<string, unknown> => {
    const spec = specOf(fill.market)
    if (!spec) throw new Error(`a fill of ${fill.market}, a market not listed`)
    const quote = formatQuote(spec, fill.quote)
    const base = formatAmount(spec, fill.amount)
    return {
      transactionId: `${fill.market}-${fill.fillId}-${fill.side}`,
      executedAt: new Date(fill.timestamp).toISOString(),
      type: fill.side,
      priceCurrency: spec.quote,
      priceAmount: formatPrice(spec, fill.price),
      sentCurrency: fill.side === 'buy' ? spec.quote : spec.base,
      sentAmount: fill.side === 'buy' ? quote : base,
      receivedCurrency: fill.side === 'buy' ? spec.base : spec.quote,
      receivedAmount: fill.side === 'buy' ? base : quote,
      feesCurrency: fill.feeCurrency,
      feesAmount: formatQuote(spec, fill.fee),
      address: null,
    }
  }

  /** A staking reward as an item of `/account/history`: received, with no fee. */
  const rewardLedgerItem = (reward: StakingReward, timestamp: number): Record<string, unknown> => {
    const decimals = decimalsOf(reward.asset)
    return {
      transactionId: `staking-${reward.asset}-${new Date(reward.dayMs).toISOString().slice(0, 10)}`,
      executedAt: new Date(timestamp).toISOString(),
      type: 'staking',
      priceCurrency: null,
      priceAmount: null,
      sentCurrency: null,
      sentAmount: null,
      receivedCurrency: reward.asset,
      receivedAmount: formatLedgerUnits(BigInt(reward.amount), decimals),
      feesCurrency: reward.asset,
      feesAmount: formatLedgerUnits(0n, decimals),
      address: null,
    }
  }

  /** A deposit or withdrawal as an item of `/account/history`. */
  const transferLedgerItem = (transfer: Transfer): Record<string, unknown> => {
    const decimals = decimalsOf(transfer.asset)
    const amount = formatLedgerUnits(BigInt(transfer.amount), decimals)
    const deposit = transfer.kind === 'deposit'
    return {
      transactionId: transfer.reference,
      executedAt: new Date(transfer.timestamp).toISOString(),
      type: deposit ? 'deposit' : 'withdrawal',
      priceCurrency: null,
      priceAmount: null,
      sentCurrency: deposit ? null : transfer.asset,
      sentAmount: deposit ? null : amount,
      receivedCurrency: deposit ? transfer.asset : null,
      receivedAmount: deposit ? amount : null,
      feesCurrency: transfer.asset,
      feesAmount: formatLedgerUnits(BigInt(transfer.fee), decimals),
      address: transfer.address ?? null,
    }
  }

  return {
    warmAccount: async (accountId) => void (await accounts.loadFeeTier(accountId)),
    // The stored tier read again: a change made in the database directly reaches the next
    // savings run at once, not at the next sweep.
    currentFees: async (accountId) => {
      await accounts.loadFeeTier(accountId)
      return feesOf(accountId)
    },
  }
}
