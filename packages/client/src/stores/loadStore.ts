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

// A Zustand vanilla store holding one data source's load state (spec §4) and the transitions
// between its states as actions.

export type LoadStoreState<Data> = {
  readonly load: LoadState<Data>
  request(market?: string): void
  receive(data: Data): void
  fail(error: LoadError): void
  reset(error?: LoadError): void
}

export type LoadStore<Data> = StoreApi<LoadStoreState<Data>>

export function createLoadStore<Data>(): LoadStore<Data> {
  return createStore<LoadStoreState<Data>>()((set) => ({
    load: initialized,
    request: (market) => set({ load: requested(market) }),
    receive: (data) => set({ load: received(data) }),
    fail: (error) => set({ load: failed(error) }),
    reset: (error) => set({ load: reset(error) }),
  }))
}
