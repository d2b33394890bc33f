// Failed logins counted per email, whatever address they come from: the per-IP budget alone lets
// many addresses guess one account's password together. After `failuresMax` failures within a
// window, the email's logins are refused until that window ends, the right password included
// (else the refusal would tell a guesser when it got the password right). Unknown emails are
// counted alike, so a refusal says nothing of whether an account exists.

export type LoginFailuresConfig = {
  failuresMax: number
  windowMs: number
  /** Emails tracked at once; the oldest are forgotten beyond this. */
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
  readonly #byEmail = new Map<string, EmailState>()

  constructor(config: LoginFailuresConfig = defaultLoginFailuresConfig) {
    this.#config = config
  }

  /** Until when the email's logins are refused; undefined when it may try now. */
  blockedUntilMs(email: string, nowMs: number): number | undefined {
    const state = this.#current(email, nowMs)
    if (state === undefined || state.failures < this.#config.failuresMax) return undefined
    return state.windowStartMs + this.#config.windowMs
  }

  failed(email: string, nowMs: number): void {
    const key = emailKey(email)
    const state = this.#current(email, nowMs)
    if (state !== undefined) {
      state.failures += 1
      return
    }
    if (this.#byEmail.size >= this.#config.trackedMax) {
      const oldest = this.#byEmail.keys().next().value
      if (oldest !== undefined) this.#byEmail.delete(oldest)
    }
    this.#byEmail.set(key, { windowStartMs: nowMs, failures: 1 })
  }

  succeeded(email: string): void {
    this.#byEmail.delete(emailKey(email))
  }

  /** The email's state in a window still running; a window that has ended is forgotten. */
  #current(email: string, nowMs: number): EmailState | undefined {
    const key = emailKey(email)
    const state = this.#byEmail.get(key)
    if (state !== undefined && nowMs >= state.windowStartMs + this.#config.windowMs) {
      this.#byEmail.delete(key)
      return undefined
    }
    return state
  }
}

/** As the account store reads an email (trimmed, lower case). */
function emailKey(email: string): string {
  return email.trim().toLowerCase()
}
