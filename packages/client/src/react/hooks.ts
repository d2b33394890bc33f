import { useCallback, useRef, useSyncExternalStore } from 'react'
import type { StoreApi } from 'zustand/vanilla'
import type { MobileOrderBookEntry } from '../book/mobileOrderBooks.ts'
import type { OrderBookSnapshot } from '../book/orderBook.ts'
import { selectBestAsk, selectBestBid } from '../book/orderBooksStore.ts'
import type { ConnectionStatusState } from '../connection/connectionStatus.ts'
import type { LoadState } from '../loadState.ts'
import type { OpenOrdersState } from '../orders/openOrdersStore.ts'
import type { PolderStores } from '../socket/polderClient.ts'
import type { AuthState } from '../stores/authStore.ts'
import type { FeesState } from '../stores/feesStore.ts'
import type { SocketState } from '../stores/socketStore.ts'
import type { Ticker24hState } from '../stores/ticker24hStore.ts'
import { usePolderClient } from './PolderClientProvider.ts'

/**
 * Read a slice of a store. The component re-renders only when `isEqual(previous, next)` is false
 * (default `Object.is`), so selecting one market's best bid ignores every other market.
 */
export function useStoreSelector<State, Selected>(
  store: StoreApi<State>,
  selector: (state: State) => Selected,
  isEqual: (a: Selected, b: Selected) => boolean = Object.is,
): Selected {
  const cache = useRef<{ state: State; selected: Selected } | undefined>(undefined)
  const getSnapshot = useCallback((): Selected => {
    const state = store.getState()
    const cached = cache.current
    if (cached !== undefined && cached.state === state) return cached.selected
    const selected = selector(state)
    if (cached !== undefined && isEqual(cached.selected, selected)) {
      cache.current = { state, selected: cached.selected }
      return cached.selected
    }
    cache.current = { state, selected }
    return selected
  }, [store, selector, isEqual])
  return useSyncExternalStore(store.subscribe, getSnapshot, getSnapshot)
}

/** A slice of one of the client's stores, picked by name. */
export function usePolderStore<Name extends keyof PolderStores, Selected>(
  name: Name,
  selector: (state: ReturnType<PolderStores[Name]['getState']>) => Selected,
  isEqual?: (a: Selected, b: Selected) => boolean,
): Selected {
  const store = usePolderClient().stores[name] as unknown as StoreApi<
    ReturnType<PolderStores[Name]['getState']>
  >
  return useStoreSelector(store, selector, isEqual)
}

export function useOrderBook(market: string): LoadState<OrderBookSnapshot> | undefined {
  const select = useCallback(
    (state: { books: Readonly<Record<string, LoadState<OrderBookSnapshot>>> }) =>
      state.books[market],
    [market],
  )
  return useStoreSelector(usePolderClient().stores.orderBooks, select)
}

export function useMobileOrderBook(market: string): MobileOrderBookEntry | undefined {
  const select = useCallback(
    (state: { books: Readonly<Record<string, MobileOrderBookEntry>> }) => state.books[market],
    [market],
  )
  return useStoreSelector(usePolderClient().stores.mobileOrderBooks, select)
}

export function useBestBid(market: string): string | undefined {
  const select = useCallback(
    (state: Parameters<typeof selectBestBid>[0]) => selectBestBid(state, market),
    [market],
  )
  return useStoreSelector(usePolderClient().stores.orderBooks, select)
}

export function useBestAsk(market: string): string | undefined {
  const select = useCallback(
    (state: Parameters<typeof selectBestAsk>[0]) => selectBestAsk(state, market),
    [market],
  )
  return useStoreSelector(usePolderClient().stores.orderBooks, select)
}

export function useTicker24h<Selected>(selector: (state: Ticker24hState) => Selected): Selected {
  return useStoreSelector(usePolderClient().stores.ticker24h, selector)
}

export function useOpenOrders<Selected>(selector: (state: OpenOrdersState) => Selected): Selected {
  return useStoreSelector(usePolderClient().stores.openOrders, selector)
}

export function useAuth<Selected>(selector: (state: AuthState) => Selected): Selected {
  return useStoreSelector(usePolderClient().stores.auth, selector)
}

export function useFees<Selected>(selector: (state: FeesState) => Selected): Selected {
  return useStoreSelector(usePolderClient().stores.fees, selector)
}

const selectConnection = (state: SocketState) => state.connection

export function useSocketConnection(): SocketState['connection'] {
  return useStoreSelector(usePolderClient().stores.socket, selectConnection)
}

const selectStatus = (state: ConnectionStatusState) => state.status

export function useConnectionStatus(): ConnectionStatusState['status'] {
  return useStoreSelector(usePolderClient().connectionStatus.store, selectStatus)
}
