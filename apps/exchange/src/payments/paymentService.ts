// Euro deposits by payment method: checks the method's limits and the account level's, works out
// the method's fee, records the payment (journaled, pending), starts it with the payment
// provider, and records what the provider answers (confirmed: credited; failed: nothing moves).
// Payments left pending are asked about again, at start and every 30 s.
import { createHash, randomUUID } from 'node:crypto'
import { type PaymentMethod, paymentMethod } from '@polder/catalogue'
import { parseBigDecimal } from '@polder/engine'
import { protocolError } from '@polder/protocol'
import type { ExchangeService } from '../core/exchangeService.ts'
import { PeriodicTask } from '../core/periodicTask.ts'
import {
  centsToEur,
  dailyLimitRefusal,
  eurToCents,
  ledgerUnitsPerCent,
  limitsOfAccount,
  limitWindowMs,
} from '../transfers/transferLimits.ts'
import { type Payment, paymentsPerDayMax } from './paymentBook.ts'
import type { PaymentProvider, PaymentRequest, ProviderAnswer } from './paymentProvider.ts'

export type Refusal = { errorCode: number; error: string }
/** `replayed`: a retry with the same clientPaymentId, answered with the payment it made before. */
export type DepositResult =
  | { ok: true; payment: Payment; replayed: boolean }
  | { ok: false; refusal: Refusal }

/**
 * The payment id of an account's deposit request with `clientPaymentId`: the same request sent
 * again (a timeout, a lost answer) finds the payment it started instead of starting, and with a
 * real provider charging, a second one.
 */
