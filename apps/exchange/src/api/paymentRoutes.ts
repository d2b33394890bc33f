// Euro deposits by payment method, in the spec's web API style (beside the savings plans and
// staking): the methods with their fees and limits (public, the site shows them), the caller's
// limits, and deposits. Private routes take a browser session or a signed API key (view to read,
// trade to deposit); without either, 401 with the protocol's error body.
import { paymentMethods } from '@polder/catalogue'
import { integerParameter, protocolError, safeParse } from '@polder/protocol'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { AccountStore } from '../accounts/accountStore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { formatLedgerAmount, formatLedgerUnits } from '../ledger/ledger.ts'
import type { Payment } from '../payments/paymentBook.ts'
import type { PaymentService } from '../payments/paymentService.ts'
import {
  centsToEur,
  eurToCents,
  ledgerUnitsPerCent,
  limitsOfAccount,
  limitWindowMs,
  withdrawnCentsSince,
} from '../transfers/transferLimits.ts'
import { queryParameters } from './queryParameters.ts'
import { requireWebCaller } from './webAuth.ts'
import { webJsonBody } from './webJsonBody.ts'

export type PaymentDeps = {
  service: ExchangeService
  payments: PaymentService
  accounts: AccountStore
  nowMs: () => number
}

const depositBody = z.strictObject({
  method: z.string().max(32),
  amount: z.string().max(32),
  /** The client's own id for the request: sent again, it gets the payment it made the first time. */
  clientPaymentId: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,64}$/)
    .optional(),
})
/** Read as /v2 reads its queries: digits only for `limit`, an unknown parameter refused (200). */
const listQuery = z.strictObject({ limit: integerParameter(1, 1000).optional() })

/** Parts per million as a percentage without trailing zeros (17,500 → "1.75"). */
function ppmToPercent(ppm: number): string {
  return formatLedgerAmount(BigInt(ppm) * 10n ** 14n, 4)
}

const eur = (ledgerUnits: bigint) => formatLedgerUnits(ledgerUnits, 2)

export function paymentToWire(payment: Payment): Record<string, unknown> {
  const amount = BigInt(payment.amount)
  const fee = BigInt(payment.fee)
  return {
    id: payment.id,
    method: payment.method,
    amount: eur(amount),
    fee: eur(fee),
    credited: payment.status === 'confirmed' ? eur(amount - fee) : '0.00',
    status: payment.status,
    providerReference: payment.providerReference,
    failureReason: payment.failureReason,
    created: payment.created,
    updated: payment.updated,
  }
}

function limitToWire(limitCents: bigint, usedCents: bigint) {
  return {
    dailyLimit: centsToEur(limitCents),
    usedLast24h: centsToEur(usedCents),
    remaining: centsToEur(limitCents > usedCents ? limitCents - usedCents : 0n),
  }
}

export function registerPaymentRoutes(app: FastifyInstance, deps: PaymentDeps): void {
  const { service } = deps

  app.get('/exchange/payments/v1/methods', async () =>
    paymentMethods.map((method) => ({
      id: method.id,
      name: method.name,
      instantBankTransfer: method.instantBankTransfer,
      fee: {
        fixed: centsToEur(eurToCents(method.feeFixedEur)),
        percent: ppmToPercent(method.feePpm),
      },
      minAmount: centsToEur(eurToCents(method.depositMinEur)),
      maxAmount: centsToEur(eurToCents(method.depositMaxEur)),
      dailyLimit: centsToEur(eurToCents(method.dailyLimitEur)),
      withdrawals: method.withdrawals,
      countries: method.countries,
    })),
  )

  app.get('/exchange/payments/v1/limits', async (request, reply) => {
    const accountId = await requireWebCaller(request, reply, deps)
    if (accountId === undefined) return reply
    const limits = limitsOfAccount(accountId)
    const sinceMs = deps.nowMs() - limitWindowMs
    const depositedCents = (method?: string) =>
      service.core.payments.startedSince(accountId, sinceMs, method) / ledgerUnitsPerCent
    const history = service.core.history
    return {
      level: limits.level,
      deposit: limitToWire(eurToCents(limits.depositDailyEur), depositedCents()),
      withdrawal: limitToWire(
        eurToCents(limits.withdrawalDailyEur),
        withdrawnCentsSince(history, accountId, sinceMs, 'euro'),
      ),
      cryptoWithdrawal: limitToWire(
        eurToCents(limits.cryptoWithdrawalDailyEur),
        withdrawnCentsSince(history, accountId, sinceMs, 'crypto'),
      ),
      methods: paymentMethods.map((method) => ({
        id: method.id,
        ...limitToWire(eurToCents(method.dailyLimitEur), depositedCents(method.id)),
      })),
    }
  })

  app.post('/exchange/payments/v1/deposits', async (request, reply) => {
    const accountId = await requireWebCaller(request, reply, deps)
    if (accountId === undefined) return reply
    const body = webJsonBody(
      request,
      reply,
      depositBody,
      'Send method and amount (EUR), and optionally clientPaymentId (up to 64 letters, digits, - or _).',
    )
    if (body === undefined) return reply
    const result = await deps.payments.deposit(
      accountId,
      body.method,
      body.amount,
      body.clientPaymentId,
    )
    if (!result.ok) return reply.code(400).send(result.refusal)
    return reply.code(result.replayed ? 200 : 201).send(paymentToWire(result.payment))
  })

  app.get('/exchange/payments/v1/deposits', async (request, reply) => {
    const accountId = await requireWebCaller(request, reply, deps)
    if (accountId === undefined) return reply
    const query = safeParse(listQuery, queryParameters(request), { location: 'query' })
    if (!query.success) return reply.code(query.error.status).send(query.error.body)
    return service.core.payments
      .ofAccount(accountId)
      .slice(0, query.data.limit ?? 100)
      .map(paymentToWire)
  })

  app.get('/exchange/payments/v1/deposits/:id', async (request, reply) => {
    const accountId = await requireWebCaller(request, reply, deps)
    if (accountId === undefined) return reply
    const payment = service.core.payments.get((request.params as { id: string }).id)
    if (payment === undefined || payment.accountId !== accountId)
      return reply.code(404).send(protocolError(205, { param: 'id' }).body)
    return paymentToWire(payment)
  })
}
