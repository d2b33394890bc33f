import {
  type Asset,
  type Balance,
  type CancelOrderRequest,
  type CancelOrderResponse,
  type CreateOrderRequest,
  type CreateOrderResponse,
  type Market,
  type PrivateTrade,
  parse,
  type SpecSocketActionName,
  type SubscribeRequest,
  specSocketActions,
  specSocketEvents,
  type TimeResponse,
  toProtocolBookSubscription,
  type UnsubscribeRequest,
  wsErrorEnvelope,
} from '@polder/protocol'
import { type BookMessage, DesktopOrderBooks } from '../book/desktopOrderBooks.ts'
import {
  createMobileOrderBooksStore,
  MobileOrderBooks,
  type MobileOrderBooksStore,
} from '../book/mobileOrderBooks.ts'
import { createOrderBooksStore, type OrderBooksStore } from '../book/orderBooksStore.ts'
import {
  type ConnectionStatusMonitor,
  createConnectionStatusMonitor,
} from '../connection/connectionStatus.ts'
import {
  type Clock,
  type CreateId,
  consoleLogger,
  globalTimers,
  type Logger,
  type Random,
  randomUuid,
  systemClock,
  type TimerHandle,
  type Timers,
} from '../environment.ts'
import { BookStreamError, ClientError, UnknownSocketActionError } from '../errors.ts'
import type { LoadError } from '../loadState.ts'
import { createOpenOrdersStore, type OpenOrdersStore } from '../orders/openOrdersStore.ts'
import { type AuthStore, createAuthStore } from '../stores/authStore.ts'
import { createFeesStore, type FeesStore } from '../stores/feesStore.ts'
import { createLoadStore, type LoadStore } from '../stores/loadStore.ts'
import { createSocketStore, type SocketStore } from '../stores/socketStore.ts'
import { createTicker24hStore, type Ticker24hStore } from '../stores/ticker24hStore.ts'
import { createTradesStore, type TradesStore } from '../stores/tradesStore.ts'
import { backoffDelayMs } from '../web/backoff.ts'
import type { CredentialsProvider } from './credentials.ts'
import { SocketConnection, type WebSocketConstructor } from './socketConnection.ts'
import { SubscriptionRegistry } from './subscriptionRegistry.ts'

// The trading client's socket side (spec §4, §7, §8): one connection, every action of §7 as a
// method, every event and reply routed to its store, the subscription registry, the desktop and
// mobile order books and the connection status. Everything outside (WebSocket, timers, clock,
// ids, randomness, logging, credentials) is injected.

/** Message key of a private call made while the socket is not authenticated (spec §8). */
export const unauthenticatedMessageKey = 'hermes_unauthenticated'
/** The protocol's "authentication required" code, recorded with it. */
export const unauthenticatedCallErrorCode = 300

export type ReconnectOptions = {
  readonly baseDelayMs: number
  readonly maxDelayMs: number
  readonly attemptsMax: number
}

export const defaultReconnectOptions: ReconnectOptions = {
  baseDelayMs: 1000,
  maxDelayMs: 30_000,
  attemptsMax: Number.POSITIVE_INFINITY,
}

export type PolderClientOptions = {
  /** The socket address, e.g. `ws://127.0.0.1:8080/v2`. */
  url: string
  WebSocket?: WebSocketConstructor
  timers?: Timers
  clock?: Clock
  logger?: Logger
  createId?: CreateId
  random?: Random
  /** Default 4000 ms. */
  connectTimeoutMs?: number
  /** Desktop book merge interval; default 1000 ms. */
  bookMergeIntervalMs?: number
  /** Signs `authenticate`; asked again after every reconnect. */
  credentials?: CredentialsProvider
  /** Reconnect after a dropped socket (default on, 1 s doubling to 30 s); false to stay closed. */
  reconnect?: Partial<ReconnectOptions> | false
}

