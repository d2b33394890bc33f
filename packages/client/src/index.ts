// @polder/client: the trading client's state machines (spec §3–§5, §7–§9), framework-agnostic.
// No React here: the bindings live in `@polder/client/react`.

export { BookSide, bookLevelsPerSideMax, type Level } from './book/bookSide.ts'
export {
  bookQueueMax,
  DesktopOrderBooks,
  defaultBookMergeIntervalMs,
  desktopResyncAttemptsMax,
  orderBookResyncFailedMessage,
  orderBookSubscriptionKey,
} from './book/desktopOrderBooks.ts'
export {
  createMobileOrderBooksStore,
  type MobileOrderBookEntry,
  MobileOrderBooks,
  type MobileOrderBooksState,
  type MobileOrderBooksStore,
  type MobileSyncPhase,
  mobileOrderBookSubscriptionKey,
  mobileResyncAttemptsMax,
} from './book/mobileOrderBooks.ts'
export {
  type BookSnapshotInput,
  type BookUpdate,
  type MergeResult,
  midPriceAndSpread,
  OrderBook,
  type OrderBookSnapshot,
} from './book/orderBook.ts'
export {
  createOrderBooksStore,
  type OrderBooksState,
  type OrderBooksStore,
  selectBestAsk,
  selectBestBid,
} from './book/orderBooksStore.ts'
export {
  type ConnectionStatus,
  type ConnectionStatusMonitor,
  type ConnectionStatusState,
  connectionCheckIntervalMs,
  connectionChecksMax,
  connectionStaleAfterMs,
  connectionStartPollMs,
  createConnectionStatusMonitor,
} from './connection/connectionStatus.ts'
export { compareDecimals, isZeroDecimal } from './decimal/compareDecimal.ts'
export { addDecimals, decimalPrecision, decimalRounding, PolderDecimal } from './decimal/decimal.ts'
export {
  type Clock,
  type CreateId,
  consoleLogger,
  globalTimers,
  type Logger,
  type Random,
  randomUuid,
  silentLogger,
  systemClock,
  type TimerHandle,
  type Timers,
} from './environment.ts'
export {
  BookStreamError,
  ClientError,
  type ClientErrorOptions,
  HttpStatusError,
  InvalidResponseError,
  NetworkError,
  RequestTimeoutError,
  SocketClosedError,
  SocketConnectTimeoutError,
  SocketNotOpenError,
  UnknownSocketActionError,
} from './errors.ts'
export {
  failed,
  initialized,
  type LoadError,
  type LoadState,
  type LoadStateHandlers,
  type LoadStatus,
  loadedData,
  matchLoadState,
  received,
  requested,
  reset,
} from './loadState.ts'
export {
  createOpenOrdersStore,
  type FillHistoryEvent,
  type HistoryEvent,
  isRecordedInHistory,
  type OpenOrder,
  type OpenOrdersState,
  type OpenOrdersStore,
  type OrderEventType,
  type OrderFill,
  type OrderHistoryEvent,
  openOrderFromOrder,
  orderEventsMax,
  quoteCurrency,
} from './orders/openOrdersStore.ts'
export { chartChange } from './presentation/chartChange.ts'
export { type FormatDateOptions, formatDate } from './presentation/formatDate.ts'
export { formatPercent } from './presentation/formatPercent.ts'
export { closeCodeDescriptions, describeCloseCode } from './socket/closeCodes.ts'
export {
  type AuthenticateCredentials,
  apiKeyCredentials,
  type CredentialsProvider,
  sessionCredentials,
  signWebSocketAuthentication,
} from './socket/credentials.ts'
export {
  createPolderClient,
  defaultReconnectOptions,
  type PolderClient,
  type PolderClientOptions,
  type PolderStores,
  privateOpenOrdersSubscriptionKey,
  type ReconnectOptions,
  ticker24hSubscriptionKey,
  unauthenticatedCallErrorCode,
  unauthenticatedMessageKey,
} from './socket/polderClient.ts'
export {
  defaultConnectTimeoutMs,
  SocketConnection,
  type WebSocketConstructor,
  type WebSocketLike,
} from './socket/socketConnection.ts'
export {
  type SubscriptionKind,
  SubscriptionLimitError,
  type SubscriptionRecord,
  SubscriptionRegistry,
  type SubscriptionStatus,
  type SubscriptionsState,
  subscriptionsMax,
} from './socket/subscriptionRegistry.ts'
export { assetNetworkStatus } from './stores/assets.ts'
export { type AuthState, type AuthStore, createAuthStore } from './stores/authStore.ts'
export {
  createFeesStore,
  defaultFees,
  type Fees,
  type FeesState,
  type FeesStore,
  feesFromAccount,
} from './stores/feesStore.ts'
export { createLoadStore, type LoadStore, type LoadStoreState } from './stores/loadStore.ts'
export {
  createSocketStore,
  type SocketClose,
  type SocketConnectionState,
  type SocketState,
  type SocketStore,
} from './stores/socketStore.ts'
export {
  createTicker24hStore,
  type PriceUpdate,
  type Ticker24hState,
  type Ticker24hStore,
  type TickerEntry,
  type TickersByMarket,
  tickerQuoteSuffix,
} from './stores/ticker24hStore.ts'
export {
  createTradesStore,
  type TradesData,
  type TradesState,
  type TradesStore,
} from './stores/tradesStore.ts'
export {
  createThemeStore,
  darkClassName,
  documentThemeRoot,
  type ThemeName,
  type ThemeRoot,
  type ThemeState,
  type ThemeStorage,
  type ThemeStore,
  themeStorageKey,
} from './theme/themeStore.ts'
export {
  backoffDelayMs,
  backoffJitterMax,
  defaultRetryOptions,
  type RetryOptions,
} from './web/backoff.ts'
export {
  buildUrl,
  createHttpClient,
  defaultApiTimeoutMs,
  type FetchLike,
  type HttpClient,
  type HttpClientOptions,
} from './web/httpClient.ts'
export {
  createLivePriceFeed,
  type LivePriceFeed,
  type LivePriceFeedState,
  type LivePriceFeedStatus,
  livePriceFirstRetryMs,
  livePriceRetriesMax,
  livePriceRetryDelayMs,
  livePriceRetryDelayMsMax,
  livePriceRetryFactor,
} from './web/livePriceFeed.ts'
export {
  createSiteExchangeClient,
  type SiteExchangeClient,
  type SiteMarketItem,
  siteApiTimeoutMs,
  toSiteMarketItem,
} from './web/siteExchangeClient.ts'
export {
  candlesStartMs,
  createWebApiClient,
  defaultRangeLookbackMs,
  type MarketsDataQuery,
  type WebApiClient,
  type WebApiClientOptions,
} from './web/webApiClient.ts'
