// @polder/client/react: thin React bindings over the framework-agnostic core, in the manner of
// TanStack's react-query over query-core. A provider holds one client; hooks read its Zustand
// stores through useSyncExternalStore with a selector, so a component re-renders only when the
// value it selected changes.

export {
  useAuth,
  useBestAsk,
  useBestBid,
  useConnectionStatus,
  useFees,
  useMobileOrderBook,
  useOpenOrders,
  useOrderBook,
  usePolderStore,
  useSocketConnection,
  useStoreSelector,
  useTicker24h,
} from './hooks.ts'
export {
  PolderClientProvider,
  type PolderClientProviderProps,
  usePolderClient,
} from './PolderClientProvider.ts'