export type PolderStores = {
  readonly socket: SocketStore
  readonly auth: AuthStore
  readonly assets: LoadStore<readonly Asset[]>
  readonly markets: LoadStore<readonly Market[]>
  readonly trades: TradesStore
  readonly privateTrades: LoadStore<readonly PrivateTrade[]>
  readonly balance: LoadStore<readonly Balance[]>
  readonly openOrders: OpenOrdersStore
  readonly ticker24h: Ticker24hStore
  readonly time: LoadStore<TimeResponse>
  readonly fees: FeesStore
  readonly createOrder: LoadStore<CreateOrderResponse>
  readonly cancelOrder: LoadStore<CancelOrderResponse>
  readonly orderBooks: OrderBooksStore
  readonly mobileOrderBooks: MobileOrderBooksStore
}

export type PolderClient = {
  readonly stores: PolderStores
  readonly subscriptions: SubscriptionRegistry
  readonly connectionStatus: ConnectionStatusMonitor
  readonly desktopBooks: DesktopOrderBooks
  readonly mobileBooks: MobileOrderBooks
  connect(): Promise<void>
  disconnect(): void
  /** Any action of spec §7 by its spec name; an unknown name throws UnknownSocketActionError. */
  send(action: string, parameters?: Readonly<Record<string, unknown>>): void
  authenticate(): Promise<void>
  getAssets(): void
  getMarkets(): void
  getBook(market: string): void
  subscribeToBook(market: string): void
  unsubscribeFromBook(market: string): void
  subscribeToMobileBook(market: string): void
  unsubscribeFromMobileBook(market: string): void
  getTrades(market: string): void
  privateGetTrades(market: string): void
  privateGetBalance(): void
  privateGetOrdersOpen(market?: string): void
  privateCreateOrder(order: Omit<CreateOrderRequest, 'action' | 'requestId'>): void
  privateCancelOrder(cancel: Omit<CancelOrderRequest, 'action' | 'requestId'>): void
  privateGetAccount(): void
  getTime(): void
  getTicker24h(): void
  subscribeTicker24h(markets: readonly string[]): void
  unsubscribeTicker24h(): void
  subscribeAccount(markets: readonly string[] | '*'): void
  unsubscribeAccount(): void
  clearTrades(): void
  resetTicker24h(): void
  unsubscribeAll(): void
  reconnectAll(): void
  /** Book errors (a failed `getBook`) as a stream; returns the unsubscribe function. */
  onBookStreamError(listener: (error: BookStreamError) => void): () => void
  dispose(): void
}

export const ticker24hSubscriptionKey = 'twentyFourHourSubscription'
export const privateOpenOrdersSubscriptionKey = 'privateOpenOrders'

type Failable = { fail(error: LoadError): void }

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function asArray<Item>(value: Item | readonly Item[]): readonly Item[] {
  return Array.isArray(value) ? (value as readonly Item[]) : [value as Item]
}

