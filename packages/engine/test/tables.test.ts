import { expect, test } from 'vitest'
import { Engine, EventLog, Order } from '../src/index.ts'
import { OpenCounts } from '../src/open-counts.ts'
import { ClosedOrder, hashOrderId, OrderIndex } from '../src/order-index.ts'
import { CommandGenerator, randomMarkets, seeded } from './generate.ts'

// The engine's own hash tables against a Map, on seeded random operations dense enough that
// probe runs collide, wrap around the table end and are shifted back on removal.

test('OpenCounts counts like a Map through growth and backward-shift removals', () => {
  const counts = new OpenCounts()
  const model = new Map<string, number>()
  const draw = seeded(7)
  const accounts = [0, 1, -5, 2 ** 31, 2 ** 32 + 3, Number.MAX_SAFE_INTEGER, -(2 ** 40)]
  for (let index = 0; index < 200; index++) accounts.push(index * 4_096)
  for (let step = 0; step < 60_000; step++) {
    const accountId = accounts[draw.int(accounts.length)] as number
    const marketIndex = draw.int(40)
    const key = `${accountId}/${marketIndex}`
    const count = model.get(key) ?? 0
    expect(counts.get(accountId, marketIndex)).toBe(count)
    if (count > 0 && draw.int(step < 30_000 ? 3 : 2) === 0) {
      counts.decrement(accountId, marketIndex)
      if (count === 1) model.delete(key)
      else model.set(key, count - 1)
    } else {
      counts.increment(accountId, marketIndex)
      model.set(key, count + 1)
    }
  }
  for (const [key, count] of model) {
    const [accountId, marketIndex] = key.split('/').map(Number) as [number, number]
    expect(counts.get(accountId, marketIndex)).toBe(count)
  }
  expect(() => counts.decrement(123_456_789, 1)).toThrow(/underflow/)
})

test('OrderIndex finds, replaces and removes like a Map keyed by (market, orderId)', () => {
  const index = new OrderIndex()
  const model = new Map<string, Order | ClosedOrder>()
  const draw = seeded(11)
  const entry = (orderId: string, marketIndex: number, closed: boolean): Order | ClosedOrder => {
    const order = closed ? new ClosedOrder() : new Order()
    order.orderId = orderId
    order.marketIndex = marketIndex
    order.idHash = hashOrderId(orderId, marketIndex)
    return order
  }
  for (let step = 0; step < 60_000; step++) {
    const orderId = `o${draw.int(3_000)}`
    const marketIndex = draw.int(3)
    const key = `${marketIndex}/${orderId}`
    const found = index.find(orderId, marketIndex, hashOrderId(orderId, marketIndex))
    expect(found).toBe(model.get(key) ?? null)
    if (found === null) {
      const order = entry(orderId, marketIndex, draw.int(2) === 0)
      index.insert(order)
      model.set(key, order)
    } else if (draw.int(3) === 0) {
      const replacement = entry(orderId, marketIndex, true)
      index.replace(found, replacement)
      model.set(key, replacement)
    } else {
      expect(index.remove(found)).toBe(true)
      expect(index.remove(found)).toBe(false)
      model.delete(key)
    }
    expect(index.size).toBe(model.size)
  }
  for (const [key, order] of model) {
    const [marketIndex, orderId] = key.split('/') as [string, string]
    const market = Number(marketIndex)
    expect(index.find(orderId, market, hashOrderId(orderId, market))).toBe(order)
  }
})

test('hashOrderId is non-zero and depends on the market and every character', () => {
  const hashes = new Set<number>()
  for (const id of ['', 'a', 'ab', 'abc', 'ba', 'b', '0', '00', 'ÿ', '\u{1f600}']) {
    for (let market = 0; market < 3; market++) {
      const hash = hashOrderId(id, market)
      expect(hash).not.toBe(0)
      hashes.add(hash)
    }
  }
  expect(hashes.size).toBe(30)
})

test('book deltas applied to the previous bookSnapshot give the current book, after every flush', () => {
  for (const kind of ['fast', 'reference'] as const) {
    const log = new EventLog()
    const engine = new Engine({ book: kind, sink: log })
    for (const config of randomMarkets) {
      engine.addMarket({ type: 'addMarket', timestamp: 0, config })
    }
    const published = new Map<string, { bids: Map<number, number>; asks: Map<number, number> }>()
    for (const config of randomMarkets) {
      published.set(config.market, { bids: new Map(), asks: new Map() })
    }
    const generator = new CommandGenerator(seeded(2026))
    let flushes = 0
    for (let step = 0; step < 20_000; step++) {
      const command = generator.next()
      engine.execute(command)
      for (const event of log.take()) {
        if (event.type !== 'book') continue
        const sides = published.get(event.market) as {
          bids: Map<number, number>
          asks: Map<number, number>
        }
        for (const [levels, side] of [
          [event.bids, sides.bids],
          [event.asks, sides.asks],
        ] as const) {
          for (const [price, size] of levels) {
            if (size === 0) side.delete(price)
            else side.set(price, size)
          }
        }
      }
      if (command.type !== 'flushBook') continue
      flushes++
      const market = command.market
      const sides = published.get(market) as {
        bids: Map<number, number>
        asks: Map<number, number>
      }
      const sorted = (side: Map<number, number>, descending: boolean) =>
        [...side.entries()].sort((a, b) => (descending ? b[0] - a[0] : a[0] - b[0]))
      const snapshot = engine.bookSnapshot(market, 100_000)
      expect(snapshot?.bids).toEqual(sorted(sides.bids, true))
      expect(snapshot?.asks).toEqual(sorted(sides.asks, false))
      expect(snapshot?.bids).toEqual(engine.depth(market, 'buy', 100_000))
      expect(snapshot?.asks).toEqual(engine.depth(market, 'sell', 100_000))
    }
    expect(flushes).toBeGreaterThan(50)
  }
})
