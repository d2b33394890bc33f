// A job the server runs on a timer (due withdrawal steps, due savings runs, staking rewards,
// payments to ask about again), never two runs at once: a run that comes due while the previous
// one is still going (a slow journal commit, an unreachable provider) is skipped, not queued, so
// runs cannot pile up behind each other. A run called directly (a test driving its clock) obeys
// the same rule.
export class PeriodicTask<Result> {
  readonly #job: () => Promise<Result>
  readonly #skipped: Result
  #timer: ReturnType<typeof setInterval> | undefined
  #running = false

  /** `skipped` is what `run` gives when it does not run the job because a run is going. */
  constructor(job: () => Promise<Result>, skipped: Result) {
    this.#job = job
    this.#skipped = skipped
  }

  /**
   * Runs the job every `intervalMs` until `stop`; starting again keeps the first timer. A run
   * that fails is given to `onError` (the server logs it) and the next one comes as planned.
   */
  start(intervalMs: number, onError: (error: unknown) => void): void {
    this.#timer ??= setInterval(() => {
      this.run().catch(onError)
    }, intervalMs)
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /** Runs the job now, or gives `skipped` at once while the previous run is still going. */
  async run(): Promise<Result> {
    if (this.#running) return this.#skipped
    this.#running = true
    try {
      return await this.#job()
    } finally {
      this.#running = false
    }
  }
}
