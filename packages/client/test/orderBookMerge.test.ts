import { Decimal } from 'decimal.js'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { BookSide, compareDecimals, midPriceAndSpread, OrderBook } from '../src/index.ts'

// Spec §5 merge rules and spec §3 midPrice/spread, plus property tests against a naive model.

describe('spec §5 order-book merge', () => {
  test('an amount of 0 removes that price level', () => {
    const book = new OrderBook('BTC-EUR')
    book.loadSnapshot({
      nonce: 1,
      bids: [
        ['100', '1'],
        ['99', '2'],
      ],
      asks: [['101', '1']],
    })
    book.merge({ nonce: 2, bids: [['100', '0']], asks: [['101', '0.000']] })
    expect(book.snapshot().bids).toEqual([['99', '2']])
    expect(book.snapshot().asks).toEqual([])
  })

  test('bids are sorted descending and asks ascending', () => {
    const book = new OrderBook('BTC-EUR')
    book.loadSnapshot({ nonce: 1, bids: [], asks: [] })
    book.merge({
      nonce: 2,
      bids: [
        ['99.5', '1'],
        ['100', '1'],
        ['98', '1'],
        ['99.75', '1'],
      ],
      asks: [
        ['103', '1'],
        ['101', '1'],
        ['102.5', '1'],
      ],
    })
    expect(book.snapshot().bids.map(([price]) => price)).toEqual(['100', '99.75', '99.5', '98'])
    expect(book.snapshot().asks.map(([price]) => price)).toEqual(['101', '102.5', '103'])
  })

  test('an update without a nonce is rejected', () => {
    const book = new OrderBook('BTC-EUR')
    book.loadSnapshot({ nonce: 1, bids: [['100', '1']], asks: [] })
    expect(book.merge({ bids: [['100', '5']], asks: [] })).toBe('rejectedWithoutNonce')
    expect(book.snapshot().bids).toEqual([['100', '1']])
  })

  test('updates are ignored while the book is not loaded', () => {
    const book = new OrderBook('BTC-EUR')
    expect(book.merge({ nonce: 5, bids: [['100', '5']], asks: [] })).toBe('ignoredNotLoaded')
    expect(book.snapshot().bids).toEqual([])
    book.loadSnapshot({ nonce: 5, bids: [], asks: [] })
    book.unload()
    expect(book.merge({ nonce: 6, bids: [['100', '5']], asks: [] })).toBe('ignoredNotLoaded')
  })

  test('prices are compared exactly: levels that float arithmetic confuses stay apart', () => {
    const side = new BookSide(false)
    // 0.1 + 0.2 === 0.30000000000000004 in floats; all three are distinct exact prices.
    side.apply('0.30000000000000004', '1')
    side.apply('0.3', '2')
    side.apply('0.30000000000000001', '3') // parses to the same double as '0.3'
    expect(side.toLevels()).toEqual([
      ['0.3', '2'],
      ['0.30000000000000001', '3'],
      ['0.30000000000000004', '1'],
    ])
    side.apply('0.30', '9') // the same price as '0.3'
    expect(side.toLevels()[0]).toEqual(['0.3', '9'])
    expect(side.size).toBe(3)
  })

  test('compareDecimals orders decimal strings exactly', () => {
    expect(compareDecimals('0.3', '0.30000000000000001')).toBe(-1)
    expect(compareDecimals('1.50', '1.5')).toBe(0)
    expect(compareDecimals('010', '9.999')).toBe(1)
    expect(compareDecimals('-1', '0')).toBe(-1)
    expect(compareDecimals('-1.5', '-1.25')).toBe(-1)
    expect(compareDecimals('-0', '0')).toBe(0)
  })
})

describe('spec §3 midPrice and spread', () => {
  test('midPrice and spread come from the best ask and the best bid', () => {
    const book = new OrderBook('BTC-EUR')
    book.loadSnapshot({
      nonce: 1,
      bids: [
        ['0.1', '1'],
        ['0.05', '1'],
      ],
      asks: [['0.2', '1']],
    })
    expect(book.snapshot()).toMatchObject({ midPrice: '0.15', spread: '0.1' })
  })

  test('midPrice and spread are 0 when either side is empty', () => {
    expect(midPriceAndSpread(undefined, '101')).toEqual({ midPrice: '0', spread: '0' })
    expect(midPriceAndSpread('100', undefined)).toEqual({ midPrice: '0', spread: '0' })
    const book = new OrderBook('BTC-EUR')
    book.loadSnapshot({ nonce: 1, bids: [['100', '1']], asks: [] })
    expect(book.snapshot()).toMatchObject({ midPrice: '0', spread: '0' })
  })
})

