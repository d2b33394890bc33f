// Where a real payment provider (a card acquirer, an iDEAL or SEPA Instant gateway) plugs in.
// The exchange starts a payment and the provider answers with its reference and the status so
// far; a later change (a provider's webhook) arrives through `onUpdate`. The embedded default is
// a sandbox that confirms every payment at once.
import { createHash } from 'node:crypto'
import type { PaymentMethodId } from '@polder/catalogue'
import type { PaymentStatus } from './paymentBook.ts'

export type PaymentRequest = {
  /** The exchange's payment id: the provider's idempotency key. */
  paymentId: string
  accountId: number
  method: PaymentMethodId
  /** EUR, two decimals. */
  amountEur: string
}

export type ProviderAnswer = {
  providerReference: string
  status: PaymentStatus
  /** Why, when it failed. */
  failureReason?: string
}

export interface PaymentProvider {
  readonly name: string
  /**
   * Starts a payment, or reports on one it has seen: idempotent on `paymentId`, as the exchange
   * asks again about payments still pending after a restart.
   */
  start(request: PaymentRequest): Promise<ProviderAnswer>
  /** Calls `listener` when a payment changes later (confirmed or failed after being pending). */
  onUpdate(listener: (paymentId: string, answer: ProviderAnswer) => void): void
}

/** The embedded default: every payment is confirmed at once, with a stable sandbox reference. */
export class SandboxPaymentProvider implements PaymentProvider {
  readonly name = 'sandbox'

  async start(request: PaymentRequest): Promise<ProviderAnswer> {
    const digest = createHash('sha256').update(request.paymentId).digest('hex')
    return { providerReference: `sandbox-${digest.slice(0, 24)}`, status: 'confirmed' }
  }

  onUpdate(): void {
    // Nothing is ever pending in the sandbox.
  }
}
