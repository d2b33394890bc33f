// Cancel-on-disconnect (POST /cancelOrdersAfter) on the server clock: every tick, each order
// group whose countdown has run out gets one journaled command that cancels its open orders. The
// core refuses the command while the countdown still runs, so a client's restart of the countdown
// that reaches the core first always wins; after a restart of the server the countdowns come back
// with the core's state, and those that ran out while it was down are carried out at the first tick.
// The task is the fallback for a quiet exchange: `ExchangeService.submit` carries out every
// countdown that ran out by a command's time before that command, so none of a group's orders
// trades after its deadline.
import type { ExchangeService } from './exchangeService.ts'
import { PeriodicTask } from './periodicTask.ts'

export type CancelOnDisconnectOptions = { nowMs: () => number; tickMs?: number }

/** How often countdowns are checked: orders go at most this long after their deadline. */
export const cancelOnDisconnectTickMs = 100

export class CancelOnDisconnect {
  readonly #service: ExchangeService
  readonly #options: CancelOnDisconnectOptions
  readonly #task = new PeriodicTask(() => this.#cancelExpired(), 0)

  constructor(service: ExchangeService, options: CancelOnDisconnectOptions) {
    this.#service = service
    this.#options = options
  }

  start(onError: (error: unknown) => void): void {
    this.#task.start(this.#options.tickMs ?? cancelOnDisconnectTickMs, onError)
  }

  stop(): void {
    this.#task.stop()
  }

  /** Cancels the groups whose countdown ran out; returns how many (0 while a tick runs). */
  tick(): Promise<number> {
    return this.#task.run()
  }

  async #cancelExpired(): Promise<number> {
    const nowMs = this.#options.nowMs()
    // Submitted together: the core applies them at once, one after the other, and only the
    // journal commit is waited for (one, not one per group).
    const outcomes = await Promise.all(
      this.#service.core.expiredCancelDeadlines(nowMs).map(({ accountId, codGroupId }) =>
        this.#service.submit({
          type: 'cancelExpiredGroup',
          timestamp: nowMs,
          accountId,
          codGroupId,
        }),
      ),
    )
    return outcomes.filter((outcome) => outcome.ok).length
  }
}
