import { z } from 'zod'
import {
  assetSymbol,
  decimalString,
  depositStatus,
  idString,
  integerParameter,
  marketId,
  nonNegativeDecimalString,
  positiveDecimalString,
  timestampMs,
  timestampParameter,
  withdrawalStatus,
} from '../primitives.ts'

// Account, balances, deposits and withdrawals (protocol §3.2, §4.6).

/** Most rows one deposit or withdrawal history request may return (default 500). */
export const transferHistoryLimitMax = 1000
/** Most items one `/account/history` page may hold. */
export const accountHistoryItemsMax = 100

// --- GET /account, GET /account/fees -----------------------------------------------------------

export const accountRequest = z.strictObject({})

/** Fee fractions (`"0.0025"` is 0.25 %) and the 30-day volume. */
export const accountResponse = z.object({
  fees: z.object({
    taker: nonNegativeDecimalString,
    maker: decimalString,
    volume: nonNegativeDecimalString,
  }),
})
export type AccountResponse = z.infer<typeof accountResponse>

export const feesShape = {
  market: marketId.optional(),
  /** EUR or USDC. */
  quote: assetSymbol.optional(),
}
export const feesRequest = z.strictObject(feesShape)
export type FeesRequest = z.infer<typeof feesRequest>

export const feesResponse = z.object({
  tier: z.string(),
  volume: nonNegativeDecimalString,
  taker: nonNegativeDecimalString,
  maker: decimalString,
})
export type FeesResponse = z.infer<typeof feesResponse>

// --- GET /balance ------------------------------------------------------------------------------

export const balanceShape = { symbol: assetSymbol.optional() }
export const balanceRequest = z.strictObject(balanceShape)
export type BalanceRequest = z.infer<typeof balanceRequest>

export const balance = z.object({
  symbol: assetSymbol,
  available: nonNegativeDecimalString,
  inOrder: nonNegativeDecimalString,
})
export type Balance = z.infer<typeof balance>
/** Always an array, even when filtered by symbol. */
export const balanceResponse = z.array(balance)

// --- GET /deposit ------------------------------------------------------------------------------

export const depositShape = { symbol: assetSymbol }
export const depositRequest = z.strictObject(depositShape)
export type DepositRequest = z.infer<typeof depositRequest>

/** Crypto: an address (non-empty, no space, not one repeated character: ccxt checkAddress). */
export const cryptoDepositData = z.object({
  address: z
    .string()
    .min(2)
    .regex(/^\S+$/, { error: 'expected an address without spaces' })
    .refine((address) => new Set(address).size > 1, {
      error: 'expected an address that is not one repeated character',
    }),
  /** Spelled `paymentId` (one docs example says `paymentid`; clients read `paymentId`). */
  paymentId: z.string().optional(),
})
export const fiatDepositData = z.object({
  iban: z.string().min(1),
  bic: z.string().min(1),
  description: z.string(),
})
export const depositResponse = z.union([cryptoDepositData, fiatDepositData])
export type DepositResponse = z.infer<typeof depositResponse>

// --- POST /withdrawal --------------------------------------------------------------------------

export const withdrawalShape = {
  symbol: assetSymbol,
  amount: positiveDecimalString,
  /** Bounded: it is journaled and kept (the longest address formats are well under this). */
  address: z.string().min(1).max(256),
  paymentId: z.string().max(128).optional(),
  /** Deprecated. */
  internal: z.boolean().optional(),
  /** Add the fee to the amount instead of deducting it. */
  addWithdrawalFee: z.boolean().optional(),
}
export const withdrawalRequest = z.strictObject(withdrawalShape)
export type WithdrawalRequest = z.infer<typeof withdrawalRequest>

export const withdrawalResponse = z.object({
  success: z.literal(true),
  symbol: assetSymbol,
  amount: positiveDecimalString,
})
export type WithdrawalResponse = z.infer<typeof withdrawalResponse>

// --- GET /depositHistory, GET /withdrawalHistory -----------------------------------------------

export const transferHistoryShape = {
  symbol: assetSymbol.optional(),
  limit: integerParameter(1, transferHistoryLimitMax).optional(),
  start: timestampParameter.optional(),
  end: timestampParameter.optional(),
}
export const depositHistoryRequest = z.strictObject(transferHistoryShape)
export type DepositHistoryRequest = z.input<typeof depositHistoryRequest>
export const withdrawalHistoryRequest = z.strictObject(transferHistoryShape)
export type WithdrawalHistoryRequest = z.input<typeof withdrawalHistoryRequest>

export const depositHistoryEntry = z.object({
  timestamp: timestampMs,
  symbol: assetSymbol,
  amount: positiveDecimalString,
  /** ccxt's own example rows omit it. */
  address: z.string().optional(),
  paymentId: z.string().optional(),
  txId: z.string().optional(),
  fee: nonNegativeDecimalString,
  status: depositStatus,
})
export type DepositHistoryEntry = z.infer<typeof depositHistoryEntry>
export const depositHistoryResponse = z.array(depositHistoryEntry)

export const withdrawalHistoryEntry = z.object({
  timestamp: timestampMs,
  symbol: assetSymbol,
  amount: positiveDecimalString,
  address: z.string(),
  paymentId: z.string().optional(),
  txId: z.string(),
  fee: nonNegativeDecimalString,
  status: withdrawalStatus,
})
export type WithdrawalHistoryEntry = z.infer<typeof withdrawalHistoryEntry>
export const withdrawalHistoryResponse = z.array(withdrawalHistoryEntry)

// --- GET /account/history ----------------------------------------------------------------------

export const accountHistoryShape = {
  /** Milliseconds, or an ISO 8601 date-time. */
  fromDate: z.union([timestampParameter, z.iso.datetime({ offset: true })]).optional(),
  toDate: z.union([timestampParameter, z.iso.datetime({ offset: true })]).optional(),
  page: integerParameter(1, 1_000_000).optional(),
  maxItems: integerParameter(1, accountHistoryItemsMax).optional(),
  type: z.string().min(1).optional(),
}
export const accountHistoryRequest = z.strictObject(accountHistoryShape)
export type AccountHistoryRequest = z.input<typeof accountHistoryRequest>

const nullableAmount = decimalString.nullable().optional()
const nullableCurrency = assetSymbol.nullable().optional()

export const accountHistoryItem = z.object({
  transactionId: idString,
  /** ISO 8601 date-time. */
  executedAt: z.iso.datetime({ offset: true }),
  type: z.string(),
  priceCurrency: nullableCurrency,
  priceAmount: nullableAmount,
  sentCurrency: nullableCurrency,
  sentAmount: nullableAmount,
  receivedCurrency: nullableCurrency,
  receivedAmount: nullableAmount,
  feesCurrency: nullableCurrency,
  feesAmount: nullableAmount,
  address: z.string().nullable().optional(),
})
export type AccountHistoryItem = z.infer<typeof accountHistoryItem>

export const accountHistoryResponse = z.object({
  items: z.array(accountHistoryItem),
  currentPage: z.int().min(1),
  totalPages: z.int().min(0),
  maxItems: z.int().min(1).max(accountHistoryItemsMax),
})
export type AccountHistoryResponse = z.infer<typeof accountHistoryResponse>
