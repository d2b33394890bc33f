import { describe, expect, test } from 'vitest'
import {
  createMobileOrderBooksStore,
  MobileOrderBooks,
  mobileResyncAttemptsMax,
  SubscriptionRegistry,
} from '../src/index.ts'
import { bookSnapshot, recordingLogger } from './support/fixtures.ts'

// Spec §4, §9: mobile order book (no timer: updates merge as they arrive).

function setup() {
  const sent: Record<string, unknown>[] = []
  const send = (message: object): boolean => {
    sent.push(message as Record<string, unknown>)
    return true
  }
  const registry = new SubscriptionRegistry({ send })
  const store = createMobileOrderBooksStore()
  const books = new MobileOrderBooks({ store, registry, send, logger: recordingLogger() })
  const entry = () => store.getState().books['BTC-EUR']
  const bestBid = () => {
    const load = entry()?.load
    return load?.status === 'received' ? load.data.bids[0]?.[0] : undefined
  }
  return { sent, registry, store, books, entry, bestBid }
}

const update = (nonce: number, bid: [string, string]) => ({
  market: 'BTC-EUR',
  nonce,
  bids: [bid],
  asks: [],
})

describe('spec §4 mobile order book', () => {
  test('subscribe, snapshot, then in sync', () => {
    const { sent, entry, books, bestBid } = setup()
    books.subscribe('BTC-EUR')
    expect(sent).toEqual([
      { action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
      { action: 'getBook', market: 'BTC-EUR' },
    ])
    expect(entry()?.phase).toBe('subscribing')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    expect(entry()?.phase).toBe('inSync')
    books.handleUpdate(update(6, ['100.5', '1']))
    expect(bestBid()).toBe('100.5')
  })

  test('updates arriving while out of sync are queued and merged later', () => {
    const { books, bestBid, entry } = setup()
    books.subscribe('BTC-EUR')
    books.handleUpdate(update(7, ['102', '1']))
    books.handleUpdate(update(6, ['101', '1']))
    books.handleUpdate(update(5, ['99', '1'])) // already in the snapshot
    expect(entry()?.load.status).toBe('requested')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    expect(bestBid()).toBe('102')
    const load = entry()?.load
    expect(load?.status === 'received' && load.data.bids.map(([price]) => price)).toEqual([
      '102',
      '101',
      '100',
    ])
  })

  test('a nonce gap above 1 re-requests the book', () => {
    const { sent, books, entry, bestBid } = setup()
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    sent.length = 0
    books.handleUpdate(update(8, ['103', '1']))
    expect(sent).toEqual([{ action: 'getBook', market: 'BTC-EUR' }])
    expect(entry()).toMatchObject({ phase: 'outOfSync', attempts: 1 })
    books.handleUpdate(update(9, ['104', '1'])) // queued while out of sync
    books.handleSnapshot(bookSnapshot('BTC-EUR', 8, [['103', '1']]))
    expect(entry()?.phase).toBe('inSync')
    expect(bestBid()).toBe('104')
  })

  test('after more than 3 attempts it unsubscribes and fails', () => {
    const { sent, books, entry, registry } = setup()
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    books.handleUpdate(update(9, ['1', '1'])) // gap: attempt 1, the update stays queued
    expect(entry()).toMatchObject({ phase: 'outOfSync', attempts: 1 })
    // Each snapshot that still leaves the queued update beyond a gap is another attempt.
    for (let attempt = 2; attempt <= mobileResyncAttemptsMax; attempt += 1) {
      books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
      expect(entry()).toMatchObject({ phase: 'outOfSync', attempts: attempt })
    }
    sent.length = 0
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    expect(sent).toEqual([
      { action: 'unsubscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
    ])
    expect(entry()).toMatchObject({
      phase: 'failed',
      load: { status: 'failed', error: { message: 'order_book_resync_failed' } },
    })
    expect(registry.get('mobileOrderBookSubscription:BTC-EUR')).toBeUndefined()
  })

  test('a nonce lower than expected is ignored', () => {
    const { sent, books, bestBid, entry } = setup()
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    books.handleUpdate(update(6, ['101', '1']))
    sent.length = 0
    books.handleUpdate(update(4, ['200', '1']))
    books.handleUpdate(update(6, ['300', '1']))
    expect(sent).toEqual([])
    expect(bestBid()).toBe('101')
    expect(entry()?.phase).toBe('inSync')
  })

  test('an update without a nonce is rejected', () => {
    const { books, bestBid } = setup()
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 5))
    books.handleUpdate({ market: 'BTC-EUR', bids: [['200', '1']], asks: [] })
    expect(bestBid()).toBe('100')
  })
})
