// The core's order history: what it keeps of an account's orders, and in what order it lists them.
import type { EngineEvent } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import {
  closedKeptMs,
  closedOrderKeptMs,
  OrderHistory,
  type OrderHistorySnapshot,
  type OrderRecord,
  orderFillsKeptMax,
  ordersPerAccountMax,
} from '../src/core/orderHistory.ts'
import { closed, idOf, t0 } from './fixtures/closedOrder.ts'

/** The events the engine gives for an order placed and closed at once. */
const eventsOf = (record: OrderRecord): EngineEvent[] => [
  // A taker's fills come before its first order event.
  ...record.fills,
  { type: 'order', ...record.state },
]
const everything = { startMs: 0, endMs: Number.MAX_SAFE_INTEGER, limit: 100_000 }

describe('order history', () => {
  it('keeps the fills of an order that traded at once, which come before its order event', () => {
    const history = new OrderHistory()
    const record = closed(1, 'BTC-EUR', 2) // filled, with one fill
    history.record(eventsOf(record))
    expect(history.order('BTC-EUR', idOf(2))).toEqual(record)
    expect(history.fillsOf(1)).toEqual(record.fills)
  })

  it("keeps a closed order as its state's JSON text, without the event's type", () => {
    const history = new OrderHistory()
    const record = closed(1, 'BTC-EUR', 2)
    history.record(eventsOf(record))
    expect(history.closedOrderText('BTC-EUR', idOf(2))?.stateText).toBe(
      JSON.stringify(record.state),
    )
  })

  it('gives an order from an older snapshot the fills it was kept without', () => {
    const history = new OrderHistory()
    const record = closed(1, 'BTC-EUR', 2)
    history.record(eventsOf(record))
    // As a snapshot of before 2026-11-26 holds it: the taker's order without its fill.
    const snapshot = JSON.parse(JSON.stringify(history.snapshot())) as OrderHistorySnapshot
    const [, kept] = [...snapshot.orders][0]!
    kept.fills = []
    expect(OrderHistory.restore(snapshot).order('BTC-EUR', idOf(2))).toEqual(record)
  })

  it("finds an order only in its own market, by another market's name neither", () => {
    const history = new OrderHistory()
    const record = closed(1, 'BTC-EUR', 2, t0, { clientOrderId: 'mine' })
    history.record(eventsOf(record))
    expect(history.order('BTC-EUR', idOf(2))).toEqual(record)
    expect(history.order('ETH-EUR', idOf(2))).toBeUndefined()
    expect(history.closedOrderText('ETH-EUR', idOf(2))).toBeUndefined()
    expect(history.orderByClientId(1, 'ETH-EUR', 'mine')).toBeUndefined()
    expect(history.orderByClientId(1, 'BTC-EUR', 'mine')).toEqual(record)
    expect(history.ordersIn(1, 'ETH-EUR', everything)).toEqual([])
  })

  it('restores a snapshot whose account lists name orders by market and id (before 2026-11-27)', () => {
    const history = new OrderHistory()
    const btc = closed(1, 'BTC-EUR', 2)
    const eth = closed(1, 'ETH-EUR', 3)
    history.record(eventsOf(btc))
    history.record(eventsOf(eth))
    const snapshot = JSON.parse(JSON.stringify(history.snapshot())) as OrderHistorySnapshot
    // The snapshot names each order by market and id; its account lists name them by id, in a
    // field of their own (a build of before reads `byAccount` as market-and-id keys).
    expect([...snapshot.orders].map(([key]) => key)).toEqual([
      `BTC-EUR ${idOf(2)}`,
      `ETH-EUR ${idOf(3)}`,
    ])
    expect(snapshot.byAccount).toEqual([])
    expect(snapshot.orderIdsByAccount).toEqual([[1, [idOf(2), idOf(3)]]])
    const older: OrderHistorySnapshot = {
      ...snapshot,
      byAccount: [[1, [`BTC-EUR ${idOf(2)}`, `ETH-EUR ${idOf(3)}`]]],
      orderIdsByAccount: undefined,
    }
    for (const restored of [OrderHistory.restore(snapshot), OrderHistory.restore(older)]) {
      expect(restored.ordersIn(1, 'BTC-EUR', everything)).toEqual([btc])
      expect(restored.ordersIn(1, 'ETH-EUR', everything)).toEqual([eth])
      expect(restored.order('ETH-EUR', idOf(2))).toBeUndefined()
      // And an order recorded after the restore is listed with them.
      const later = closed(1, 'BTC-EUR', 4)
      restored.record(eventsOf(later))
      expect(restored.ordersIn(1, 'BTC-EUR', everything)).toEqual([later, btc])
    }
  })

  it('forgets the oldest closed orders past 10,000, but none that closed in the last 10 s', () => {
    const history = new OrderHistory()
    const count = ordersPerAccountMax * 2 + 1
    // All closed within 5 s: none may go yet.
    for (let serial = 1; serial <= count; serial += 1)
      history.record(eventsOf(closed(1, 'BTC-EUR', serial, t0 + Math.floor(serial / 2))))
    expect(history.ordersIn(1, 'BTC-EUR', everything)).toHaveLength(count)
    // The next trim, 1,024 orders on and over 10 s later, drops the oldest down to 5,000.
    const later = t0 + count + closedOrderKeptMs
    for (let serial = count + 1; serial <= count + 1_024; serial += 1)
      history.record(eventsOf(closed(1, 'BTC-EUR', serial, later + serial)))
    const kept = history.ordersIn(1, 'BTC-EUR', everything)
    expect(kept).toHaveLength(ordersPerAccountMax)
    expect(kept.at(-1)!.state.orderId).toBe(idOf(count + 1_024 - ordersPerAccountMax + 1))
    expect(history.order('BTC-EUR', idOf(1))).toBeUndefined()
  })

  it("lets go of an account's closed orders and fills once it has had no order event or fill for an hour, however few it has; its open orders stay", () => {
    const history = new OrderHistory()
    // Two accounts with a few orders each; one keeps an order open.
    for (const serial of [1, 2, 3, 4])
      history.record(eventsOf(closed(serial % 2, 'BTC-EUR', serial)))
    const open = closed(0, 'BTC-EUR', 5)
    history.record([{ type: 'order', ...open.state, status: 'new', updated: open.state.created }])
    expect(history.ordersIn(1, 'BTC-EUR', everything)).toHaveLength(2)
    expect(history.fillsOf(0)).toHaveLength(2) // serials 2 and 4 traded
    const snapshot = history.snapshot()

    // Just under an hour after account 1's last order closed: nothing goes.
    const account1LastMs = closed(1, 'BTC-EUR', 3).state.updated
    const account0LastMs = open.state.created // account 0's last event: its open order
    const another = (serial: number, created: number) =>
      eventsOf(closed(7, 'ETH-EUR', serial, created))
    history.record(another(10, account1LastMs + closedKeptMs - 501)) // closes 500 ms later
    expect(history.ordersIn(1, 'BTC-EUR', everything)).toHaveLength(2)
    expect(history.fillsOf(0)).toHaveLength(2)
    // An hour after either account's last event: their closed orders and fills go, the open
    // order stays.
    history.record(another(11, account0LastMs + closedKeptMs + 1))
    expect(history.ordersIn(1, 'BTC-EUR', everything)).toEqual([])
    expect(
      history.ordersIn(0, 'BTC-EUR', everything).map((record) => record.state.orderId),
    ).toEqual([idOf(5)])
    expect(history.order('BTC-EUR', idOf(2))).toBeUndefined()
    expect(history.orderByClientId(1, 'BTC-EUR', 'client-3')).toBeUndefined()
    expect(history.fillsOf(0)).toEqual([])
    expect(history.fillsOf(1)).toEqual([])
    expect(history.ordersIn(7, 'ETH-EUR', everything)).toHaveLength(2)

    // Read back from the snapshot of before, the same events let go of the same.
    const restored = OrderHistory.restore(
      JSON.parse(JSON.stringify({ ...snapshot, orders: [...snapshot.orders] })),
    )
    expect(restored.ordersIn(1, 'BTC-EUR', everything)).toHaveLength(2)
    restored.record(another(10, account1LastMs + closedKeptMs - 501))
    restored.record(another(11, account0LastMs + closedKeptMs + 1))
    expect(restored.ordersIn(1, 'BTC-EUR', everything)).toEqual([])
    expect(restored.fillsOf(0)).toEqual([])
    expect(JSON.parse(JSON.stringify({ ...restored.snapshot(), orders: [] }))).toEqual(
      JSON.parse(JSON.stringify({ ...history.snapshot(), orders: [] })),
    )
    expect([...restored.snapshot().orders].length).toBe([...history.snapshot().orders].length)
  })

  it('lets go of the same accounts after a snapshot as the history that wrote it, after a clock step back too', () => {
    const live = new OrderHistory()
    // Account 1's order closes at t0 + 1,500; the clock steps back, account 2's closes at t0 + 500.
    live.record(eventsOf(closed(1, 'BTC-EUR', 1, t0 + 1_000)))
    live.record(eventsOf(closed(2, 'BTC-EUR', 3, t0)))
    const restored = OrderHistory.restore(JSON.parse(JSON.stringify(live.snapshot())))
    // An hour after account 1's last event, another account's order: both let go alike.
    const later = closed(3, 'ETH-EUR', 5, t0 + 1_000 + closedKeptMs)
    for (const history of [live, restored]) history.record(eventsOf(later))
    for (const accountId of [1, 2])
      expect(restored.ordersIn(accountId, 'BTC-EUR', everything), `account ${accountId}`).toEqual(
        live.ordersIn(accountId, 'BTC-EUR', everything),
      )
  })

  it("keeps an order's newest fills past twice the most it keeps, counting the earlier ones, through a snapshot too", () => {
    const history = new OrderHistory()
    const resting = closed(1, 'BTC-EUR', 1, t0, { filled: true })
    const [model] = resting.fills
    const fill = (serial: number) => ({ ...model!, fillId: serial, timestamp: t0 + serial })
    history.record([{ type: 'order', ...resting.state, status: 'new', updated: t0 }])
    // Filled one fill at a time, up to twice the most kept: all of them still held.
    for (let serial = 1; serial <= orderFillsKeptMax * 2; serial += 1)
      history.record([fill(serial)])
    expect(history.order('BTC-EUR', idOf(1))!.fills).toHaveLength(orderFillsKeptMax * 2)
    expect(history.order('BTC-EUR', idOf(1))!.earlierFills).toBeUndefined()
    const before = history.snapshot()
    // One more: the oldest go, down to the most kept, and are counted.
    history.record([fill(orderFillsKeptMax * 2 + 1)])
    const trimmed = history.order('BTC-EUR', idOf(1))!
    expect(trimmed.fills.map((kept) => kept.fillId)).toEqual(
      Array.from({ length: orderFillsKeptMax }, (_, at) => orderFillsKeptMax + 2 + at),
    )
    expect(trimmed.earlierFills).toBe(orderFillsKeptMax + 1)
    // A snapshot taken before the trim still writes what the order had then.
    const [, held] = [...before.orders][0]!
    expect(held.fills).toHaveLength(orderFillsKeptMax * 2)
    expect(held.earlierFills).toBeUndefined()
    // Read back, the order has its newest fills and the count of the others; it closes so.
    const restored = OrderHistory.restore(JSON.parse(JSON.stringify(history.snapshot())))
    expect(restored.order('BTC-EUR', idOf(1))).toEqual(trimmed)
    restored.record([{ type: 'order', ...resting.state, updated: t0 + 10_000 }])
    expect(restored.closedOrderText('BTC-EUR', idOf(1))).toMatchObject({
      earlierFills: orderFillsKeptMax + 1,
      fills: trimmed.fills,
    })
    expect(restored.ordersIn(1, 'BTC-EUR', everything)[0]!.earlierFills).toBe(orderFillsKeptMax + 1)
    // The account's recent fills are the account's, kept as before (up to 5,000 or more).
    expect(restored.fillsOf(1)).toHaveLength(orderFillsKeptMax * 2 + 1)
  })

  it('keeps the newest fills of an order that traded more than twice the most kept on arrival', () => {
    const history = new OrderHistory()
    const taker = closed(1, 'BTC-EUR', 2)
    const [model] = taker.fills
    const count = orderFillsKeptMax * 2 + 5
    const fills = Array.from({ length: count }, (_, at) => ({ ...model!, fillId: at + 1 }))
    history.record([...fills, { type: 'order', ...taker.state }])
    const kept = history.order('BTC-EUR', idOf(2))!
    expect(kept.fills).toEqual(fills.slice(-orderFillsKeptMax))
    expect(kept.earlierFills).toBe(count - orderFillsKeptMax)
  })

  it('lists by creation time, then id, within a window and between two orders', () => {
    const history = new OrderHistory()
    // Placed out of time order (a test clock); three share one millisecond.
    for (const [serial, created] of [
      [1, t0 + 5],
      [2, t0 + 1],
      [4, t0 + 3],
      [3, t0 + 3],
      [5, t0 + 3],
    ] as const)
      history.record(eventsOf(closed(1, 'BTC-EUR', serial, created)))
    history.record(eventsOf(closed(2, 'BTC-EUR', 6, t0 + 3)))
    const serials = (window: object) =>
      history
        .ordersIn(1, 'BTC-EUR', { ...everything, ...window })
        .map((record) => Number(record.state.orderId.slice(-12)))
    expect(serials({})).toEqual([1, 5, 4, 3, 2])
    expect(serials({ startMs: t0 + 2, endMs: t0 + 4 })).toEqual([5, 4, 3])
    const key = (serial: number, created: number) => ({ created, orderId: idOf(serial) })
    expect(serials({ from: key(3, t0 + 3), to: key(4, t0 + 3) })).toEqual([4, 3])
    expect(serials({ to: key(4, t0 + 3), limit: 2 })).toEqual([4, 3])
    expect(history.ordersIn(1, 'ETH-EUR', everything)).toEqual([])
    // The archive's catch-up takes them in the order they closed.
    const closes = history.closedSince(t0 + 500 + 3)
    expect(closes.map((record) => record.state.updated)).toEqual([
      t0 + 503,
      t0 + 503,
      t0 + 503,
      t0 + 503,
      t0 + 505,
    ])
    expect(history.newestCloseMs()).toBe(t0 + 505)
  })
})

