// Moves withdrawals through their statuses on the server clock: every tick, each withdrawal whose
// next status is due gets one journaled command for it. The core accepts each step once and never
// early, so a crash, a restart or a second tick can neither skip nor repeat one; after a restart
// the pending withdrawals come back with the core's state and carry on where they were.
import type { ExchangeService } from '../core/exchangeService.ts'

export type WithdrawalProcessorOptions = { nowMs: () => number; tickMs?: number }

export class WithdrawalProcessor {
  readonly #service: ExchangeService
  readonly #options: WithdrawalProcessorOptions
  #timer: ReturnType<typeof setInterval> | undefined
  #busy = false

  constructor(service: ExchangeService, options: WithdrawalProcessorOptions) {
    this.#service = service
    this.#options = options
  }

  start(): void {
    this.#timer ??= setInterval(() => void this.tick(), this.#options.tickMs ?? 250)
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** Submits every status that is due; returns how many steps were taken. */
  async tick(): Promise<number> {
    if (this.#busy) return 0
    this.#busy = true
    let steps = 0
    try {
      const nowMs = this.#options.nowMs()
      for (const withdrawal of [...this.#service.core.pendingWithdrawals.values()]) {
        // Both steps in one tick when both are due (the exchange was down, or the delay is 0).
        if (withdrawal.status === 'awaiting_processing' && nowMs >= withdrawal.sendingAtMs) {
          const sent = await this.#service.submit({
            type: 'advanceWithdrawal',
            timestamp: nowMs,
            reference: withdrawal.reference,
            status: 'sending',
          })
          if (sent.ok) steps += 1
        }
        if (withdrawal.status === 'sending' && nowMs >= withdrawal.completedAtMs) {
          const completed = await this.#service.submit({
            type: 'advanceWithdrawal',
            timestamp: nowMs,
            reference: withdrawal.reference,
            status: 'completed',
          })
          if (completed.ok) steps += 1
        }
      }
    } finally {
      this.#busy = false
    }
    return steps
  }
}
