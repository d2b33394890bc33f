import type { SubscribeRequest, UnsubscribeRequest } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { ClientError } from '../errors.ts'

// Spec §3, §4: the subscriptions a client holds, so that they can be dropped together and
// restored after a reconnect without duplicates.
// - `add` records an entry (status subscribed) and sends its subscribe only when the key is absent.
// - `unsubscribeAll` sends every unsubscribe, marks every entry unsubscribed and lets the owner of
//   each kind reset its data (open orders reset, order book removed, mobile book removed).
// - `reconnectAll` re-sends the subscribe of every entry that is not subscribed and marks it
//   subscribed; the owner of each kind then re-requests its data.

export type SubscriptionKind =
  | 'privateOpenOrders'
  | 'twentyFourHourSubscription'
  | 'orderBookSubscription'
  | 'mobileOrderBookSubscription'

export type SubscriptionStatus = 'subscribed' | 'unsubscribed'

export type SubscriptionRecord = {
  readonly kind: SubscriptionKind
  /** The market for book kinds. */
  readonly market: string | undefined
  readonly subscribeJSON: SubscribeRequest
  readonly unsubscribeJSON: UnsubscribeRequest
  readonly status: SubscriptionStatus
}

/** Most subscriptions one client holds. */
export const subscriptionsMax = 1000

export type SubscriptionKindHooks = {
  /** After `unsubscribeAll` sent the entry's unsubscribe: reset the data it fed. */
  onUnsubscribed?(record: SubscriptionRecord): void
  /** After `reconnectAll` re-sent the entry's subscribe: re-request the data it feeds. */
  onResubscribed?(record: SubscriptionRecord): void
}

export type SubscriptionsState = { readonly records: Readonly<Record<string, SubscriptionRecord>> }

export type SubscriptionRegistryOptions = {
  /** Returns false when the message could not be sent (socket not open). */
  send(message: SubscribeRequest | UnsubscribeRequest): boolean
  hooks?: Partial<Record<SubscriptionKind, SubscriptionKindHooks>>
}

export class SubscriptionLimitError extends ClientError {
  override name = 'SubscriptionLimitError'
}

export class SubscriptionRegistry {
  readonly store: StoreApi<SubscriptionsState>
  readonly #send: (message: SubscribeRequest | UnsubscribeRequest) => boolean
  readonly #hooks: Partial<Record<SubscriptionKind, SubscriptionKindHooks>>

  constructor(options: SubscriptionRegistryOptions) {
    this.store = createStore<SubscriptionsState>()(() => ({ records: {} }))
    this.#send = options.send
    this.#hooks = options.hooks ?? {}
  }

  /** Set the hooks of a kind (the book syncs register theirs after construction). */
  setHooks(kind: SubscriptionKind, hooks: SubscriptionKindHooks): void {
    this.#hooks[kind] = hooks
  }

  get(key: string): SubscriptionRecord | undefined {
    return this.store.getState().records[key]
  }

  keys(): string[] {
    return Object.keys(this.store.getState().records)
  }

  #put(key: string, record: SubscriptionRecord | undefined): void {
    const records = { ...this.store.getState().records }
    if (record === undefined) delete records[key]
    else records[key] = record
    this.store.setState({ records })
  }

  /**
   * Record and send a subscription, only when the key is absent. Returns whether it was added.
   * When the socket is not open the entry stays unsubscribed until `reconnectAll`.
   */
  add(
    key: string,
    entry: Omit<SubscriptionRecord, 'status' | 'market'> & { market?: string | undefined },
  ): boolean {
    if (this.get(key) !== undefined) return false
    if (this.keys().length >= subscriptionsMax) {
      throw new SubscriptionLimitError(`At most ${subscriptionsMax} subscriptions per client.`)
    }
    const sent = this.#send(entry.subscribeJSON)
    this.#put(key, {
      kind: entry.kind,
      market: entry.market,
      subscribeJSON: entry.subscribeJSON,
      unsubscribeJSON: entry.unsubscribeJSON,
      status: sent ? 'subscribed' : 'unsubscribed',
    })
    return true
  }

  /** Send the entry's unsubscribe (when subscribed) and forget it. */
  remove(key: string): SubscriptionRecord | undefined {
    const record = this.get(key)
    if (record === undefined) return undefined
    this.#put(key, undefined)
    if (record.status === 'subscribed') this.#send(record.unsubscribeJSON)
    return record
  }

  /** Forget an entry without sending anything (its socket is gone or it failed). */
  forget(key: string): void {
    if (this.get(key) !== undefined) this.#put(key, undefined)
  }

  unsubscribeAll(): void {
    for (const [key, record] of Object.entries(this.store.getState().records)) {
      this.#send(record.unsubscribeJSON)
      const unsubscribed = { ...record, status: 'unsubscribed' as const }
      this.#put(key, unsubscribed)
      this.#hooks[record.kind]?.onUnsubscribed?.(unsubscribed)
    }
  }

  /** The socket dropped: the server forgot every subscription, nothing can be sent. */
  markAllUnsubscribed(): void {
    const records: Record<string, SubscriptionRecord> = {}
    for (const [key, record] of Object.entries(this.store.getState().records)) {
      records[key] = { ...record, status: 'unsubscribed' }
    }
    this.store.setState({ records })
  }

  reconnectAll(): void {
    for (const [key, record] of Object.entries(this.store.getState().records)) {
      if (record.status === 'subscribed') continue
      if (!this.#send(record.subscribeJSON)) continue
      const subscribed = { ...record, status: 'subscribed' as const }
      this.#put(key, subscribed)
      this.#hooks[record.kind]?.onResubscribed?.(subscribed)
    }
  }
}
