import type { Book } from './book.ts'
import { invariant } from './errors.ts'
import type { Order } from './order.ts'
import type { Side } from './types.ts'

/** A price level: a FIFO of orders (intrusive doubly-linked list through Order.prev/next). */
export class FastLevel {
  price = 0
  /** Sort key: price for bids, -price for asks, so the best level always has the largest key. */
  key = 0
  total = 0
  count = 0
  head: Order | null = null
  tail: Order | null = null
  /** The engine's book-change generation in which this level was last marked changed. */
  dirtyGen = 0
}

/**
 * One side: levels in an array sorted by ascending key, best level LAST. Orders arrive near the
 * touch, so inserting or removing a level moves only the few levels between it and the end; the
 * search scans a few levels from the end before falling back to binary search, over `keys`, a
 * plain number array parallel to `levels`, so it reads one or two cache lines instead of a level
 * object per step.
 */
class FastSide {
  readonly levels: FastLevel[] = []
  /** keys[i] === levels[i].key. */
  readonly keys: number[] = []
  orderCount = 0
  readonly isBid: boolean

  constructor(isBid: boolean) {
    this.isBid = isBid
  }

  /** Index of the level with `key`, or -(insertion index) - 1 when absent. */
  find(key: number): number {
    const keys = this.keys
    let high = keys.length - 1
    // Near the touch: a short linear scan from the best end.
    const scanEnd = Math.max(high - 8, 0)
    for (let index = high; index >= scanEnd; index--) {
      const levelKey = keys[index] as number
      if (levelKey === key) return index
      if (levelKey < key) return -(index + 1) - 1
    }
    if (scanEnd === 0) return -1
    let low = 0
    high = scanEnd - 1
    while (low <= high) {
      const middle = (low + high) >>> 1
      const middleKey = keys[middle] as number
      if (middleKey < key) low = middle + 1
      else if (middleKey > key) high = middle - 1
      else return middle
    }
    return -low - 1
  }
}

const levelPoolMax = 1 << 16

export class FastBook implements Book {
  // The best price and size of each side, kept current by every change, so the engine's
  // after-command ticker check reads this object only (not both sides' level arrays).
  private bidPrice = 0
  private bidSize = 0
  private askPrice = 0
  private askSize = 0
  private readonly bids = new FastSide(true)
  private readonly asks = new FastSide(false)
  private readonly levelPool: FastLevel[] = []

  insert(order: Order): void {
    const side = order.side === 'buy' ? this.bids : this.asks
    const key = side.isBid ? order.price : -order.price
    const levels = side.levels
    let index = side.find(key)
    let level: FastLevel
    if (index >= 0) {
      level = levels[index] as FastLevel
    } else {
      index = -index - 1
      level = this.levelPool.pop() ?? new FastLevel()
      level.price = order.price
      level.key = key
      level.dirtyGen = 0
      const keys = side.keys
      if (index === levels.length) {
        levels.push(level)
        keys.push(key)
      } else {
        // Shift the better levels one place towards the end; no allocation, unlike splice.
        levels.push(levels[levels.length - 1] as FastLevel)
        keys.push(keys[keys.length - 1] as number)
        for (let move = levels.length - 2; move > index; move--) {
          levels[move] = levels[move - 1] as FastLevel
          keys[move] = keys[move - 1] as number
        }
        levels[index] = level
        keys[index] = key
      }
    }
    order.level = level
    order.next = null
    order.prev = level.tail
    if (level.tail === null) level.head = order
    else level.tail.next = order
    level.tail = order
    level.count++
    level.total += order.amountRemaining
    side.orderCount++
    if (index === levels.length - 1) this.refreshBest(side)
  }

  private refreshBest(side: FastSide): void {
    const levels = side.levels
    const level = levels[levels.length - 1]
    const price = level === undefined ? 0 : level.price
    const size = level === undefined ? 0 : level.total
    if (side.isBid) {
      this.bidPrice = price
      this.bidSize = size
    } else {
      this.askPrice = price
      this.askSize = size
    }
  }

  remove(order: Order): void {
    const level = order.level
    invariant(level !== null, 'remove: order is not in the fast book')
    const side = order.side === 'buy' ? this.bids : this.asks
    if (order.prev === null) level.head = order.next
    else order.prev.next = order.next
    if (order.next === null) level.tail = order.prev
    else order.next.prev = order.prev
    order.prev = null
    order.next = null
    order.level = null
    level.count--
    level.total -= order.amountRemaining
    side.orderCount--
    if (level.count === 0) {
      invariant(level.total === 0, 'remove: empty level with a non-zero total')
      const levels = side.levels
      const last = levels.length - 1
      const keys = side.keys
      if (levels[last] === level) {
        levels.pop()
        keys.pop()
      } else {
        const index = side.find(level.key)
        invariant(index >= 0, 'remove: level not found')
        for (let move = index; move < last; move++) {
          levels[move] = levels[move + 1] as FastLevel
          keys[move] = keys[move + 1] as number
        }
        levels.pop()
        keys.pop()
      }
      level.head = null
      level.tail = null
      if (this.levelPool.length < levelPoolMax) this.levelPool.push(level)
    }
    this.refreshBest(side)
  }

  reduce(order: Order, quantity: number): void {
    const level = order.level
    invariant(level !== null, 'reduce: order is not in the fast book')
    invariant(quantity > 0 && quantity < order.amountRemaining, 'reduce: invalid quantity')
    level.total -= quantity
    const side = order.side === 'buy' ? this.bids : this.asks
    if (side.levels[side.levels.length - 1] === level) this.refreshBest(side)
  }

  best(side: Side): Order | null {
    const levels = (side === 'buy' ? this.bids : this.asks).levels
    const level = levels[levels.length - 1]
    return level === undefined ? null : level.head
  }

  next(order: Order): Order | null {
    if (order.next !== null) return order.next
    const level = order.level
    invariant(level !== null, 'next: order is not in the fast book')
    const side = order.side === 'buy' ? this.bids : this.asks
    const index = side.find(level.key)
    const worse = side.levels[index - 1]
    return worse === undefined ? null : worse.head
  }

  bestPrice(side: Side): number {
    return side === 'buy' ? this.bidPrice : this.askPrice
  }

  bestSize(side: Side): number {
    return side === 'buy' ? this.bidSize : this.askSize
  }

  sizeAt(side: Side, price: number): number {
    const fastSide = side === 'buy' ? this.bids : this.asks
    const index = fastSide.find(fastSide.isBid ? price : -price)
    return index < 0 ? 0 : (fastSide.levels[index] as FastLevel).total
  }

  orderCount(side: Side): number {
    return (side === 'buy' ? this.bids : this.asks).orderCount
  }

  levels(side: Side, depthMax: number, out: number[]): void {
    out.length = 0
    const levels = (side === 'buy' ? this.bids : this.asks).levels
    for (let index = levels.length - 1; index >= 0 && out.length < depthMax * 3; index--) {
      const level = levels[index] as FastLevel
      out.push(level.price, level.total, level.count)
    }
  }

  forEach(side: Side, visit: (order: Order) => void): void {
    const levels = (side === 'buy' ? this.bids : this.asks).levels
    for (let index = levels.length - 1; index >= 0; index--) {
      for (let order = (levels[index] as FastLevel).head; order !== null; order = order.next) {
        visit(order)
      }
    }
  }
}