// --- property tests against a naive reference model -------------------------------------------

/** The naive model: a map from the exact value to the first spelling seen and the amount. */
class ReferenceSide {
  readonly levels = new Map<string, { price: string; amount: string }>()
  readonly descending: boolean
  constructor(descending: boolean) {
    this.descending = descending
  }
  apply(price: string, amount: string): void {
    const key = new Decimal(price).toFixed()
    if (new Decimal(amount).isZero()) {
      this.levels.delete(key)
      return
    }
    const known = this.levels.get(key)
    this.levels.set(key, { price: known?.price ?? price, amount })
  }
  toLevels(): [string, string][] {
    return [...this.levels.values()]
      .sort((a, b) => {
        const order = new Decimal(a.price).comparedTo(b.price)
        return this.descending ? -order : order
      })
      .map(({ price, amount }) => [price, amount])
  }
}

// Few digits so that the same price comes back often; some long fractions to hit float collisions.
const digits = fc.constantFrom('0', '1', '2', '3', '9')
const price = fc.oneof(
  fc
    .tuple(
      fc.array(digits, { minLength: 1, maxLength: 3 }),
      fc.array(digits, { minLength: 0, maxLength: 3 }),
    )
    .map(([integer, fraction]) =>
      fraction.length === 0 ? integer.join('') : `${integer.join('')}.${fraction.join('')}`,
    ),
  fc.constantFrom('0.3', '0.30', '0.30000000000000001', '0.30000000000000004', '0.1', '0.2'),
)
const positivePrice = price.filter((text) => !new Decimal(text).isZero())
const amount = fc.oneof(
  fc.constantFrom('0', '0.0', '0.000'),
  fc.integer({ min: 1, max: 10_000 }).map((units) => new Decimal(units).div(100).toFixed()),
)
const levels = fc.array(fc.tuple(positivePrice, amount), { maxLength: 8 })
const deltas = fc.array(fc.record({ bids: levels, asks: levels }), { maxLength: 40 })

describe('property: any sequence of valid deltas', () => {
  test('gives sorted books with no zero levels, identical to the reference model', () => {
    fc.assert(
      fc.property(deltas, (updates) => {
        const book = new OrderBook('BTC-EUR')
        book.loadSnapshot({ nonce: 0, bids: [], asks: [] })
        const bids = new ReferenceSide(true)
        const asks = new ReferenceSide(false)
        updates.forEach((update, index) => {
          expect(book.merge({ nonce: index + 1, ...update })).toBe('merged')
          for (const [p, a] of update.bids) bids.apply(p, a)
          for (const [p, a] of update.asks) asks.apply(p, a)
        })
        const snapshot = book.snapshot()
        expect(snapshot.bids).toEqual(bids.toLevels())
        expect(snapshot.asks).toEqual(asks.toLevels())
        for (const [, a] of [...snapshot.bids, ...snapshot.asks]) {
          expect(new Decimal(a).isZero()).toBe(false)
        }
        for (let index = 1; index < snapshot.bids.length; index += 1) {
          expect(compareDecimals(snapshot.bids[index - 1]![0], snapshot.bids[index]![0])).toBe(1)
        }
        for (let index = 1; index < snapshot.asks.length; index += 1) {
          expect(compareDecimals(snapshot.asks[index - 1]![0], snapshot.asks[index]![0])).toBe(-1)
        }
      }),
      { numRuns: 300 },
    )
  })

  test('compareDecimals agrees with decimal.js on any pair', () => {
    const signed = fc
      .tuple(fc.boolean(), price)
      .map(([negative, text]) => (negative ? `-${text}` : text))
    fc.assert(
      fc.property(signed, signed, (a, b) => {
        expect(compareDecimals(a, b)).toBe(new Decimal(a).comparedTo(b))
      }),
      { numRuns: 1000 },
    )
  })
})
