import { mobilePriceUpdateEvent, priceUpdateEvent } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import {
  globalTimers,
  type Logger,
  silentLogger,
  type TimerHandle,
  type Timers,
} from '../environment.ts'
import type { WebSocketConstructor } from '../socket/socketConnection.ts'
import {
  type SocketConnection as Connection,
  SocketConnection,
} from '../socket/socketConnection.ts'
import { createSocketStore, type SocketStore } from '../stores/socketStore.ts'
import type { PriceUpdate } from '../stores/ticker24hStore.ts'

// Spec §4: the public site's live price socket. It reconnects by itself: the first retry after
// 1 s, each next delay 5 times longer, capped at 30 s, at most 3 retries; then it gives up
// (failed). An open socket resets the count.

export const livePriceFirstRetryMs = 1000
export const livePriceRetryFactor = 5
export const livePriceRetryDelayMsMax = 30_000
export const livePriceRetriesMax = 3

export type LivePriceFeedStatus =
  | 'idle'
  | 'connecting'
  | 'open'
  | 'reconnecting'
  | 'failed'
  | 'stopped'

export type LivePriceFeedState = {
  readonly status: LivePriceFeedStatus
  /** Retries made since the socket was last open. */
  readonly retries: number
  /** Keyed by asset symbol: [last, change], or [last] from mobile updates. */
  readonly prices: Readonly<Record<string, PriceUpdate>>
}

export type LivePriceFeed = {
  readonly store: StoreApi<LivePriceFeedState>
  readonly socket: SocketStore
  start(): void
  stop(): void
}

/** The delay before retry number `retry` (0 for the first). */
export function livePriceRetryDelayMs(retry: number): number {
  return Math.min(livePriceRetryDelayMsMax, livePriceFirstRetryMs * livePriceRetryFactor ** retry)
}

export type LivePriceFeedOptions = {
  url: string
  WebSocket?: WebSocketConstructor
  timers?: Timers
  logger?: Logger
  connectTimeoutMs?: number
  /** Sent after every open, when the server needs to be asked for updates. */
  subscribeMessage?: object
}

export function createLivePriceFeed(options: LivePriceFeedOptions): LivePriceFeed {
  const timers = options.timers ?? globalTimers
  const logger = options.logger ?? silentLogger
  const store = createStore<LivePriceFeedState>()(() => ({
    status: 'idle',
    retries: 0,
    prices: {},
  }))
  const socketStore = createSocketStore()
  let retryTimer: TimerHandle | undefined
  let stopped = false

  const onMessage = (text: string): void => {
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      logger.warn('Live price message is not JSON.')
      return
    }
    const update = priceUpdateEvent.safeParse(message)
    const mobile = update.success ? undefined : mobilePriceUpdateEvent.safeParse(message)
    const data = update.success ? update.data.data : mobile?.success ? mobile.data.data : undefined
    if (data === undefined) {
      logger.debug('Live price message ignored.', message)
      return
    }
    store.setState({ prices: { ...store.getState().prices, ...data } })
  }

  const connection: Connection = new SocketConnection({
    url: options.url,
    WebSocket: options.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketConstructor),
    timers,
    logger,
    store: socketStore,
    connectTimeoutMs: options.connectTimeoutMs,
    onMessage,
    onClose: (_close, intentional) => {
      if (!intentional) scheduleRetry()
    },
  })

  const scheduleRetry = (): void => {
    if (stopped) return
    const retries = store.getState().retries
    if (retries >= livePriceRetriesMax) {
      store.setState({ status: 'failed' })
      return
    }
    store.setState({ status: 'reconnecting', retries: retries + 1 })
    retryTimer = timers.setTimeout(() => {
      retryTimer = undefined
      connect()
    }, livePriceRetryDelayMs(retries))
  }

  const connect = (): void => {
    if (stopped) return
    if (store.getState().status !== 'reconnecting') store.setState({ status: 'connecting' })
    connection.connect().then(
      () => {
        store.setState({ status: 'open', retries: 0 })
        if (options.subscribeMessage !== undefined) connection.send(options.subscribeMessage)
      },
      (error: unknown) => {
        logger.debug('Live price socket failed to open.', error)
        scheduleRetry()
      },
    )
  }

  return {
    store,
    socket: socketStore,
    start() {
      stopped = false
      connect()
    },
    stop() {
      stopped = true
      if (retryTimer !== undefined) timers.clearTimeout(retryTimer)
      retryTimer = undefined
      connection.close()
      store.setState({ status: 'stopped' })
    },
  }
}
