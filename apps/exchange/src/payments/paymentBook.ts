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

export class PaymentBook {
  readonly #payments = new Map<string, Payment>()
  /** Ids per account, oldest first. */
  readonly #byAccount = new Map<number, string[]>()

  constructor(payments: readonly Payment[] = []) {
    for (const payment of payments) this.add(payment)
  }

  snapshot(): Payment[] {
    return [...this.#payments.values()]
  }

  get(id: string): Payment | undefined {
    return this.#payments.get(id)
  }

  add(payment: Payment): void {
    this.#payments.set(payment.id, payment)
    const ids = this.#byAccount.get(payment.accountId) ?? []
    ids.push(payment.id)
    this.#byAccount.set(payment.accountId, ids)
    if (ids.length > paymentsPerAccountMax * 2)
      this.#forgetSettled(ids, payment.created - limitWindowMs)
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
    for (const payment of this.ofAccount(accountId)) {
      if (payment.created <= sinceMs) break
      if (payment.status === 'failed' || (method !== undefined && payment.method !== method))
        continue
      total += BigInt(payment.amount)
    }
    return total
  }

  /** Forgets the oldest settled payments created at or before `beforeMs`, down to the maximum. */
  #forgetSettled(ids: string[], beforeMs: number): void {
    let excess = ids.length - paymentsPerAccountMax
    const kept: string[] = []
    for (const id of ids) {
      const payment = this.#payments.get(id)!
      if (excess > 0 && payment.status !== 'pending' && payment.created <= beforeMs) {
        this.#payments.delete(id)
        excess -= 1
      } else kept.push(id)
    }
    ids.splice(0, ids.length, ...kept)
  }
}
