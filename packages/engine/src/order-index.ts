import { invariant } from './errors.ts'
import type { Order } from './order.ts'
import type { OrderStatus, OrderType } from './types.ts'

/**
 * What the engine remembers of a recently closed order (one cache line instead of a whole
 * order record, which goes back to the pool at the end of its command, still warm).
 */
export class ClosedOrder {
  orderId = ''
  idHash = 0
  marketIndex = 0
  accountId = 0
  orderType: OrderType = 'limit'
  status: OrderStatus = 'filled'
  /** Never open: tells it apart from an `Order` in the index. */
  readonly registered = false
}

/** An entry of the index: an open order, or a remembered closed one. */
export type IndexedOrder = Order | ClosedOrder

const capacityMin = 1 << 10

/**
 * The engine's orders by (market, orderId): open orders and the recently closed ones it still
 * remembers. One open-addressing hash table for all markets (linear probing, backward-shift
 * deletion): an Int32Array of 32-bit hashes (0 marks an empty slot) next to an array of the
 * order records. A probe compares hashes in the typed array and reads a record only when the
 * hash matches, so a miss (the uniqueness check of every placement) touches no order at all,
 * and nothing is allocated per order (a Map per market would rehash into a new table every few
 * dozen orders and follow its chains through the key strings of old commands).
 *
 * The hash is computed once per command (`hashOrderId`) and kept in `order.idHash`, so
 * removing an order later needs no string work. Order ids come from the server (UUIDs), so the
 * hash needs no defence against chosen collisions.
 */
export class OrderIndex {
  private hashes = new Int32Array(capacityMin)
  private orders: (IndexedOrder | null)[] = new Array<IndexedOrder | null>(capacityMin).fill(null)
  private mask = capacityMin - 1
  private count = 0

  get size(): number {
    return this.count
  }

  /** The order with this id in the market (`hash` from `hashOrderId`), or null. */
  find(orderId: string, marketIndex: number, hash: number): IndexedOrder | null {
    const hashes = this.hashes
    const mask = this.mask
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const slotHash = hashes[slot] as number
      if (slotHash === 0) return null
      if (slotHash === hash) {
        const order = this.orders[slot] as IndexedOrder
        if (order.marketIndex === marketIndex && order.orderId === orderId) return order
      }
    }
  }

  /** Adds an order; its `idHash` and `marketIndex` must be set. */
  insert(order: IndexedOrder): void {
    const hash = order.idHash
    invariant(hash !== 0, 'order index: order without a hash')
    const hashes = this.hashes
    const mask = this.mask
    let slot = hash & mask
    while (hashes[slot] !== 0) slot = (slot + 1) & mask
    hashes[slot] = hash
    this.orders[slot] = order
    if (++this.count * 2 > mask + 1) this.grow()
  }

  /** Puts `replacement` (same market, id and hash) in the place of `order`. */
  replace(order: IndexedOrder, replacement: IndexedOrder): void {
    const hash = order.idHash
    const hashes = this.hashes
    const mask = this.mask
    for (let slot = hash & mask; ; slot = (slot + 1) & mask) {
      const slotHash = hashes[slot] as number
      invariant(slotHash !== 0, 'order index: replaced order missing')
      if (slotHash === hash && this.orders[slot] === order) {
        this.orders[slot] = replacement
        return
      }
    }
  }

  /** Removes this very entry; false if it is not in the index. */
  remove(order: IndexedOrder): boolean {
    const hash = order.idHash
    const hashes = this.hashes
    const orders = this.orders
    const mask = this.mask
    let hole = hash & mask
    for (;;) {
      const slotHash = hashes[hole] as number
      if (slotHash === 0) return false
      if (slotHash === hash && orders[hole] === order) break
      hole = (hole + 1) & mask
    }
    this.count--
    // Backward shift: an entry further along the probe run moves into the hole unless its home
    // slot lies cyclically in (hole, its slot].
    for (let next = (hole + 1) & mask; ; next = (next + 1) & mask) {
      const nextHash = hashes[next] as number
      if (nextHash === 0) break
      const home = nextHash & mask
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next
      if (stays) continue
      hashes[hole] = nextHash
      orders[hole] = orders[next] as IndexedOrder
      hole = next
    }
    hashes[hole] = 0
    orders[hole] = null
    return true
  }

  private grow(): void {
    const oldHashes = this.hashes
    const oldOrders = this.orders
    const capacity = oldHashes.length * 2
    const hashes = new Int32Array(capacity)
    const orders = new Array<IndexedOrder | null>(capacity).fill(null)
    const mask = capacity - 1
    for (let index = 0; index < oldHashes.length; index++) {
      const hash = oldHashes[index] as number
      if (hash === 0) continue
      let slot = hash & mask
      while (hashes[slot] !== 0) slot = (slot + 1) & mask
      hashes[slot] = hash
      orders[slot] = oldOrders[index] as IndexedOrder
    }
    this.hashes = hashes
    this.orders = orders
    this.mask = mask
  }
}

/** A non-zero 32-bit hash of (market, orderId): two characters per multiply, then a finaliser. */
export function hashOrderId(orderId: string, marketIndex: number): number {
  let hash = Math.imul(marketIndex + 1, 0x9e3779b1) ^ orderId.length
  const length = orderId.length
  let index = 0
  for (; index + 1 < length; index += 2) {
    hash = Math.imul(
      hash ^ (orderId.charCodeAt(index) | (orderId.charCodeAt(index + 1) << 16)),
      0x01000193,
    )
    hash ^= hash >>> 15
  }
  if (index < length) hash = Math.imul(hash ^ orderId.charCodeAt(index), 0x01000193)
  hash ^= hash >>> 16
  hash = Math.imul(hash, 0x85ebca6b)
  hash ^= hash >>> 13
  hash = Math.imul(hash, 0xc2b2ae35)
  hash ^= hash >>> 16
  return hash === 0 ? 1 : hash
}
