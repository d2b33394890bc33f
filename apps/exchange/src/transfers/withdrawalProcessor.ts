// Moves withdrawals through their statuses on the server clock: every tick, each withdrawal whose
// next status is due gets one journaled command for it. The core accepts each step once and never
// early, so a crash, a restart or a second tick can neither skip nor repeat one; after a restart
// the pending withdrawals come back with the core's state and carry on where they were.
import type { AdvanceWithdrawal } from '../core/exchangeCore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { PeriodicTask } from '../core/periodicTask.ts'

export type WithdrawalProcessorOptions = { nowMs: () => number; tickMs?: number }

export class WithdrawalProcessor {
  readonly #service: ExchangeService
  readonly #options: WithdrawalProcessorOptions
  readonly #task = new PeriodicTask(() => this.#advanceDue(), 0)

  constructor(service: ExchangeService, options: WithdrawalProcessorOptions) {
    this.#service = service
    this.#options = options
  }

  start(onError: (error: unknown) => void): void {
    this.#task.start(this.#options.tickMs ?? 250, onError)
  }

  stop(): void {
    this.#task.stop()
  }

  /** Submits every status that is due; returns how many steps were taken (0 while a tick runs). */
  tick(): Promise<number> {
    return this.#task.run()
  }

  async #advanceDue(): Promise<number> {
    let steps = 0
    const nowMs = this.#options.nowMs()
    for (const withdrawal of [...this.#service.core.pendingWithdrawals.values()]) {
      // Both steps in one tick when both are due (the exchange was down, or the delay is 0).
      // The status is read again after the first step: the core has moved it on.
      if (withdrawal.status === 'awaiting_processing' && nowMs >= withdrawal.sendingAtMs) {
        if (await this.#advance(withdrawal.reference, 'sending', nowMs)) steps += 1
      }
      if (withdrawal.status === 'sending' && nowMs >= withdrawal.completedAtMs) {
        if (await this.#advance(withdrawal.reference, 'completed', nowMs)) steps += 1
      }
    }
    return steps
  }

  /** Submits one step; true when the core took it. */
  async #advance(
    reference: string,
    status: AdvanceWithdrawal['status'],
    nowMs: number,
  ): Promise<boolean> {
    const outcome = await this.#service.submit({
      type: 'advanceWithdrawal',
      timestamp: nowMs,
      reference,
      status,
    })
    return outcome.ok
  }
}
