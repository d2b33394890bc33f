import type {
  BookEvent,
  BookResponse,
  SubscribeRequest,
  UnsubscribeRequest,
} from '@polder/protocol'
import { toProtocolBookSubscription } from '@polder/protocol'
import type { Logger, TimerHandle, Timers } from '../environment.ts'
import { failed, received, requested } from '../loadState.ts'
import type { SubscriptionRegistry } from '../socket/subscriptionRegistry.ts'
import { type BookUpdate, OrderBook } from './orderBook.ts'
import { type OrderBooksStore, removeBook, setBook } from './orderBooksStore.ts'

// Spec §4, desktop order book: updates are queued per market and merged on a timer (default
// 1000 ms; the timer runs only while a book subscription exists). A nonce gap triggers an
// unsubscribe then a resubscribe (with a fresh snapshot); the third consecutive attempt only
// unsubscribes and leaves the book failed. A merged update after a resync resets the count.

export const defaultBookMergeIntervalMs = 1000
/** Resync attempts; the last one only unsubscribes (spec §9: 3 attempts desktop). */
export const desktopResyncAttemptsMax = 3
/** Updates queued per market between two merges; more means the merge cannot keep up: resync. */
export const bookQueueMax = 10_000

export const orderBookResyncFailedMessage = 'order_book_resync_failed'

export type GetBookMessage = { action: 'getBook'; market: string }
export type BookMessage = GetBookMessage | SubscribeRequest | UnsubscribeRequest

type MarketSync = {
  book: OrderBook
  queue: BookUpdate[]
  attempts: number
}

export type DesktopOrderBooksOptions = {
  store: OrderBooksStore
  registry: SubscriptionRegistry
  send(message: BookMessage): void
  timers: Timers
  logger: Logger
  mergeIntervalMs?: number
}

export function orderBookSubscriptionKey(market: string): string {
  return `orderBookSubscription:${market}`
}

export class DesktopOrderBooks {
  readonly mergeIntervalMs: number
  readonly #options: DesktopOrderBooksOptions
  readonly #markets = new Map<string, MarketSync>()
  #timer: TimerHandle | undefined

  constructor(options: DesktopOrderBooksOptions) {
    this.#options = options
    this.mergeIntervalMs = options.mergeIntervalMs ?? defaultBookMergeIntervalMs
    options.registry.setHooks('orderBookSubscription', {
      onUnsubscribed: (record) => {
        if (record.market !== undefined) this.#drop(record.market)
      },
      onResubscribed: (record) => {
        if (record.market !== undefined) this.#register(record.market, 0)
      },
    })
  }

  /** Whether the merge timer is running. */
  get timerRunning(): boolean {
    return this.#timer !== undefined
  }

  isTracking(market: string): boolean {
    return this.#markets.has(market)
  }

  subscribe(market: string): void {
    const added = this.#options.registry.add(orderBookSubscriptionKey(market), {
      kind: 'orderBookSubscription',
      market,
      subscribeJSON: toProtocolBookSubscription('subscribeToBook', [market]),
      unsubscribeJSON: toProtocolBookSubscription('unsubscribeFromBook', [market]),
    })
    if (added) this.#register(market, 0)
  }

  unsubscribe(market: string): void {
    this.#options.registry.remove(orderBookSubscriptionKey(market))
    this.#drop(market)
  }

  /** Track a market, ask for its snapshot and make sure the merge timer runs. */
  #register(market: string, attempts: number): void {
    this.#markets.set(market, { book: new OrderBook(market), queue: [], attempts })
    setBook(this.#options.store, market, requested(market))
    this.#options.send({ action: 'getBook', market })
    this.#startTimer()
  }

  /** Stop tracking a market and remove its book. */
  #drop(market: string): void {
    this.#markets.delete(market)
    removeBook(this.#options.store, market)
    if (this.#markets.size === 0) this.#stopTimer()
  }

  #startTimer(): void {
    if (this.#timer !== undefined) return
    this.#timer = this.#options.timers.setInterval(() => this.flush(), this.mergeIntervalMs)
  }

  #stopTimer(): void {
    if (this.#timer === undefined) return
    this.#options.timers.clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** A `getBook` response. */
  handleSnapshot(snapshot: BookResponse): void {
    const sync = this.#markets.get(snapshot.market)
    if (sync === undefined) return
    sync.book.loadSnapshot(snapshot)
    sync.queue = sync.queue.filter((update) => (update.nonce ?? -1) > snapshot.nonce)
    setBook(this.#options.store, snapshot.market, received(sync.book.snapshot()))
  }

  /** A `book` event: queued until the next merge; ignored while the book is not loaded. */
  handleUpdate(event: BookEvent | (BookUpdate & { market: string })): void {
    const sync = this.#markets.get(event.market)
    if (sync === undefined || !sync.book.loaded) return
    if (sync.queue.length >= bookQueueMax) {
      this.#options.logger.warn(`Book queue of ${event.market} is full; resynchronising.`)
      this.#resync(event.market, sync)
      return
    }
    sync.queue.push(event)
  }

  /** An error reply to `getBook` for a tracked market: the book fails (the client emits the stream error). */
  handleError(market: string, message: string, code: number | undefined): void {
    if (this.#markets.has(market)) setBook(this.#options.store, market, failed({ message, code }))
  }

  /** Merge every queued update (the timer calls this; tests and benchmarks may too). */
  flush(): void {
    for (const [market, sync] of this.#markets) {
      if (sync.queue.length === 0 || !sync.book.loaded) continue
      const queue = sync.queue
      sync.queue = []
      let changed = false
      for (const update of queue) {
        if (update.nonce === undefined) {
          this.#options.logger.warn(`Book update of ${market} without a nonce rejected.`)
          continue
        }
        if (update.nonce <= sync.book.nonce) continue // already in the snapshot
        if (update.nonce !== sync.book.nonce + 1) {
          this.#options.logger.debug(
            `Book nonce gap on ${market}: expected ${sync.book.nonce + 1}, got ${update.nonce}.`,
          )
          this.#resync(market, sync)
          changed = false
          break
        }
        sync.book.merge(update)
        sync.attempts = 0
        changed = true
      }
      if (changed) setBook(this.#options.store, market, received(sync.book.snapshot()))
    }
  }

  #resync(market: string, sync: MarketSync): void {
    const attempts = sync.attempts + 1
    const registry = this.#options.registry
    const key = orderBookSubscriptionKey(market)
    if (attempts >= desktopResyncAttemptsMax) {
      registry.remove(key) // sends the unsubscribe only
      this.#markets.delete(market)
      setBook(this.#options.store, market, failed({ message: orderBookResyncFailedMessage }))
      if (this.#markets.size === 0) this.#stopTimer()
      return
    }
    const record = registry.get(key)
    if (record !== undefined) {
      this.#options.send(record.unsubscribeJSON)
      this.#options.send(record.subscribeJSON)
    }
    this.#register(market, attempts)
  }

  /** Stop the timer and forget every book (client shutdown). */
  dispose(): void {
    this.#stopTimer()
    this.#markets.clear()
  }
}
