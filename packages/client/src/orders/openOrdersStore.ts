import type {
  Fill,
  FillEvent,
  Order,
  OrderEvent,
  OrderStatus,
  OrderType,
  RestatementReason,
  Side,
} from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import type { CreateId } from '../environment.ts'
import {
  failed,
  initialized,
  type LoadError,
  type LoadState,
  received,
  requested,
  reset,
} from '../loadState.ts'

// Spec §3, §4: open orders and the order history built from `order` and `fill` events.
//
// | status                                    | open orders                   | history event                              |
// |-------------------------------------------|-------------------------------|--------------------------------------------|
// | new, partiallyFilled                      | added if unknown, else merged | unless market, stopLoss or takeProfit      |
// | awaitingTrigger                           | added if unknown, else merged | unless market                              |
// | filled                                    | removed                       | none (the fills are the history)           |
// | canceled*                                 | removed                       | a cancel event, unless market              |
// | expired, rejected                         | removed                       | an event, unless market                    |
// An order event older (by `updated`) than one already seen for the order is stale: ignored.
// Every fill is recorded and appended to its open order. Labels: new when created = updated.

/** History entries kept (oldest dropped first). */
export const orderEventsMax = 500
/** Orders whose last `updated` is remembered for the stale check. */
export const trackedOrdersMax = 10_000

export type OrderFill = {
  readonly fillId: string
  readonly timestamp: number
  readonly amount: string
  readonly price: string
  readonly taker: boolean
  readonly fee: string | undefined
  readonly feeCurrency: string | undefined
}

export type OpenOrder = {
  readonly orderId: string
  readonly market: string
  readonly amount: string | undefined
  readonly price: string | undefined
  readonly side: Side
  readonly status: OrderStatus
  readonly orderType: OrderType
  readonly triggerPrice: string | undefined
  readonly created: number
  readonly updated: number
  readonly fills: readonly OrderFill[]
  readonly filledAmount: string | undefined
  readonly filledAmountQuote: string | undefined
  readonly feePaid: string | undefined
  /** Always the quote currency of the market (spec §3). */
  readonly feeCurrency: string
}

/** What kind of history entry; `title` is the message key shown for it. */
export type OrderEventType = 'new' | 'update' | 'cancel' | 'expired' | 'rejected'

export type OrderHistoryEvent = {
  readonly eventId: string
  readonly title: string
  readonly event: 'order'
  readonly type: OrderEventType
  readonly market: string
  readonly orderId: string
  readonly created: number
  readonly updated: number
  readonly amount: string | undefined
  readonly price: string | undefined
  readonly side: Side
  readonly status: OrderStatus
  readonly reason: RestatementReason | undefined
  readonly orderType: OrderType
  readonly triggerPrice: string | undefined
}

/** A fill as a history entry: the order event's shape without status and orderType. */
export type FillHistoryEvent = {
  readonly eventId: string
  readonly title: string
  readonly event: 'fill'
  readonly type: 'fill'
  readonly market: string
  readonly orderId: string
  readonly fillId: string
  readonly created: number
  readonly updated: number
  readonly amount: string
  readonly price: string
  readonly side: Side
  readonly reason: undefined
  readonly triggerPrice: undefined
}

export type HistoryEvent = OrderHistoryEvent | FillHistoryEvent

const canceledStatuses: ReadonlySet<OrderStatus> = new Set<OrderStatus>([
  'canceled',
  'canceledAuction',
  'canceledSelfTradePrevention',
  'canceledIOC',
  'canceledFOK',
  'canceledMarketProtection',
  'canceledPostOnly',
])

/** The quote currency of a market id `BASE-QUOTE`. */
export function quoteCurrency(market: string): string {
  return market.slice(market.indexOf('-') + 1)
}

/** Whether an order event of this status and type goes into the history (spec §4). */
export function isRecordedInHistory(status: OrderStatus, orderType: OrderType): boolean {
  switch (status) {
    case 'new':
    case 'partiallyFilled':
      return orderType !== 'market' && orderType !== 'stopLoss' && orderType !== 'takeProfit'
    case 'awaitingTrigger':
      return orderType !== 'market'
    case 'filled':
      return false
    default:
      return orderType !== 'market'
  }
}

function historyType(event: OrderEvent): OrderEventType {
  if (canceledStatuses.has(event.status)) return 'cancel'
  if (event.status === 'expired') return 'expired'
  if (event.status === 'rejected') return 'rejected'
  return event.created === event.updated ? 'new' : 'update'
}

function isOpenStatus(status: OrderStatus): boolean {
  return status === 'new' || status === 'partiallyFilled' || status === 'awaitingTrigger'
}

function toOrderFill(fill: Fill): OrderFill {
  return {
    fillId: fill.id,
    timestamp: fill.timestamp,
    amount: fill.amount,
    price: fill.price,
    taker: fill.taker,
    fee: fill.fee,
    feeCurrency: fill.feeCurrency,
  }
}

/** An open order from a `privateGetOrdersOpen` row. */
export function openOrderFromOrder(order: Order): OpenOrder {
  return {
    orderId: order.orderId,
    market: order.market,
    amount: order.amount,
    price: order.price,
    side: order.side,
    status: order.status,
    orderType: order.orderType,
    triggerPrice: order.triggerPrice ?? order.triggerAmount,
    created: order.created,
    updated: order.updated,
    fills: order.fills.map(toOrderFill),
    filledAmount: order.filledAmount,
    filledAmountQuote: order.filledAmountQuote,
    feePaid: order.feePaid,
    feeCurrency: quoteCurrency(order.market),
  }
}