export function clientPaymentIdToPaymentId(accountId: number, clientPaymentId: string): string {
  const hex = createHash('sha256').update(`${accountId} ${clientPaymentId}`).digest('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20, 32)}`
}

/**
 * The method's deposit fee on `amountCents`: the fixed part plus the proportional part, rounded
 * down to the cent (in the customer's favour).
 */
export function depositFeeCents(method: PaymentMethod, amountCents: bigint): bigint {
  return eurToCents(method.feeFixedEur) + (amountCents * BigInt(method.feePpm)) / 1_000_000n
}

export class PaymentService {
  readonly #service: ExchangeService
  readonly #provider: PaymentProvider
  readonly #nowMs: () => number
  readonly #retry = new PeriodicTask(() => this.#askAboutPending(), undefined)
  /**
   * Payments applied but not yet durable: the provider hears of a payment only once the
   * exchange's record of it would survive a crash, or the customer could pay for nothing.
   */
  readonly #starting = new Set<string>()

  /** Told of what goes wrong in the background: the provider's errors, a failed round. */
  readonly #onError: (error: unknown, paymentId?: string) => void

  constructor(
    service: ExchangeService,
    provider: PaymentProvider,
    nowMs: () => number,
    onError: (error: unknown, paymentId?: string) => void = () => {},
  ) {
    this.#service = service
    this.#provider = provider
    this.#nowMs = nowMs
    this.#onError = onError
    provider.onUpdate((paymentId, answer) => {
      this.#record(paymentId, answer).catch((error: unknown) => this.#onError(error, paymentId))
    })
  }

  /**
   * Asks about pending payments now (the ones a stop left behind) and every `retryMs` after (a
   * provider that was unreachable, a webhook that never came).
   */
  start(retryMs = 30_000): void {
    this.resume().catch((error: unknown) => this.#onError(error))
    this.#retry.start(retryMs, (error) => this.#onError(error))
  }

  stop(): void {
    this.#retry.stop()
  }

  /**
   * Checks, records and starts a deposit of `amountText` EUR by `methodId`. The checks and the
   * record happen in one synchronous turn, so two deposits at once cannot both pass a limit.
   */
  async deposit(
    accountId: number,
    methodId: string,
    amountText: string,
    clientPaymentId?: string,
  ): Promise<DepositResult> {
    const method = paymentMethod(methodId)
    if (method === undefined)
      return { ok: false, refusal: protocolError(205, { param: 'method' }).body }
    // As a bigint, so that an amount of any size meets the method's maximum (210), not 205.
    const parsed = parseBigDecimal(amountText, 2)
    if (!parsed.ok)
      return {
        ok: false,
        refusal: protocolError(parsed.errorCode, { param: 'amount' }).body,
      }
    const amountCents = parsed.units
    const paymentId =
      clientPaymentId === undefined
        ? randomUUID()
        : clientPaymentIdToPaymentId(accountId, clientPaymentId)
    const earlier = this.#service.core.payments.get(paymentId)
    if (earlier !== undefined) {
      // The same request again gets what the first one made; another one under the same id is
      // refused rather than taken for it.
      const same =
        earlier.method === method.id && earlier.amount === String(amountCents * ledgerUnitsPerCent)
      if (!same)
        return { ok: false, refusal: protocolError(205, { param: 'clientPaymentId' }).body }
      if (this.#starting.has(paymentId)) await this.#service.drain()
      return { ok: true, payment: this.#service.core.payments.get(paymentId)!, replayed: true }
    }
    const refusal = this.#checkLimits(accountId, method, amountCents)
    if (refusal !== undefined) return { ok: false, refusal }
    const feeCents = depositFeeCents(method, amountCents)
    this.#starting.add(paymentId)
    let started: Awaited<ReturnType<ExchangeService['submit']>>
    try {
      started = await this.#service.submit({
        type: 'startPayment',
        timestamp: this.#nowMs(),
        paymentId,
        accountId,
        method: method.id,
        amount: (amountCents * ledgerUnitsPerCent).toString(),
        fee: (feeCents * ledgerUnitsPerCent).toString(),
      })
    } finally {
      this.#starting.delete(paymentId)
    }
    if (!started.ok)
      return { ok: false, refusal: { errorCode: started.errorCode, error: started.error } }
    const answer = await this.#ask({
      paymentId,
      accountId,
      method: method.id,
      amountEur: centsToEur(amountCents),
    })
    if (answer !== undefined) await this.#record(paymentId, answer)
    return { ok: true, payment: this.#service.core.payments.get(paymentId)!, replayed: false }
  }

  /**
   * Asks the provider again about every payment still pending (it is idempotent); nothing while
   * the previous round of asking is still going.
   */
  resume(): Promise<void> {
    return this.#retry.run()
  }

  async #askAboutPending(): Promise<void> {
    for (const payment of this.#service.core.payments.pending()) {
      if (this.#starting.has(payment.id)) continue // its deposit call asks once it is durable
      const method = paymentMethod(payment.method)
      if (method === undefined) continue
      const answer = await this.#ask({
        paymentId: payment.id,
        accountId: payment.accountId,
        method: method.id,
        amountEur: centsToEur(BigInt(payment.amount) / ledgerUnitsPerCent),
      })
      if (answer !== undefined) await this.#record(payment.id, answer)
    }
  }

  /**
   * The provider's answer, or undefined when it cannot be reached. The payment then stays
   * pending and is asked about again: the provider may have taken it, so failing it here could
   * take a customer's money without crediting it.
   */
  async #ask(request: PaymentRequest): Promise<ProviderAnswer | undefined> {
    try {
      return await this.#provider.start(request)
    } catch (error) {
      this.#onError(error, request.paymentId)
      return undefined
    }
  }

  /** Refusal when the amount is outside the method's bounds or a daily limit, else undefined. */
  #checkLimits(accountId: number, method: PaymentMethod, amountCents: bigint): Refusal | undefined {
    if (amountCents < eurToCents(method.depositMinEur))
      return {
        errorCode: 212,
        error: `Amount is below the minimum of ${method.depositMinEur} EUR for ${method.name}.`,
      }
    if (amountCents > eurToCents(method.depositMaxEur))
      return {
        errorCode: 210,
        error: `Amount exceeds the maximum of ${method.depositMaxEur} EUR for ${method.name}.`,
      }
    const payments = this.#service.core.payments
    const sinceMs = this.#nowMs() - limitWindowMs
    const startedMs = payments.maxStartedSince(accountId, sinceMs, paymentsPerDayMax)
    if (startedMs !== undefined)
      return protocolError(444, {
        count: String(paymentsPerDayMax),
        at: new Date(startedMs + limitWindowMs).toISOString(),
      }).body
    const usedCents = (method?: string) =>
      payments.startedSince(accountId, sinceMs, method) / ledgerUnitsPerCent
    return (
      dailyLimitRefusal(
        440,
        method.name,
        eurToCents(method.dailyLimitEur),
        usedCents(method.id),
        amountCents,
      ) ??
      dailyLimitRefusal(
        440,
        'account',
        eurToCents(limitsOfAccount(accountId).depositDailyEur),
        usedCents(),
        amountCents,
      )
    )
  }

  async #record(paymentId: string, answer: ProviderAnswer): Promise<void> {
    const payment = this.#service.core.payments.get(paymentId)
    // Only news is journaled: a settled payment stays as it is, a pending one stays pending.
    if (payment === undefined || payment.status !== 'pending') return
    if (answer.status === 'pending' && answer.providerReference === payment.providerReference)
      return
    await this.#service.submit({
      type: 'updatePayment',
      timestamp: this.#nowMs(),
      paymentId,
      status: answer.status,
      providerReference: answer.providerReference,
      ...(answer.failureReason === undefined ? {} : { failureReason: answer.failureReason }),
    })
  }
}
