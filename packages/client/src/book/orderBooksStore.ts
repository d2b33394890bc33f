import { createStore, type StoreApi } from 'zustand/vanilla'
import type { LoadState } from '../loadState.ts'
import type { OrderBookSnapshot } from './orderBook.ts'

// The books the UI reads, per market. A market's entry is replaced only when that market
// changes, so a selector on one market's best bid keeps its value when another market updates.

export type OrderBooksState = {
  readonly books: Readonly<Record<string, LoadState<OrderBookSnapshot>>>
}

export type OrderBooksStore = StoreApi<OrderBooksState>

export function createOrderBooksStore(): OrderBooksStore {
  return createStore<OrderBooksState>()(() => ({ books: {} }))
}

export function setBook(
  store: OrderBooksStore,
  market: string,
  state: LoadState<OrderBookSnapshot>,
): void {
  store.setState({ books: { ...store.getState().books, [market]: state } })
}

export function removeBook(store: OrderBooksStore, market: string): void {
  if (!(market in store.getState().books)) return
  const books = { ...store.getState().books }
  delete books[market]
  store.setState({ books })
}

/** The best bid price of a market's received book. */
export function selectBestBid(state: OrderBooksState, market: string): string | undefined {
  const book = state.books[market]
  return book?.status === 'received' ? book.data.bids[0]?.[0] : undefined
}

/** The best ask price of a market's received book. */
export function selectBestAsk(state: OrderBooksState, market: string): string | undefined {
  const book = state.books[market]
  return book?.status === 'received' ? book.data.asks[0]?.[0] : undefined
}
