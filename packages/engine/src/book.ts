import type { Order } from './order.ts'
import type { Side } from './types.ts'

/**
 * One market's resting limit orders in price-time priority. The engine owns the matching rules;
 * a book only keeps order and answers questions about it, so two implementations can be compared
 * operation by operation (the differential test):
 * - `ReferenceBook`: sorted arrays, obviously correct, slow;
 * - `FastBook`: price levels with intrusive order lists, pooled levels, no allocation per insert.
 *
 * Discipline: the engine calls `remove` and `reduce` BEFORE it changes `order.amountRemaining`,
 * and sets `order.seq` (a new, larger sequence) before every `insert`.
 */
export interface Book {
  /** Appends a resting order at the tail of its price level (last in time priority). */
  insert(order: Order): void
  /** Removes a resting order; its `amountRemaining` is still the resting size. */
  remove(order: Order): void
  /** The order keeps its place and rests with `quantity` less; the caller updates the order. */
  reduce(order: Order, quantity: number): void
  /** The first order in priority on a side, or null. */
  best(side: Side): Order | null
  /** The order after `order` in priority on its side (possibly on the next level), or null. */
  next(order: Order): Order | null
  /** Best price of a side; 0 when the side is empty. */
  bestPrice(side: Side): number
  /** Total resting base units at the best price of a side; 0 when the side is empty. */
  bestSize(side: Side): number
  /** Total resting base units at a price (0 when no level). */
  sizeAt(side: Side, price: number): number
  /** Number of resting orders on a side. */
  orderCount(side: Side): number
  /**
   * Writes up to `depthMax` levels, best first, with the number of orders resting at each, as
   * [price, size, orders, price, size, orders, ...].
   */
  levels(side: Side, depthMax: number, out: number[]): void
  /** Every resting order of a side in priority order. */
  forEach(side: Side, visit: (order: Order) => void): void
}

export type BookKind = 'fast' | 'reference'
