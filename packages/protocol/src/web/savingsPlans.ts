import { z } from 'zod'
import type { IssueErrorCode } from '../errors/ValidationError.ts'
import {
  assetSymbol,
  integerParameter,
  marketId,
  nonNegativeDecimalString,
  positiveDecimalString,
  timestampMs,
  uuid,
} from '../primitives.ts'

// Savings plans under /exchange/savings-plans/v1 (spec §3, §7): recurring purchases of an asset
// for a fixed amount of euros. The spec leaves most fields open; this is the design:
// - a plan buys `asset` on the market `<asset>-EUR` for `amount` EUR (a decimal string) at every
//   `frequency`, from `startDate` (an ISO calendar date; runs fall at 00:00 UTC of their day);
// - PATCH wraps its changes in `data`; DELETE marks the plan DELETED and returns it;
// - executions are paged with `page` (from 1) and `size`.

/** Most executions one page may hold. */
export const executionsPageSizeMax = 100
/** Most savings plans one account may hold. */
export const savingsPlansPerAccountMax = 100

export const savingsPlanFrequency = z.enum(['DAILY', 'WEEKLY', 'FORTNIGHTLY', 'MONTHLY'])
export type SavingsPlanFrequency = z.infer<typeof savingsPlanFrequency>

export const savingsPlanStatus = z.enum(['ACTIVE', 'INACTIVE', 'DELETED'])
export type SavingsPlanStatus = z.infer<typeof savingsPlanStatus>

/** The statuses a client may set (DELETED only through DELETE). */
export const settableSavingsPlanStatus = z.enum(['ACTIVE', 'INACTIVE'])

export const savingsPlanExecutionStatus = z.enum(['SCHEDULED', 'PENDING', 'SUCCESS', 'FAILED'])
export type SavingsPlanExecutionStatus = z.infer<typeof savingsPlanExecutionStatus>

/** `YYYY-MM-DD`. */
export const calendarDate = z.iso.date({ error: 'expected a date YYYY-MM-DD' })

export const savingsPlan = z.object({
  id: uuid,
  asset: assetSymbol,
  /** Always `<asset>-EUR`. */
  market: marketId,
  /** EUR per execution. */
  amount: positiveDecimalString,
  frequency: savingsPlanFrequency,
  startDate: calendarDate,
  status: savingsPlanStatus,
  /** Null when the plan is not ACTIVE. */
  nextExecutionDate: calendarDate.nullable(),
  created: timestampMs,
  updated: timestampMs,
})
export type SavingsPlan = z.infer<typeof savingsPlan>

// --- GET /exchange/savings-plans/v1 ------------------------------------------------------------

/** The list can be filtered by status (spec §3: "a listing by status exists"). */
export const listSavingsPlansRequest = z.strictObject({ status: savingsPlanStatus.optional() })
export type ListSavingsPlansRequest = z.infer<typeof listSavingsPlansRequest>
export const listSavingsPlansResponse = z.array(savingsPlan).max(savingsPlansPerAccountMax)

// --- /exchange/savings-plans/v1/{id} -----------------------------------------------------------

export const savingsPlanPath = z.strictObject({ id: uuid })
export type SavingsPlanPath = z.infer<typeof savingsPlanPath>

export const getSavingsPlanRequest = z.strictObject({})
export const getSavingsPlanResponse = savingsPlan

// --- POST /exchange/savings-plans/v1 -----------------------------------------------------------

export const createSavingsPlanRequest = z.strictObject({
  asset: assetSymbol,
  amount: positiveDecimalString,
  frequency: savingsPlanFrequency,
  startDate: calendarDate,
  /** Default ACTIVE. */
  status: settableSavingsPlanStatus.optional(),
})
export type CreateSavingsPlanRequest = z.infer<typeof createSavingsPlanRequest>
export const createSavingsPlanResponse = savingsPlan

// --- PATCH /exchange/savings-plans/v1/{id} -----------------------------------------------------

const savingsPlanChanges = z
  .strictObject({
    amount: positiveDecimalString.optional(),
    frequency: savingsPlanFrequency.optional(),
    startDate: calendarDate.optional(),
    status: settableSavingsPlanStatus.optional(),
  })
  .superRefine((value, context) => {
    if (Object.values(value).every((field) => field === undefined)) {
      const params: IssueErrorCode = { errorCode: 232 }
      context.addIssue({ code: 'custom', message: 'nothing to change', params })
    }
  })

/** The changes travel wrapped in `data` (spec §7). */
export const updateSavingsPlanRequest = z.strictObject({ data: savingsPlanChanges })
export type UpdateSavingsPlanRequest = z.infer<typeof updateSavingsPlanRequest>
export const updateSavingsPlanResponse = savingsPlan

// --- DELETE /exchange/savings-plans/v1/{id} ----------------------------------------------------

export const deleteSavingsPlanRequest = z.strictObject({})
/** The plan, now with status DELETED. */
export const deleteSavingsPlanResponse = savingsPlan

// --- GET /exchange/savings-plans/v1/assets -----------------------------------------------------

export const savingsPlanAssetsRequest = z.strictObject({})
export const savingsPlanAsset = z.object({
  symbol: assetSymbol,
  name: z.string().min(1),
  market: marketId,
  /** Smallest and largest EUR amount per execution. */
  minAmount: positiveDecimalString,
  maxAmount: positiveDecimalString,
})
export type SavingsPlanAsset = z.infer<typeof savingsPlanAsset>
export const savingsPlanAssetsResponse = z.array(savingsPlanAsset)

// --- GET /exchange/savings-plans/v1/{id}/executions --------------------------------------------

export const savingsPlanExecutionsRequest = z.strictObject({
  /** From 1; default 1. */
  page: integerParameter(1, 1_000_000).optional(),
  /** Default 20. */
  size: integerParameter(1, executionsPageSizeMax).optional(),
})
export type SavingsPlanExecutionsRequest = z.input<typeof savingsPlanExecutionsRequest>

export const savingsPlanExecution = z.object({
  id: uuid,
  savingsPlanId: uuid,
  status: savingsPlanExecutionStatus,
  scheduledAt: timestampMs,
  /** Null until the purchase ran. */
  executedAt: timestampMs.nullable(),
  /** EUR spent, the fee on top, by a SUCCESS (the plan amount when SCHEDULED, PENDING or FAILED). */
  amount: positiveDecimalString,
  /** Asset bought; null unless SUCCESS. */
  filledAmount: nonNegativeDecimalString.nullable(),
  /** Average price paid; null unless SUCCESS. */
  price: positiveDecimalString.nullable(),
  /** The order placed for it; null before it was placed. */
  orderId: uuid.nullable(),
  /** A protocol errorCode when FAILED (e.g. 216 for insufficient balance), else null. */
  failureErrorCode: z.int().nullable(),
})
export type SavingsPlanExecution = z.infer<typeof savingsPlanExecution>

export const savingsPlanExecutionsResponse = z.object({
  items: z.array(savingsPlanExecution).max(executionsPageSizeMax),
  page: z.int().min(1),
  size: z.int().min(1).max(executionsPageSizeMax),
  /** Executions in all pages. */
  total: z.int().min(0),
})
export type SavingsPlanExecutionsResponse = z.infer<typeof savingsPlanExecutionsResponse>
