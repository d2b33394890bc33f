import { invariant } from './errors.ts'

/** Slots per entry: accountId, market index + 1 (0 marks an empty slot), count, padding. */
const stride = 4
const capacityMin = 1 << 10

/**
 * Open orders per (account, market) for error 235: an open-addressing hash table (linear
 * probing, backward-shift deletion) in one Float64Array. An entry exists only while its count
 * is above zero, so the table is bounded by the open orders; it never allocates per order and
 * a lookup reads one cache line or two (accounts taking turns across many markets would
 * otherwise make nearly every order create and drop a map entry of its own).
 */
export class OpenCounts {
  private table = new Float64Array(capacityMin * stride)
  private mask = capacityMin - 1
  private size = 0

  /** Open orders of the account in the market. */
  get(accountId: number, marketIndex: number): number {
    const slot = this.find(accountId, marketIndex)
    return slot < 0 ? 0 : (this.table[slot * stride + 2] as number)
  }

  increment(accountId: number, marketIndex: number): void {
    const table = this.table
    const key = marketIndex + 1
    const mask = this.mask
    for (let slot = slotOf(accountId, marketIndex, mask); ; slot = (slot + 1) & mask) {
      const at = slot * stride
      const slotKey = table[at + 1] as number
      if (slotKey === 0) {
        table[at] = accountId
        table[at + 1] = key
        table[at + 2] = 1
        if (++this.size * 2 > mask + 1) this.grow()
        return
      }
      if (slotKey === key && table[at] === accountId) {
        table[at + 2] = (table[at + 2] as number) + 1
        return
      }
    }
  }

  decrement(accountId: number, marketIndex: number): void {
    const slot = this.find(accountId, marketIndex)
    invariant(slot >= 0, 'open order count underflow')
    const table = this.table
    const count = (table[slot * stride + 2] as number) - 1
    if (count > 0) {
      table[slot * stride + 2] = count
      return
    }
    this.size--
    // Backward-shift deletion: a later entry of the probe run moves into the hole unless its
    // home slot lies cyclically in (hole, its slot].
    const mask = this.mask
    let hole = slot
    for (let next = (slot + 1) & mask; ; next = (next + 1) & mask) {
      const at = next * stride
      const nextKey = table[at + 1] as number
      if (nextKey === 0) break
      const home = slotOf(table[at] as number, nextKey - 1, mask)
      const stays = hole <= next ? hole < home && home <= next : hole < home || home <= next
      if (stays) continue
      const to = hole * stride
      table[to] = table[at] as number
      table[to + 1] = nextKey
      table[to + 2] = table[at + 2] as number
      hole = next
    }
    const to = hole * stride
    table[to] = 0
    table[to + 1] = 0
    table[to + 2] = 0
  }

  private find(accountId: number, marketIndex: number): number {
    const table = this.table
    const key = marketIndex + 1
    const mask = this.mask
    for (let slot = slotOf(accountId, marketIndex, mask); ; slot = (slot + 1) & mask) {
      const at = slot * stride
      const slotKey = table[at + 1] as number
      if (slotKey === 0) return -1
      if (slotKey === key && table[at] === accountId) return slot
    }
  }

  private grow(): void {
    const old = this.table
    const capacity = (this.mask + 1) * 2
    const table = new Float64Array(capacity * stride)
    const mask = capacity - 1
    for (let at = 0; at < old.length; at += stride) {
      const key = old[at + 1] as number
      if (key === 0) continue
      const accountId = old[at] as number
      let slot = slotOf(accountId, key - 1, mask)
      while (table[slot * stride + 1] !== 0) slot = (slot + 1) & mask
      const to = slot * stride
      table[to] = accountId
      table[to + 1] = key
      table[to + 2] = old[at + 2] as number
    }
    this.table = table
    this.mask = mask
  }
}

/** Home slot of (account, market): a 32-bit mix of the account id's two halves and the market. */
function slotOf(accountId: number, marketIndex: number, mask: number): number {
  const low = accountId | 0
  const high = (accountId / 4_294_967_296) | 0
  let hash = Math.imul(low ^ Math.imul(high, 0x27d4eb2d), 0x9e3779b1)
  hash ^= Math.imul(marketIndex + 1, 0x85ebca6b)
  hash ^= hash >>> 15
  hash = Math.imul(hash, 0x2c1b3c6d)
  hash ^= hash >>> 13
  return hash & mask
}
