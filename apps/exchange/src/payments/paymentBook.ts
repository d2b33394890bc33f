// Euro deposits by payment method, as the core keeps them: each payment is started (pending,
// counted against the daily limits at once) and then confirmed (credited) or failed by the
// payment provider. Pure data and bookkeeping; the core decides, the provider is elsewhere.

import { limitWindowMs } from '../transfers/transferLimits.ts'

export type PaymentStatus = 'pending' | 'confirmed' | 'failed'

/** Amounts in ledger units (10^-18 EUR) as decimal strings. */
export type Payment = {
  id: string
  accountId: number
  /** A payment method id of the catalogue (`sepa-instant`, `ideal`, ...). */
  method: string
  /** What the customer pays; the account is credited `amount − fee`. */
  amount: string
  fee: string
  status: PaymentStatus
  /** The provider's own reference, once it has one. */
  providerReference: string | null
  failureReason: string | null
  created: number
  updated: number
}

/**
 * Payments kept per account: the newest ones, every pending one, and every one the rolling
 * daily deposit limits still count (the last `limitWindowMs`), however many that is.
 */
export const paymentsPerAccountMax = 1_000
/**
 * Payments an account may start in a rolling 24 hours (`limitWindowMs`), failed ones too: what
 * the core keeps of an account's day, and scans at each deposit, stays small whatever the
 * amounts (at a method's minimum of 1 EUR the daily euro limit alone would allow 100,000).
 */
export const paymentsPerDayMax = 100

export class PaymentBook {
  readonly #payments = new Map<string, Payment>()
  /** Ids per account, oldest first. */
  readonly #byAccount = new Map<number, string[]>()

  /** Read back as they were kept: a snapshot's lists are already forgotten down to size. */
  constructor(payments: readonly Payment[] = []) {
    for (const payment of payments) this.#file(payment)
  }

  snapshot(): Payment[] {
    return [...this.#payments.values()]
  }

  get(id: string): Payment | undefined {
    return this.#payments.get(id)
  }

  add(payment: Payment): void {
    const ids = this.#file(payment)
    // Looked at once past twice the maximum, then every maximum more while the list cannot
    // shrink (all of it in the limits' window, or pending): decided by the list alone, so a book
    // read back from a snapshot forgets what the one that wrote it would have.
    const over = ids.length - paymentsPerAccountMax * 2
    if (over > 0 && over % paymentsPerAccountMax === 1)
      this.#byAccount.set(
        payment.accountId,
        this.#forgetSettled(ids, payment.created - limitWindowMs),
      )
  }

  /** Adds the payment to its account's list; the list. */
  #file(payment: Payment): string[] {
    this.#payments.set(payment.id, payment)
    const ids = this.#byAccount.get(payment.accountId) ?? []
    ids.push(payment.id)
    this.#byAccount.set(payment.accountId, ids)
    return ids
  }

  /** The account's payments, newest first. */
  ofAccount(accountId: number): Payment[] {
    return (this.#byAccount.get(accountId) ?? []).map((id) => this.#payments.get(id)!).reverse()
  }

  /** Payments still waiting for their provider. */
  pending(): Payment[] {
    return [...this.#payments.values()].filter((payment) => payment.status === 'pending')
  }

  /**
   * What the account started after `sinceMs` that did not fail (pending ones count: they may
   * still be credited), optionally by one method, in ledger units.
   */
  startedSince(accountId: number, sinceMs: number, method?: string): bigint {
    let total = 0n
    for (const payment of this.#newestSince(accountId, sinceMs)) {
      if (payment.status === 'failed' || (method !== undefined && payment.method !== method))
        continue
      total += BigInt(payment.amount)
    }
    return total
  }

  /**
   * Whether the account started `max` payments or more after `sinceMs`, failed ones too
   * (`paymentsPerDayMax`): if so, when the `max`-th newest of them was started (once it is
   * `limitWindowMs` old, fewer than `max` are in the window), else undefined.
   */
  maxStartedSince(accountId: number, sinceMs: number, max: number): number | undefined {
    let count = 0
    for (const payment of this.#newestSince(accountId, sinceMs)) {
      count += 1
      if (count === max) return payment.created
    }
    return undefined
  }

  /** The account's payments created after `sinceMs`, newest first, read in place. */
  *#newestSince(accountId: number, sinceMs: number): Generator<Payment> {
    const ids = this.#byAccount.get(accountId) ?? []
    for (let index = ids.length - 1; index >= 0; index -= 1) {
      const payment = this.#payments.get(ids[index]!)!
      if (payment.created <= sinceMs) return
      yield payment
    }
  }

  /**
   * Forgets the oldest settled payments created at or before `beforeMs`, down to the maximum;
   * the ids kept, oldest first.
   */
  #forgetSettled(ids: readonly string[], beforeMs: number): string[] {
    let excess = ids.length - paymentsPerAccountMax
    const kept: string[] = []
    for (const id of ids) {
      const payment = this.#payments.get(id)!
      if (excess > 0 && payment.status !== 'pending' && payment.created <= beforeMs) {
        this.#payments.delete(id)
        excess -= 1
      } else kept.push(id)
    }
    return kept
  }
}
