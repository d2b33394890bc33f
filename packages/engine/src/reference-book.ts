import type { Book } from './book.ts'
import type { Order } from './order.ts'
import type { Side } from './types.ts'

/**
 * The deliberately simple book: each side is one array of orders kept sorted by priority (best
 * price first, then lowest sequence). Every answer is recomputed from that array. It is the
 * oracle the fast book is compared with, so it favours obviousness over speed.
 */
export class ReferenceBook implements Book {
  private readonly bids: Order[] = []
  private readonly asks: Order[] = []

  insert(order: Order): void {
    const orders = this.side(order.side)
    orders.push(order)
    orders.sort(order.side === 'buy' ? bidPriority : askPriority)
  }

  remove(order: Order): void {
    const orders = this.side(order.side)
    const index = orders.indexOf(order)
    if (index < 0) throw new Error(`order ${order.orderId} is not in the book`)
    orders.splice(index, 1)
  }

  reduce(order: Order, quantity: number): void {
    // Sizes are summed from the orders themselves, so there is nothing to keep in step; only check.
    if (
      !this.side(order.side).includes(order) ||
      quantity <= 0 ||
      quantity >= order.amountRemaining
    ) {
      throw new Error(`invalid reduce of ${order.orderId} by ${quantity}`)
    }
  }

  best(side: Side): Order | null {
    return this.side(side)[0] ?? null
  }

  next(order: Order): Order | null {
    const orders = this.side(order.side)
    return orders[orders.indexOf(order) + 1] ?? null
  }

  bestPrice(side: Side): number {
    return this.side(side)[0]?.price ?? 0
  }

  bestSize(side: Side): number {
    const best = this.bestPrice(side)
    return best === 0 ? 0 : this.sizeAt(side, best)
  }

  sizeAt(side: Side, price: number): number {
    let size = 0
    for (const order of this.side(side)) if (order.price === price) size += order.amountRemaining
    return size
  }

  orderCount(side: Side): number {
    return this.side(side).length
  }

  levels(side: Side, depthMax: number, out: number[]): void {
    out.length = 0
    for (const order of this.side(side)) {
      const last = out.length - 3
      if (last >= 0 && out[last] === order.price) {
        out[last + 1] = (out[last + 1] ?? 0) + order.amountRemaining
        out[last + 2] = (out[last + 2] ?? 0) + 1
      } else {
        if (out.length / 3 >= depthMax) return
        out.push(order.price, order.amountRemaining, 1)
      }
    }
  }

  forEach(side: Side, visit: (order: Order) => void): void {
    for (const order of [...this.side(side)]) visit(order)
  }

  private side(side: Side): Order[] {
    return side === 'buy' ? this.bids : this.asks
  }
}

function bidPriority(a: Order, b: Order): number {
  return b.price - a.price || a.seq - b.seq
}

function askPriority(a: Order, b: Order): number {
  return a.price - b.price || a.seq - b.seq
}
