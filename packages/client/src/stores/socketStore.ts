import type { Subscriptions } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'

// Spec §4: the socket connection states.

export type SocketConnectionState = 'notInitialised' | 'connecting' | 'open' | 'closing' | 'closed'

export type SocketClose = {
  readonly code: number
  readonly reason: string
  /** The standard description of the close code (RFC 6455 §7.4.1), for debug logs. */
  readonly description: string
}

export type SocketState = {
  readonly connection: SocketConnectionState
  readonly lastClose: SocketClose | undefined
  /** What the server last listed in `subscribed` / `unsubscribed`. */
  readonly serverSubscriptions: Subscriptions
}

export type SocketStore = StoreApi<SocketState>

export function createSocketStore(): SocketStore {
  return createStore<SocketState>()(() => ({
    connection: 'notInitialised',
    lastClose: undefined,
    serverSubscriptions: {},
  }))
}
