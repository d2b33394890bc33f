import type { OrderStatus, OrderType } from '@polder/protocol'
import { describe, expect, test } from 'vitest'
import { createOpenOrdersStore, isRecordedInHistory, type OpenOrder } from '../src/index.ts'
import { fillEvent, orderEvent, orderId, otherOrderId, sequentialIds } from './support/fixtures.ts'
import { openOrder } from './support/wireFixtures.ts'

// Spec §3, §4: open orders and order events.

function setup(received = true) {
  const store = createOpenOrdersStore(sequentialIds())
  if (received) store.getState().receive([])
  const orders = (): readonly OpenOrder[] => {
    const load = store.getState().load
    return load.status === 'received' ? load.data : []
  }
  return { store, orders, history: () => store.getState().history }
}

const allTypes: OrderType[] = [
  'market',
  'limit',
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
]
const canceled: OrderStatus[] = [
  'canceled',
  'canceledSelfTradePrevention',
  'canceledIOC',
  'canceledFOK',
  'canceledMarketProtection',
  'canceledPostOnly',
]

describe('spec §4 order events', () => {
  test('new and partiallyFilled add the order to open orders if unknown', () => {
    const { store, orders } = setup()
    store.getState().applyOrderEvent(orderEvent())
    store
      .getState()
      .applyOrderEvent(orderEvent({ orderId: otherOrderId, status: 'partiallyFilled' }))
    expect(orders().map((order) => [order.orderId, order.status])).toEqual([
      [orderId, 'new'],
      [otherOrderId, 'partiallyFilled'],
    ])
  })

  test('new and partiallyFilled update the known fields of a known order', () => {
    const { store, orders } = setup()
    store.getState().receive([openOrder])
    store.getState().applyOrderEvent(
      orderEvent({
        status: 'partiallyFilled',
        updated: 2_000,
        filledAmount: '0.4',
        price: undefined,
      }),
    )
    expect(orders()).toHaveLength(1)
    expect(orders()[0]).toMatchObject({
      status: 'partiallyFilled',
      filledAmount: '0.4',
      price: '30000', // not in the event: kept
      updated: 2_000,
    })
  })

  test('new and partiallyFilled are recorded unless orderType is market, stopLoss or takeProfit', () => {
    for (const status of ['new', 'partiallyFilled'] as const) {
      for (const orderType of allTypes) {
        const { store, history } = setup()
        store.getState().applyOrderEvent(orderEvent({ status, orderType }))
        const excluded = ['market', 'stopLoss', 'takeProfit'].includes(orderType)
        expect(history(), `${status} ${orderType}`).toHaveLength(excluded ? 0 : 1)
      }
    }
  })

  test('awaitingTrigger is the same, but only market orders are excluded from history', () => {
    for (const orderType of allTypes) {
      const { store, history, orders } = setup()
      store.getState().applyOrderEvent(orderEvent({ status: 'awaitingTrigger', orderType }))
      expect(orders()).toHaveLength(1)
      expect(history(), orderType).toHaveLength(orderType === 'market' ? 0 : 1)
    }
  })

  test('an event is labelled new if created equals updated, else update', () => {
    const { store, history } = setup()
    store.getState().applyOrderEvent(orderEvent({ created: 1_000, updated: 1_000 }))
    store.getState().applyOrderEvent(orderEvent({ created: 1_000, updated: 1_001 }))
    expect(history().map((entry) => [entry.type, entry.title])).toEqual([
      ['new', 'order_event_new'],
      ['update', 'order_event_update'],
    ])
  })

  test('filled removes the order from open orders', () => {
    const { store, orders, history } = setup()
    store.getState().applyOrderEvent(orderEvent())
    store.getState().applyOrderEvent(orderEvent({ status: 'filled', updated: 2_000 }))
    expect(orders()).toEqual([])
    expect(history().map((entry) => entry.type)).toEqual(['new'])
  })

  test('every canceled status removes the order and records a cancel event, except for market orders', () => {
    for (const status of [...canceled, 'canceledAuction' as const]) {
      for (const orderType of ['limit', 'market'] as const) {
        const { store, orders, history } = setup()
        store.getState().applyOrderEvent(orderEvent({ orderType, status: 'awaitingTrigger' }))
        store.getState().applyOrderEvent(orderEvent({ orderType, status, updated: 2_000 }))
        expect(orders(), status).toEqual([])
        const cancels = history().filter((entry) => entry.type === 'cancel')
        expect(cancels, `${status} ${orderType}`).toHaveLength(orderType === 'market' ? 0 : 1)
      }
    }
  })

  test('expired and rejected record an event, except for market orders', () => {
    for (const status of ['expired', 'rejected'] as const) {
      for (const orderType of allTypes) {
        const { store, history, orders } = setup()
        store.getState().applyOrderEvent(orderEvent({ orderType, status }))
        expect(
          history().map((entry) => entry.type),
          `${status} ${orderType}`,
        ).toEqual(orderType === 'market' ? [] : [status])
        expect(orders()).toEqual([])
      }
    }
  })

  test('the history table of spec §4 in one function', () => {
    expect(isRecordedInHistory('new', 'stopLossLimit')).toBe(true)
    expect(isRecordedInHistory('partiallyFilled', 'takeProfit')).toBe(false)
    expect(isRecordedInHistory('awaitingTrigger', 'stopLoss')).toBe(true)
    expect(isRecordedInHistory('filled', 'limit')).toBe(false)
    expect(isRecordedInHistory('canceledIOC', 'market')).toBe(false)
    expect(isRecordedInHistory('rejected', 'takeProfit')).toBe(true)
  })

  test('an event older by updated than a known event for the same order is stale and not added', () => {
    const { store, history, orders } = setup()
    store.getState().applyOrderEvent(orderEvent({ status: 'partiallyFilled', updated: 5_000 }))
    store.getState().applyOrderEvent(orderEvent({ status: 'new', updated: 1_000 }))
    expect(history()).toHaveLength(1)
    expect(orders()[0]?.status).toBe('partiallyFilled')
    // Another order's older event is not stale.
    store.getState().applyOrderEvent(orderEvent({ orderId: otherOrderId, updated: 1_000 }))
    expect(history()).toHaveLength(2)
  })

  test('every history entry gets a generated unique eventId', () => {
    const { store, history } = setup()
    store.getState().applyOrderEvent(orderEvent())
    store.getState().applyOrderEvent(orderEvent({ updated: 1_001 }))
    store.getState().applyFillEvent(fillEvent())
    const ids = history().map((entry) => entry.eventId)
    expect(ids).toEqual(['event-1', 'event-2', 'event-3'])
  })

  test('a fill event is always recorded and appended to the fills of the matching open order', () => {
    const { store, history, orders } = setup()
    store.getState().applyOrderEvent(orderEvent({ orderType: 'market' })) // not in history
    store.getState().applyFillEvent(fillEvent({ fillId: 'f1' }))
    store.getState().applyFillEvent(fillEvent({ fillId: 'f2', amount: '0.25' }))
    store.getState().applyFillEvent(fillEvent({ fillId: 'f3', orderId: otherOrderId }))
    expect(history().map((entry) => entry.type)).toEqual(['fill', 'fill', 'fill'])
    expect(history()[0]).not.toHaveProperty('status')
    expect(history()[0]).not.toHaveProperty('orderType')
    expect(orders()[0]?.fills.map((fill) => fill.fillId)).toEqual(['f1', 'f2'])
  })

  test('a fill is recorded even before open orders were received', () => {
    const { store, history } = setup(false)
    store.getState().applyFillEvent(fillEvent())
    expect(history()).toHaveLength(1)
    expect(store.getState().load.status).toBe('initialized')
  })

  test('feeCurrency is the quote currency of the market', () => {
    const { store, orders } = setup()
    store.getState().applyOrderEvent(orderEvent({ market: 'ETH-USDC', feeCurrency: 'ETH' }))
    expect(orders()[0]?.feeCurrency).toBe('USDC')
    store.getState().receive([{ ...openOrder, market: 'SOL-EUR', feeCurrency: 'SOL' }])
    expect(orders()[0]?.feeCurrency).toBe('EUR')
  })
})
