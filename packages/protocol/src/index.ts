// @polder/protocol: every wire message of Polder as a zod schema (the TypeScript type and the
// runtime validator in one), the error catalogue, and the error classes. No I/O.

export {
  type AuthMessageKey,
  authErrorMessageKey,
  authMessageKeys,
  invalidSessionErrorCode,
  unauthenticatedErrorCode,
} from './errors/authErrorMessageKey.ts'
export {
  type ErrorBody,
  type ErrorCode,
  type ErrorParameters,
  errorBody,
  errorCatalogue,
  errorCodes,
  isErrorCode,
  type ProtocolErrorReply,
  protocolError,
} from './errors/errorCatalogue.ts'
export {
  InvalidRequestIdTokenError,
  MissingErrorParameterError,
  ProtocolError,
  type ProtocolErrorOptions,
  UnknownErrorCodeError,
} from './errors/ProtocolError.ts'
export {
  type IssueErrorCode,
  type ParameterLocation,
  unknownParameterErrorCodes,
  ValidationError,
  type ValidationIssue,
} from './errors/ValidationError.ts'
export { type ParseOptions, parse, type SafeParseResult, safeParse } from './parse.ts'
export * from './primitives.ts'
export {
  type AccountHistoryItem,
  type AccountHistoryRequest,
  type AccountHistoryResponse,
  type AccountResponse,
  accountHistoryItem,
  accountHistoryItemsMax,
  accountHistoryRequest,
  accountHistoryResponse,
  accountRequest,
  accountResponse,
  type Balance,
  type BalanceRequest,
  balance,
  balanceRequest,
  balanceResponse,
  cryptoDepositData,
  type DepositHistoryEntry,
  type DepositHistoryRequest,
  type DepositRequest,
  type DepositResponse,
  depositHistoryEntry,
  depositHistoryRequest,
  depositHistoryResponse,
  depositRequest,
  depositResponse,
  type FeesRequest,
  type FeesResponse,
  feesRequest,
  feesResponse,
  fiatDepositData,
  transferHistoryLimitMax,
  type WithdrawalHistoryEntry,
  type WithdrawalHistoryRequest,
  type WithdrawalRequest,
  type WithdrawalResponse,
} from './rest/account.ts'
export * from './rest/marketData.ts'
export {
  type CancelOrderRequest,
  type CancelOrderResponse,
  type CancelOrdersAfterRequest,
  type CancelOrdersRequest,
  type CancelOrdersResponse,
  type CreateOrderRequest,
  type CreateOrderResponse,
  cancelAfterSecondsMax,
  cancelAfterSecondsMin,
  cancelOrderRequest,
  cancelOrderResponse,
  cancelOrdersAfterRequest,
  cancelOrdersAfterResponse,
  cancelOrdersRequest,
  cancelOrdersResponse,
  createOrderRequest,
  createOrderResponse,
  createOrderRuleViolations,
  type Fill,
  fill,
  type GetOrderRequest,
  getOrderRequest,
  limitOrderTypes,
  type Order,
  type OrderAcknowledgement,
  type OrderRuleViolation,
  type OrdersOpenRequest,
  type OrdersRequest,
  order,
  orderAcknowledgement,
  ordersLimitMax,
  ordersOpenRequest,
  ordersOpenResponse,
  ordersRequest,
  ordersResponse,
  type PrivateTrade,
  privateTrade,
  type TradesRequest,
  tradesRequest,
  tradesResponse,
  triggerOrderTypes,
  type UpdateOrderRequest,
  updateOrderRequest,
  updateOrderRuleViolations,
} from './rest/orders.ts'
export * from './rest/restAuthHeaders.ts'
export {
  type HttpMethod,
  type MarketDependentWeight,
  matchRestEndpoint,
  type RestEndpoint,
  type RestEndpointKey,
  type RestOnlyAction,
  type RestRouteMatch,
  restBasePath,
  restEndpoints,
  restEndpointWeight,
  restOnlyActions,
} from './rest/restEndpoints.ts'
export { listWindowMsMax } from './rest/timeWindow.ts'
export * from './web/marketsData.ts'
export * from './web/priceCandles.ts'
export * from './web/savingsPlans.ts'
export * from './web/specSocket.ts'
export * from './web/webEndpoints.ts'
export * from './ws/requestIdToken.ts'
export * from './ws/wsEvent.ts'
export * from './ws/wsRequest.ts'
export * from './ws/wsResponse.ts'