function mergeOrderEvent(known: OpenOrder | undefined, event: OrderEvent): OpenOrder {
  return {
    orderId: event.orderId,
    market: event.market,
    amount: event.amount ?? known?.amount,
    price: event.price ?? known?.price,
    side: event.side,
    status: event.status,
    orderType: event.orderType,
    triggerPrice: event.triggerPrice ?? event.triggerAmount ?? known?.triggerPrice,
    created: event.created,
    updated: event.updated,
    fills: known?.fills ?? [],
    filledAmount: event.filledAmount ?? known?.filledAmount,
    filledAmountQuote: event.filledAmountQuote ?? known?.filledAmountQuote,
    feePaid: event.feePaid ?? known?.feePaid,
    feeCurrency: quoteCurrency(event.market),
  }
}

export type OpenOrdersState = {
  readonly load: LoadState<readonly OpenOrder[]>
  /** Newest last; at most `orderEventsMax`. */
  readonly history: readonly HistoryEvent[]
  request(market?: string): void
  receive(orders: readonly Order[]): void
  fail(error: LoadError): void
  reset(error?: LoadError): void
  applyOrderEvent(event: OrderEvent): void
  applyFillEvent(event: FillEvent): void
}

export type OpenOrdersStore = StoreApi<OpenOrdersState>

function appendHistory(
  history: readonly HistoryEvent[],
  entry: HistoryEvent,
): readonly HistoryEvent[] {
  const next = [...history, entry]
  return next.length > orderEventsMax ? next.slice(next.length - orderEventsMax) : next
}

export function createOpenOrdersStore(createId: CreateId): OpenOrdersStore {
  // Last `updated` seen per order, in insertion order so the oldest can be forgotten first.
  const lastUpdated = new Map<string, number>()
  const remember = (orderId: string, updated: number): void => {
    lastUpdated.delete(orderId)
    lastUpdated.set(orderId, updated)
    if (lastUpdated.size > trackedOrdersMax) {
      const oldest = lastUpdated.keys().next().value
      if (oldest !== undefined) lastUpdated.delete(oldest)
    }
  }

  return createStore<OpenOrdersState>()((set, get) => ({
    load: initialized,
    history: [],
    request: (market) => set({ load: requested(market) }),
    receive: (orders) => {
      for (const order of orders) {
        if ((lastUpdated.get(order.orderId) ?? -1) <= order.updated) {
          remember(order.orderId, order.updated)
        }
      }
      set({ load: received(orders.map(openOrderFromOrder)) })
    },
    fail: (error) => set({ load: failed(error) }),
    reset: (error) => set({ load: reset(error) }),

    applyOrderEvent: (event) => {
      const seen = lastUpdated.get(event.orderId)
      if (seen !== undefined && event.updated < seen) return // stale
      remember(event.orderId, event.updated)
      const state = get()
      let load = state.load
      if (load.status === 'received') {
        const orders = load.data
        const index = orders.findIndex((order) => order.orderId === event.orderId)
        if (isOpenStatus(event.status)) {
          const merged = mergeOrderEvent(index < 0 ? undefined : orders[index], event)
          load = received(index < 0 ? [...orders, merged] : orders.with(index, merged))
        } else if (index >= 0) {
          load = received(orders.toSpliced(index, 1))
        }
      }
      let history = state.history
      if (isRecordedInHistory(event.status, event.orderType)) {
        const type = historyType(event)
        history = appendHistory(history, {
          eventId: createId(),
          title: `order_event_${type}`,
          event: 'order',
          type,
          market: event.market,
          orderId: event.orderId,
          created: event.created,
          updated: event.updated,
          amount: event.amount,
          price: event.price,
          side: event.side,
          status: event.status,
          reason: event.restatementReason,
          orderType: event.orderType,
          triggerPrice: event.triggerPrice ?? event.triggerAmount,
        })
      }
      set({ load, history })
    },

    applyFillEvent: (event) => {
      const state = get()
      const history = appendHistory(state.history, {
        eventId: createId(),
        title: 'order_event_fill',
        event: 'fill',
        type: 'fill',
        market: event.market,
        orderId: event.orderId,
        fillId: event.fillId,
        created: event.timestamp,
        updated: event.timestamp,
        amount: event.amount,
        price: event.price,
        side: event.side,
        reason: undefined,
        triggerPrice: undefined,
      })
      let load = state.load
      if (load.status === 'received') {
        const index = load.data.findIndex((order) => order.orderId === event.orderId)
        const known = index < 0 ? undefined : load.data[index]
        if (known !== undefined) {
          const fill: OrderFill = {
            fillId: event.fillId,
            timestamp: event.timestamp,
            amount: event.amount,
            price: event.price,
            taker: event.taker,
            fee: event.fee,
            feeCurrency: event.feeCurrency,
          }
          load = received(load.data.with(index, { ...known, fills: [...known.fills, fill] }))
        }
      }
      set({ load, history })
    },
  }))
}