describe('transfers in the order history', () => {
  const deposit = (reference: string, timestamp = t0) => ({
    kind: 'deposit' as const,
    timestamp,
    asset: 'EUR',
    amount: '1000000000000000000',
    fee: '0',
    reference,
  })

  it('are numbered per account, and those changed are handed over once, each as it was then', () => {
    const history = new OrderHistory()
    history.recordTransfer(1, deposit('a'))
    history.recordTransfer(2, deposit('b'))
    history.recordTransfer(1, { ...deposit('w'), kind: 'withdraw', status: 'awaiting_processing' })
    expect(
      history.takeTransferChanges().map(({ accountId, transfer }) => [accountId, transfer.seq]),
    ).toEqual([
      [1, 1],
      [2, 1],
      [1, 2],
    ])
    expect(history.takeTransferChanges()).toEqual([])
    expect(history.setTransferStatus(1, 'w', 'sending')).toBe(true)
    const [sending] = history.takeTransferChanges()
    expect(history.setTransferStatus(1, 'w', 'completed')).toBe(true)
    expect(sending).toMatchObject({ accountId: 1, transfer: { seq: 2, status: 'sending' } })
    expect(history.takeTransferChanges()).toMatchObject([{ transfer: { status: 'completed' } }])
  })

  it('go on from their numbers after a snapshot; a snapshot from before the numbers has its transfers numbered from 1', () => {
    const history = new OrderHistory()
    for (const reference of ['a', 'b', 'c']) history.recordTransfer(1, deposit(reference))
    const text = JSON.stringify(history.snapshot())
    const restored = OrderHistory.restore(JSON.parse(text) as OrderHistorySnapshot)
    restored.recordTransfer(1, deposit('d'))
    expect(restored.transfersOf(1, 'deposit').map((transfer) => transfer.seq)).toEqual([4, 3, 2, 1])
    expect(restored.takeTransferChanges()).toHaveLength(1) // the restore hands over nothing

    const before = JSON.parse(text) as OrderHistorySnapshot
    for (const [, transfers] of before.transfers!)
      for (const transfer of transfers) delete (transfer as { seq?: number }).seq
    const old = OrderHistory.restore(before)
    old.recordTransfer(1, deposit('d'))
    expect(
      old.transfersOf(1, 'deposit').map((transfer) => [transfer.seq, transfer.reference]),
    ).toEqual([
      [4, 'd'],
      [3, 'c'],
      [2, 'b'],
      [1, 'a'],
    ])
    // Written by a build of before from a newer one's snapshot: the numbered keep their numbers
    // (the archive's), the others are numbered on from the highest.
    // Here the core had forgotten the first four, so a, b and c are 5, 6 and 7.
    const mixed = JSON.parse(text) as OrderHistorySnapshot
    for (const transfer of mixed.transfers![0]![1]) transfer.seq += 4
    mixed.transfers![0]![1].push({ ...deposit('x') } as never)
    const rolledBack = OrderHistory.restore(mixed)
    expect(
      rolledBack.transfersOf(1, 'deposit').map((transfer) => [transfer.seq, transfer.reference]),
    ).toEqual([
      [8, 'x'],
      [7, 'c'],
      [6, 'b'],
      [5, 'a'],
    ])
  })
})
