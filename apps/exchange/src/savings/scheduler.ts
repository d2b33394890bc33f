// Runs due savings plans: every tick, each ACTIVE plan whose next occurrence has come gets one
// journaled run command for its latest due occurrence. The core accepts an occurrence once, so a
// crash between the tick and the commit, or a second tick, can never buy twice.
import type { ExchangeService } from '../core/exchangeService.ts'
import { newOrderId } from '../core/orderIds.ts'
import { PeriodicTask } from '../core/periodicTask.ts'
import { executionId, lastOccurrenceIndex, occurrence } from './schedule.ts'

export type SchedulerOptions = {
  nowMs: () => number
  /** Fee rates of an account (its tier). */
  feesOf: (accountId: number) => Promise<{ makerFeePpm: number; takerFeePpm: number }>
  tickMs?: number
}

export class SavingsScheduler {
  readonly #service: ExchangeService
  readonly #options: SchedulerOptions
  readonly #task = new PeriodicTask(() => this.#runDue(), 0)

  constructor(service: ExchangeService, options: SchedulerOptions) {
    this.#service = service
    this.#options = options
  }

  start(onError: (error: unknown) => void): void {
    this.#task.start(this.#options.tickMs ?? 1_000, onError)
  }

  stop(): void {
    this.#task.stop()
  }

  /** Submits one run per due plan; returns how many ran (0 while a tick is still running). */
  tick(): Promise<number> {
    return this.#task.run()
  }

  async #runDue(): Promise<number> {
    let ran = 0
    const nowMs = this.#options.nowMs()
    for (const plan of [...this.#service.core.savingsPlans.values()]) {
      if (plan.status !== 'ACTIVE') continue
      if (lastOccurrenceIndex(plan.startMs, plan.frequency, nowMs) < plan.nextIndex) continue
      const fees = await this.#options.feesOf(plan.accountId)
      // Stamped as submitted, not as the tick began: the runs before it took time, and a
      // command's time is what cancel-on-disconnect deadlines are checked against.
      const runMs = Math.max(nowMs, this.#options.nowMs())
      // The occurrence due when the run is stamped: a tick begun before midnight that submits
      // after it would otherwise buy yesterday's run today, then today's at the next tick.
      const index = lastOccurrenceIndex(plan.startMs, plan.frequency, runMs)
      if (index < plan.nextIndex) continue
      const outcome = await this.#service.submit({
        type: 'runSavingsPlan',
        timestamp: runMs,
        planId: plan.id,
        index,
        // The ids the runs were listed under while upcoming (the missed ones first).
        executionIds: Array.from({ length: index - plan.nextIndex + 1 }, (_, k) =>
          executionId(plan.id, occurrence(plan.startMs, plan.frequency, plan.nextIndex + k)),
        ),
        orderId: newOrderId(runMs),
        ...fees,
        amountRules: 2,
      })
      if (outcome.ok) ran += 1
    }
    return ran
  }
}
