import type { PublicTrade } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import {
  failed,
  initialized,
  type LoadError,
  type LoadState,
  received,
  requested,
  reset,
} from '../loadState.ts'

// Spec §4 trades: initialized, requested (with the market id), received (with data); the store
// action clearTrades sets reset.

export type TradesData = { readonly market: string; readonly trades: readonly PublicTrade[] }

export type TradesState = {
  readonly load: LoadState<TradesData>
  request(market: string): void
  receive(data: TradesData): void
  fail(error: LoadError): void
  clearTrades(): void
}

export type TradesStore = StoreApi<TradesState>

export function createTradesStore(): TradesStore {
  return createStore<TradesState>()((set) => ({
    load: initialized,
    request: (market) => set({ load: requested(market) }),
    receive: (data) => set({ load: received(data) }),
    fail: (error) => set({ load: failed(error) }),
    clearTrades: () => set({ load: reset() }),
  }))
}
