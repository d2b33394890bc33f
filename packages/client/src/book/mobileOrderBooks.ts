import type { BookEvent, BookResponse } from '@polder/protocol'
import { toProtocolBookSubscription } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Logger } from '../environment.ts'
import { failed, type LoadState, received, requested } from '../loadState.ts'
import type { SubscriptionRegistry } from '../socket/subscriptionRegistry.ts'
import type { BookMessage } from './desktopOrderBooks.ts'
import { type BookUpdate, OrderBook, type OrderBookSnapshot } from './orderBook.ts'

// Spec §4, mobile order book: subscribe, receive the snapshot, then in sync; every update is
// merged as it arrives. Updates arriving while out of sync (before a snapshot) are queued and
// merged once the snapshot is there. A nonce gap above 1 re-requests the book; after more than
// 3 attempts the book is unsubscribed and fails. A nonce lower than expected is ignored.

/** Re-requests allowed; the one after them unsubscribes (spec §9: "more than 3 mobile"). */
export const mobileResyncAttemptsMax = 3
/** Updates held while out of sync; beyond it the oldest are dropped (the gap check catches it). */
export const mobileQueueMax = 10_000

export const mobileOrderBookFailedMessage = 'order_book_resync_failed'

export type MobileSyncPhase = 'subscribing' | 'inSync' | 'outOfSync' | 'failed'

export type MobileOrderBookEntry = {
  readonly phase: MobileSyncPhase
  readonly attempts: number
  readonly load: LoadState<OrderBookSnapshot>
}

export type MobileOrderBooksState = {
  readonly books: Readonly<Record<string, MobileOrderBookEntry>>
}

export type MobileOrderBooksStore = StoreApi<MobileOrderBooksState>

export function createMobileOrderBooksStore(): MobileOrderBooksStore {
  return createStore<MobileOrderBooksState>()(() => ({ books: {} }))
}

export function mobileOrderBookSubscriptionKey(market: string): string {
  return `mobileOrderBookSubscription:${market}`
}

type MarketSync = {
  book: OrderBook
  phase: MobileSyncPhase
  queue: BookUpdate[]
  attempts: number
}

export type MobileOrderBooksOptions = {
  store: MobileOrderBooksStore
  registry: SubscriptionRegistry
  send(message: BookMessage): void
  logger: Logger
}

export class MobileOrderBooks {
  readonly #options: MobileOrderBooksOptions
  readonly #markets = new Map<string, MarketSync>()

  constructor(options: MobileOrderBooksOptions) {
    this.#options = options
    options.registry.setHooks('mobileOrderBookSubscription', {
      onUnsubscribed: (record) => {
        if (record.market !== undefined) this.#drop(record.market)
      },
      onResubscribed: (record) => {
        if (record.market !== undefined) this.#register(record.market)
      },
    })
  }

  isTracking(market: string): boolean {
    return this.#markets.has(market)
  }

  subscribe(market: string): void {
    const added = this.#options.registry.add(mobileOrderBookSubscriptionKey(market), {
      kind: 'mobileOrderBookSubscription',
      market,
      subscribeJSON: toProtocolBookSubscription('subscribeToBook', [market]),
      unsubscribeJSON: toProtocolBookSubscription('unsubscribeFromBook', [market]),
    })
    if (added) this.#register(market)
  }

  unsubscribe(market: string): void {
    this.#options.registry.remove(mobileOrderBookSubscriptionKey(market))
    this.#drop(market)
  }

  #register(market: string): void {
    const sync: MarketSync = {
      book: new OrderBook(market),
      phase: 'subscribing',
      queue: [],
      attempts: 0,
    }
    this.#markets.set(market, sync)
    this.#publish(market, sync, requested(market))
    this.#options.send({ action: 'getBook', market })
  }

  #drop(market: string): void {
    this.#markets.delete(market)
    const books = { ...this.#options.store.getState().books }
    if (!(market in books)) return
    delete books[market]
    this.#options.store.setState({ books })
  }

  #publish(market: string, sync: MarketSync, load: LoadState<OrderBookSnapshot>): void {
    const entry: MobileOrderBookEntry = { phase: sync.phase, attempts: sync.attempts, load }
    this.#options.store.setState({
      books: { ...this.#options.store.getState().books, [market]: entry },
    })
  }

  /** A `getBook` response: load it, then merge what was queued meanwhile. */
  handleSnapshot(snapshot: BookResponse): void {
    const sync = this.#markets.get(snapshot.market)
    if (sync === undefined || sync.phase === 'inSync' || sync.phase === 'failed') return
    sync.book.loadSnapshot(snapshot)
    sync.phase = 'inSync'
    const queue = sync.queue.sort((a, b) => (a.nonce ?? -1) - (b.nonce ?? -1))
    sync.queue = []
    for (const update of queue) {
      if (!this.#applyInSync(snapshot.market, sync, update)) return
    }
    this.#publish(snapshot.market, sync, received(sync.book.snapshot()))
  }

  /** A `book` event. */
  handleUpdate(event: BookEvent | (BookUpdate & { market: string })): void {
    const sync = this.#markets.get(event.market)
    if (sync === undefined || sync.phase === 'failed') return
    if (sync.phase !== 'inSync') {
      sync.queue.push(event)
      if (sync.queue.length > mobileQueueMax) sync.queue.shift()
      return
    }
    if (this.#applyInSync(event.market, sync, event)) {
      this.#publish(event.market, sync, received(sync.book.snapshot()))
    }
  }

  /** Merge one update; false when it threw the book out of sync. */
  #applyInSync(market: string, sync: MarketSync, update: BookUpdate): boolean {
    if (update.nonce === undefined) {
      this.#options.logger.warn(`Book update of ${market} without a nonce rejected.`)
      return true
    }
    const gap = update.nonce - sync.book.nonce
    if (gap < 1) return true // lower than expected: already merged or in the snapshot
    if (gap > 1) {
      this.#rerequest(market, sync, update)
      return false
    }
    sync.book.merge(update)
    sync.attempts = 0
    return true
  }

  #rerequest(market: string, sync: MarketSync, pending: BookUpdate): void {
    sync.attempts += 1
    if (sync.attempts > mobileResyncAttemptsMax) {
      this.#options.registry.remove(mobileOrderBookSubscriptionKey(market)) // sends unsubscribe
      sync.phase = 'failed'
      sync.queue = []
      sync.book.unload()
      this.#publish(market, sync, failed({ message: mobileOrderBookFailedMessage }))
      this.#markets.delete(market)
      return
    }
    sync.phase = 'outOfSync'
    sync.book.unload()
    sync.queue = [pending]
    this.#publish(market, sync, requested(market))
    this.#options.send({ action: 'getBook', market })
  }

  /** An error reply to `getBook` for a tracked market: the book fails (the client emits the stream error). */
  handleError(market: string, message: string, code: number | undefined): void {
    const sync = this.#markets.get(market)
    if (sync === undefined) return
    sync.phase = 'failed'
    this.#publish(market, sync, failed({ message, code }))
  }

  dispose(): void {
    this.#markets.clear()
  }
}