export function createPolderClient(options: PolderClientOptions): PolderClient {
  const timers = options.timers ?? globalTimers
  const clock = options.clock ?? systemClock
  const logger = options.logger ?? consoleLogger
  const random = options.random ?? Math.random
  const reconnectOptions: ReconnectOptions | false =
    options.reconnect === false ? false : { ...defaultReconnectOptions, ...options.reconnect }

  const stores: PolderStores = {
    socket: createSocketStore(),
    auth: createAuthStore(),
    assets: createLoadStore(),
    markets: createLoadStore(),
    trades: createTradesStore(),
    privateTrades: createLoadStore(),
    balance: createLoadStore(),
    openOrders: createOpenOrdersStore(options.createId ?? randomUuid),
    ticker24h: createTicker24hStore(),
    time: createLoadStore(),
    fees: createFeesStore(),
    createOrder: createLoadStore(),
    cancelOrder: createLoadStore(),
    orderBooks: createOrderBooksStore(),
    mobileOrderBooks: createMobileOrderBooksStore(),
  }
  const bookErrorListeners = new Set<(error: BookStreamError) => void>()
  const connectionStatus = createConnectionStatusMonitor({ timers, clock })

  let reconnectTimer: TimerHandle | undefined
  let reconnectAttempts = 0
  let disposed = false
  let resubscribeAfterAuthentication = false
  let tradesMarket: string | undefined
  // Markets of the `getBook` requests sent on this connection and not yet answered, oldest
  // first. A server answers one connection's requests in order, and an error reply need not
  // echo `market` (protocol §5 says only that the live API does): the oldest pending request is
  // then the one that failed.
  let pendingBookMarkets: string[] = []
  const bookRequestSent = (market: string): void => {
    pendingBookMarkets.push(market)
  }
  const bookRequestAnswered = (market: string | undefined): string | undefined => {
    const index = market === undefined ? 0 : pendingBookMarkets.indexOf(market)
    const answered = pendingBookMarkets[index]
    if (index >= 0 && answered !== undefined) pendingBookMarkets.splice(index, 1)
    return market ?? answered
  }

  const connection = new SocketConnection({
    url: options.url,
    WebSocket: options.WebSocket ?? (globalThis.WebSocket as unknown as WebSocketConstructor),
    timers,
    logger,
    store: stores.socket,
    connectTimeoutMs: options.connectTimeoutMs,
    onMessage: (text) => handleMessage(text),
    onClose: (_close, intentional) => {
      const wasAuthenticated = stores.auth.getState().authenticated
      stores.auth.setState({ authenticated: false })
      pendingBookMarkets = []
      registry.markAllUnsubscribed()
      if (!intentional) scheduleReconnect(wasAuthenticated)
    },
  })

  /** Send when open; false (and nothing sent) otherwise. Used by the registry and the books. */
  const sendIfOpen = (message: object): boolean => {
    if (!connection.isOpen || stores.socket.getState().connection !== 'open') {
      logger.debug('Socket not open; message held for the next reconnect.', message)
      return false
    }
    connection.send(message)
    return true
  }

  const registry = new SubscriptionRegistry({
    send: (message: SubscribeRequest | UnsubscribeRequest) => sendIfOpen(message),
    hooks: {
      privateOpenOrders: {
        onUnsubscribed: () => stores.openOrders.getState().reset(),
        onResubscribed: () => {
          stores.openOrders.getState().request()
          sendIfOpen({ action: 'privateGetOrdersOpen' })
        },
      },
    },
  })
  const sendBookMessage = (message: BookMessage): void => {
    if (sendIfOpen(message) && message.action === 'getBook') bookRequestSent(message.market)
  }
  const desktopBooks = new DesktopOrderBooks({
    store: stores.orderBooks,
    registry,
    send: sendBookMessage,
    timers,
    logger,
    mergeIntervalMs: options.bookMergeIntervalMs,
  })
  const mobileBooks = new MobileOrderBooks({
    store: stores.mobileOrderBooks,
    registry,
    send: sendBookMessage,
    logger,
  })

  // --- sending -------------------------------------------------------------------------------

  function send(action: string, parameters: Readonly<Record<string, unknown>> = {}): void {
    if (!Object.hasOwn(specSocketActions, action)) throw new UnknownSocketActionError(action)
    const name = action as SpecSocketActionName
    const spec = specSocketActions[name]
    let message: object
    if (name === 'subscribeToBook' || name === 'unsubscribeFromBook') {
      const markets = parameters.markets
      if (!Array.isArray(markets)) {
        throw new ClientError(`${name} needs the markets to (un)subscribe.`)
      }
      message = toProtocolBookSubscription(name as 'subscribeToBook', markets as string[])
    } else {
      message = { action: spec.protocolAction, ...parameters }
    }
    // Validate at the edge: a wrong parameter fails here with the protocol's ValidationError.
    parse(spec.request, message, { location: 'ws' })
    connection.send(message)
  }

  /** Private calls need an authenticated socket; otherwise the store fails with hermes_unauthenticated. */
  function isAuthenticatedFor(store: Failable): boolean {
    if (stores.auth.getState().authenticated) return true
    store.fail({ message: unauthenticatedMessageKey, code: unauthenticatedCallErrorCode })
    return false
  }

  // --- receiving -----------------------------------------------------------------------------

  function handleMessage(text: string): void {
    connectionStatus.markUpdate()
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      logger.warn('Socket message is not JSON.', text.slice(0, 200))
      return
    }
    if (!isRecord(message)) {
      logger.warn('Socket message is not an object.', message)
      return
    }
    if ('error' in message) handleErrorReply(message)
    else if (typeof message.action === 'string' && 'response' in message) {
      handleResponse(message.action, message.response)
    } else if (typeof message.event === 'string') handleEvent(message.event, message)
    else logger.warn('Socket message without action or event.', message)
  }

  function handleErrorReply(message: Record<string, unknown>): void {
    const parsed = wsErrorEnvelope.safeParse(message)
    if (!parsed.success) {
      logger.warn('Malformed socket error reply.', message)
      return
    }
    const reply = parsed.data
    const error: LoadError = { message: reply.error, code: reply.errorCode }
    const failing: Partial<Record<string, Failable>> = {
      getAssets: stores.assets.getState(),
      getMarkets: stores.markets.getState(),
      getTrades: stores.trades.getState(),
      privateGetTrades: stores.privateTrades.getState(),
      privateGetBalance: stores.balance.getState(),
      privateGetOrdersOpen: stores.openOrders.getState(),
      getTicker24h: stores.ticker24h.getState(),
      getTime: stores.time.getState(),
      privateCreateOrder: stores.createOrder.getState(),
      privateCancelOrder: stores.cancelOrder.getState(),
      privateGetAccount: stores.fees.getState(),
    }
    if (reply.action === 'authenticate') {
      stores.auth.getState().fail(reply.errorCode, reply.error)
      if (resubscribeAfterAuthentication) {
        resubscribeAfterAuthentication = false
        registry.reconnectAll()
      }
      return
    }
    if (reply.action === 'getBook') {
      const market = bookRequestAnswered(
        typeof reply.market === 'string' ? reply.market : undefined,
      )
      if (market !== undefined) {
        desktopBooks.handleError(market, reply.error, reply.errorCode)
        mobileBooks.handleError(market, reply.error, reply.errorCode)
      }
      const streamError = new BookStreamError(market, reply.error, reply.errorCode)
      for (const listener of bookErrorListeners) listener(streamError)
      return
    }
    const store = failing[reply.action]
    if (store !== undefined) store.fail(error)
    else logger.warn(`Socket error reply to ${reply.action}.`, reply)
  }

  function handleResponse(action: string, response: unknown): void {
    if (!Object.hasOwn(specSocketActions, action)) {
      logger.warn(`Reply to an action the client does not send: ${action}.`)
      return
    }
    const schema = specSocketActions[action as SpecSocketActionName].response
    const parsed = schema?.safeParse(response)
    if (parsed === undefined || !parsed.success) {
      logger.warn(`Invalid reply to ${action}.`, parsed?.error)
      return
    }
    const data = parsed.data as never
    switch (action as SpecSocketActionName) {
      case 'getAssets':
        stores.assets.getState().receive(asArray<Asset>(data))
        break
      case 'getMarkets':
        stores.markets.getState().receive(asArray<Market>(data))
        break
      case 'getBook':
        bookRequestAnswered((data as { market: string }).market)
        desktopBooks.handleSnapshot(data)
        mobileBooks.handleSnapshot(data)
        break
      case 'getTrades':
        stores.trades.getState().receive({ market: tradesMarket ?? '', trades: data })
        break
      case 'privateGetTrades':
        stores.privateTrades.getState().receive(data)
        break
      case 'privateGetBalance':
        stores.balance.getState().receive(data)
        break
      case 'privateGetOrdersOpen':
        stores.openOrders.getState().receive(data)
        break
      case 'privateCreateOrder':
        stores.createOrder.getState().receive(data)
        break
      case 'privateCancelOrder':
        stores.cancelOrder.getState().receive(data)
        break
      case 'privateGetAccount':
        stores.fees.getState().receive(data)
        break
      case 'getTime':
        stores.time.getState().receive(data)
        break
      case 'getTicker24h':
        stores.ticker24h.getState().receive(asArray(data))
        break
      default:
        logger.warn(`Unexpected reply to ${action}.`)
    }
  }

  function handleEvent(event: string, message: Record<string, unknown>): void {
    if (!Object.hasOwn(specSocketEvents, event)) {
      // Protocol events this client does not subscribe to, and anything unknown: logged only.
      logger.warn(`Unknown socket event "${event}".`)
      return
    }
    const parsed =
      specSocketEvents[event as keyof typeof specSocketEvents].schema.safeParse(message)
    if (!parsed.success) {
      logger.warn(`Invalid "${event}" event.`, parsed.error)
      return
    }
    const data = parsed.data as never
    switch (event as keyof typeof specSocketEvents) {
      case 'update':
      case 'mobileUpdate':
        stores.ticker24h.getState().applyPriceUpdates((data as { data: never }).data)
        break
      case 'ticker24h':
        stores.ticker24h.getState().applyTickers((data as { data: never }).data)
        break
      case 'subscribed':
      case 'unsubscribed':
        stores.socket.setState({
          serverSubscriptions: (data as { subscriptions: never }).subscriptions,
        })
        break
      case 'authenticate':
        stores.auth.getState().succeed()
        // Fees come with the account: asked right after a successful authenticate (spec §7).
        stores.fees.getState().request()
        sendIfOpen({ action: 'privateGetAccount' })
        if (resubscribeAfterAuthentication) {
          resubscribeAfterAuthentication = false
          registry.reconnectAll()
        }
        break
      case 'unauthenticate':
        stores.auth.getState().unauthenticate()
        break
      case 'book':
        desktopBooks.handleUpdate(data)
        mobileBooks.handleUpdate(data)
        break
      case 'order':
        stores.openOrders.getState().applyOrderEvent(data)
        break
      case 'fill':
        stores.openOrders.getState().applyFillEvent(data)
        break
    }
  }

  // --- connection ----------------------------------------------------------------------------

  function scheduleReconnect(wasAuthenticated: boolean): void {
    if (disposed || reconnectOptions === false) return
    if (reconnectAttempts >= reconnectOptions.attemptsMax) return
    const delayMs = backoffDelayMs(
      reconnectAttempts,
      { retries: reconnectOptions.attemptsMax, ...reconnectOptions },
      random,
    )
    reconnectAttempts += 1
    reconnectTimer = timers.setTimeout(() => {
      reconnectTimer = undefined
      open().then(
        () => {
          if (wasAuthenticated && options.credentials !== undefined) {
            resubscribeAfterAuthentication = true
            authenticate().catch((error: unknown) => {
              logger.warn('Re-authentication failed.', error)
              resubscribeAfterAuthentication = false
              registry.reconnectAll()
            })
          } else {
            registry.reconnectAll()
          }
        },
        (error: unknown) => {
          logger.debug('Reconnect failed.', error)
          scheduleReconnect(wasAuthenticated)
        },
      )
    }, delayMs)
  }

  async function open(): Promise<void> {
    await connection.connect()
    reconnectAttempts = 0
  }

  async function authenticate(): Promise<void> {
    if (options.credentials === undefined) {
      throw new ClientError('authenticate needs a credentials provider.')
    }
    const credentials = await options.credentials()
    send('authenticate', credentials)
    stores.auth.getState().request()
  }

  return {
    stores,
    subscriptions: registry,
    connectionStatus,
    desktopBooks,
    mobileBooks,
    async connect() {
      connectionStatus.start()
      await open()
      // Subscriptions asked for before the socket opened go out now.
      registry.reconnectAll()
    },
    disconnect() {
      if (reconnectTimer !== undefined) timers.clearTimeout(reconnectTimer)
      reconnectTimer = undefined
      connection.close()
    },
    send,
    authenticate,
    getAssets() {
      send('getAssets')
      stores.assets.getState().request()
    },
    getMarkets() {
      send('getMarkets')
      stores.markets.getState().request()
    },
    getBook(market) {
      send('getBook', { market })
      bookRequestSent(market)
    },
    subscribeToBook: (market) => desktopBooks.subscribe(market),
    unsubscribeFromBook: (market) => desktopBooks.unsubscribe(market),
    subscribeToMobileBook: (market) => mobileBooks.subscribe(market),
    unsubscribeFromMobileBook: (market) => mobileBooks.unsubscribe(market),
    getTrades(market) {
      send('getTrades', { market })
      tradesMarket = market
      stores.trades.getState().request(market)
    },
    privateGetTrades(market) {
      if (!isAuthenticatedFor(stores.privateTrades.getState())) return
      send('privateGetTrades', { market })
      stores.privateTrades.getState().request(market)
    },
    privateGetBalance() {
      if (!isAuthenticatedFor(stores.balance.getState())) return
      send('privateGetBalance')
      stores.balance.getState().request()
    },
    privateGetOrdersOpen(market) {
      if (!isAuthenticatedFor(stores.openOrders.getState())) return
      send('privateGetOrdersOpen', market === undefined ? {} : { market })
      stores.openOrders.getState().request(market)
    },
    privateCreateOrder(order) {
      if (!isAuthenticatedFor(stores.createOrder.getState())) return
      send('privateCreateOrder', order)
      stores.createOrder.getState().request(order.market)
    },
    privateCancelOrder(cancel) {
      if (!isAuthenticatedFor(stores.cancelOrder.getState())) return
      send('privateCancelOrder', cancel)
      stores.cancelOrder.getState().request(cancel.market)
    },
    privateGetAccount() {
      if (!isAuthenticatedFor(stores.fees.getState())) return
      send('privateGetAccount')
      stores.fees.getState().request()
    },
    getTime() {
      send('getTime')
      stores.time.getState().request()
    },
    getTicker24h() {
      send('getTicker24h')
      stores.ticker24h.getState().request()
    },
    subscribeTicker24h(markets) {
      const channels = [{ name: 'ticker24h' as const, markets: [...markets] }]
      const added = registry.add(ticker24hSubscriptionKey, {
        kind: 'twentyFourHourSubscription',
        subscribeJSON: { action: 'subscribe', channels },
        unsubscribeJSON: { action: 'unsubscribe', channels },
      })
      // Updates apply only once a full answer is in: ask for it.
      if (added && stores.ticker24h.getState().load.status !== 'received' && connection.isOpen) {
        send('getTicker24h')
        stores.ticker24h.getState().request()
      }
    },
    unsubscribeTicker24h() {
      registry.remove(ticker24hSubscriptionKey)
    },
    subscribeAccount(markets) {
      if (!isAuthenticatedFor(stores.openOrders.getState())) return
      const channels = [
        { name: 'account' as const, markets: markets === '*' ? ('*' as const) : [...markets] },
      ]
      const added = registry.add(privateOpenOrdersSubscriptionKey, {
        kind: 'privateOpenOrders',
        subscribeJSON: { action: 'subscribe', channels },
        unsubscribeJSON: { action: 'unsubscribe', channels },
      })
      if (added && sendIfOpen({ action: 'privateGetOrdersOpen' })) {
        stores.openOrders.getState().request()
      }
    },
    unsubscribeAccount() {
      registry.remove(privateOpenOrdersSubscriptionKey)
      stores.openOrders.getState().reset()
    },
    clearTrades() {
      tradesMarket = undefined
      stores.trades.getState().clearTrades()
    },
    resetTicker24h() {
      stores.ticker24h.getState().resetTicker24h()
    },
    unsubscribeAll: () => registry.unsubscribeAll(),
    reconnectAll: () => registry.reconnectAll(),
    onBookStreamError(listener) {
      bookErrorListeners.add(listener)
      return () => {
        bookErrorListeners.delete(listener)
      }
    },
    dispose() {
      disposed = true
      if (reconnectTimer !== undefined) timers.clearTimeout(reconnectTimer)
      reconnectTimer = undefined
      connectionStatus.stop()
      desktopBooks.dispose()
      mobileBooks.dispose()
      connection.close()
    },
  }
}
