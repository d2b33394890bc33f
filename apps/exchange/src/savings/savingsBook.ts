// The savings plans of every account: part of the core's state (journaled commands change it,
// snapshots carry it), so a plan's runs happen exactly once across crashes and restarts: each run
// is a journaled command naming the occurrence it is for, and the core accepts each occurrence
// once. Runs missed while the exchange was stopped are recorded as FAILED (reason `missed`); only
// the latest due one is executed, so a long stop never buys several periods at once.
import type { Frequency } from './schedule.ts'

export type PlanStatus = 'ACTIVE' | 'INACTIVE' | 'DELETED'

export type Execution = {
  id: string
  scheduledAt: number
  status: 'SUCCESS' | 'FAILED'
  executedAt: number | null
  /** EUR, decimal string. */
  amount: string
  filledAmount: string | null
  price: string | null
  orderId: string | null
  failureErrorCode: number | null
}

export type Plan = {
  id: string
  accountId: number
  asset: string
  market: string
  amount: string
  frequency: Frequency
  startMs: number
  status: PlanStatus
  created: number
  updated: number
  /** Index of the next occurrence to run (0 = the start date). */
  nextIndex: number
  executions: Execution[]
}

/** Executions kept per plan (newest); older ones are forgotten. */
export const executionsPerPlanMax = 1_000

export type SavingsSnapshot = Plan[]
