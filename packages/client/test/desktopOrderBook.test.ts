import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import {
  createOrderBooksStore,
  DesktopOrderBooks,
  globalTimers,
  SubscriptionRegistry,
  selectBestBid,
} from '../src/index.ts'
import { bookSnapshot, recordingLogger } from './support/fixtures.ts'

// Spec §4, §9: desktop order book. Timers are vitest's fake timers (the sync reads the global
// timers at call time through `globalTimers`).

function setup(mergeIntervalMs?: number) {
  const sent: Record<string, unknown>[] = []
  const send = (message: object): boolean => {
    sent.push(message as Record<string, unknown>)
    return true
  }
  const registry = new SubscriptionRegistry({ send })
  const store = createOrderBooksStore()
  const books = new DesktopOrderBooks({
    store,
    registry,
    send,
    timers: globalTimers,
    logger: recordingLogger(),
    mergeIntervalMs,
  })
  return { sent, registry, store, books }
}

const update = (nonce: number, bid: [string, string]) => ({
  market: 'BTC-EUR',
  nonce,
  bids: [bid],
  asks: [],
})

beforeEach(() => {
  vi.useFakeTimers()
})
afterEach(() => {
  vi.useRealTimers()
})

describe('spec §4 desktop order book', () => {
  test('updates are queued per market and merged on a timer every 1000 ms by default', () => {
    const { store, books } = setup()
    books.subscribe('BTC-EUR')
    books.subscribe('ETH-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
    books.handleSnapshot(bookSnapshot('ETH-EUR', 3, [['50', '1']]))
    books.handleUpdate(update(11, ['100.5', '2']))
    books.handleUpdate({ market: 'ETH-EUR', nonce: 4, bids: [['51', '1']], asks: [] })
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100')
    vi.advanceTimersByTime(999)
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100')
    vi.advanceTimersByTime(1)
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100.5')
    expect(selectBestBid(store.getState(), 'ETH-EUR')).toBe('51')
  })

  test('the merge interval is configurable', () => {
    const { store, books } = setup(250)
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
    books.handleUpdate(update(11, ['100.5', '2']))
    vi.advanceTimersByTime(250)
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100.5')
  })

  test('the merge timer stops when no subscription is left', () => {
    const { books } = setup()
    expect(books.timerRunning).toBe(false)
    books.subscribe('BTC-EUR')
    books.subscribe('ETH-EUR')
    expect(books.timerRunning).toBe(true)
    expect(vi.getTimerCount()).toBe(1)
    books.unsubscribe('BTC-EUR')
    expect(books.timerRunning).toBe(true)
    books.unsubscribe('ETH-EUR')
    expect(books.timerRunning).toBe(false)
    expect(vi.getTimerCount()).toBe(0)
  })

  test('a nonce gap triggers unsubscribe then resubscribe with a fresh snapshot', () => {
    const { sent, store, books } = setup()
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
    sent.length = 0
    books.handleUpdate(update(12, ['100.5', '2'])) // 11 is missing
    vi.advanceTimersByTime(1000)
    expect(sent).toEqual([
      { action: 'unsubscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
      { action: 'subscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
      { action: 'getBook', market: 'BTC-EUR' },
    ])
    expect(store.getState().books['BTC-EUR']).toEqual({ status: 'requested', market: 'BTC-EUR' })
    books.handleSnapshot(bookSnapshot('BTC-EUR', 12, [['100.5', '2']]))
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100.5')
  })

  test('on the third attempt it only unsubscribes', () => {
    const { sent, store, books, registry } = setup()
    books.subscribe('BTC-EUR')
    for (let attempt = 1; attempt <= 2; attempt += 1) {
      books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
      books.handleUpdate(update(15, ['100.5', '2']))
      vi.advanceTimersByTime(1000)
    }
    books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
    sent.length = 0
    books.handleUpdate(update(15, ['100.5', '2']))
    vi.advanceTimersByTime(1000)
    expect(sent).toEqual([
      { action: 'unsubscribe', channels: [{ name: 'book', markets: ['BTC-EUR'] }] },
    ])
    expect(store.getState().books['BTC-EUR']).toEqual({
      status: 'failed',
      error: { message: 'order_book_resync_failed' },
    })
    expect(registry.get('orderBookSubscription:BTC-EUR')).toBeUndefined()
    expect(books.timerRunning).toBe(false)
  })

  test('a merged update after a resync resets the attempt count', () => {
    const { sent, books } = setup()
    books.subscribe('BTC-EUR')
    for (let round = 0; round < 4; round += 1) {
      books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
      books.handleUpdate(update(11, ['100.5', '2'])) // consecutive: merged
      books.handleUpdate(update(13, ['100.5', '2'])) // gap
      vi.advanceTimersByTime(1000)
    }
    // Every gap was a first attempt again: always unsubscribe + subscribe, never a give-up.
    expect(sent.filter((message) => message.action === 'subscribe')).toHaveLength(5)
  })

  test('updates older than the snapshot are dropped, not treated as gaps', () => {
    const { sent, store, books } = setup()
    books.subscribe('BTC-EUR')
    books.handleSnapshot(bookSnapshot('BTC-EUR', 10))
    sent.length = 0
    books.handleUpdate(update(9, ['1', '1']))
    books.handleUpdate(update(10, ['2', '1']))
    books.handleUpdate(update(11, ['100.5', '2']))
    vi.advanceTimersByTime(1000)
    expect(sent).toEqual([])
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100.5')
  })

  test('updates that arrive before the snapshot are ignored (the book is not loaded)', () => {
    const { store, books } = setup()
    books.subscribe('BTC-EUR')
    books.handleUpdate(update(11, ['200', '1']))
    books.handleSnapshot(bookSnapshot('BTC-EUR', 11))
    vi.advanceTimersByTime(1000)
    expect(selectBestBid(store.getState(), 'BTC-EUR')).toBe('100')
  })
})
