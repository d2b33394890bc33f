// Failed logins counted per email, whatever address they come from: the per-IP budget alone lets
// many addresses guess one account's password together. After `failuresMax` failures within a
// window, the email's logins are refused until that window ends, the right password included
// (else the refusal would tell a guesser when it got the password right). Unknown emails are
// counted alike, so a refusal says nothing of whether an account exists.
//
// An attempt is counted as it starts, before its slow hash, and forgiven if it succeeds: counted
// only once it had failed, a burst of simultaneous guesses would all be checked before the first
// failure was counted.
import { createHash } from 'node:crypto'

export type LoginFailuresConfig = {
  failuresMax: number
  windowMs: number
  /** Emails tracked at once; beyond this, expired windows and then the oldest are forgotten. */
  trackedMax: number
}

export const defaultLoginFailuresConfig: LoginFailuresConfig = {
  failuresMax: 10,
  windowMs: 15 * 60_000,
  trackedMax: 100_000,
}

type EmailState = { windowStartMs: number; failures: number }

export class LoginFailures {
  readonly #config: LoginFailuresConfig
  /** By a hash of the email (44 characters, whatever the email's length), oldest window first. */
  readonly #byEmail = new Map<string, EmailState>()

  constructor(config: LoginFailuresConfig = defaultLoginFailuresConfig) {
    this.#config = config
  }

  /**
   * Counts an attempt for `email` as failed until `succeeded` says otherwise; gives the time
   * until which the email's logins are refused instead (and counts nothing) once it has failed
   * `failuresMax` times in its window.
   */
  attempt(email: string, nowMs: number): { blockedUntilMs: number } | undefined {
    const key = emailKey(email)
    let state = this.#byEmail.get(key)
    if (state !== undefined && nowMs >= state.windowStartMs + this.#config.windowMs) {
      this.#byEmail.delete(key)
      state = undefined
    }
    if (state === undefined) {
      this.#makeRoom(nowMs)
      state = { windowStartMs: nowMs, failures: 0 }
      this.#byEmail.set(key, state)
    }
    if (state.failures >= this.#config.failuresMax)
      return { blockedUntilMs: state.windowStartMs + this.#config.windowMs }
    state.failures += 1
    return undefined
  }

  /** Forgets the email's failures: its owner has logged in. */
  succeeded(email: string): void {
    this.#byEmail.delete(emailKey(email))
  }

  /** Emails tracked now (for tests and metrics). */
  get tracked(): number {
    return this.#byEmail.size
  }

  /**
   * Windows start in insertion order, so the expired ones are at the front: they go first.
   * Only if the map is still full (that many emails failing within one window) does the oldest
   * running window go.
   */
  #makeRoom(nowMs: number): void {
    for (const [key, state] of this.#byEmail) {
      if (this.#byEmail.size < this.#config.trackedMax) return
      if (nowMs < state.windowStartMs + this.#config.windowMs) break
      this.#byEmail.delete(key)
    }
    if (this.#byEmail.size >= this.#config.trackedMax) {
      const oldest = this.#byEmail.keys().next().value
      if (oldest !== undefined) this.#byEmail.delete(oldest)
    }
  }
}

/** As the account store reads an email (trimmed, lower case), hashed to a bounded size. */
function emailKey(email: string): string {
  return createHash('sha256').update(email.trim().toLowerCase()).digest('base64')
}
