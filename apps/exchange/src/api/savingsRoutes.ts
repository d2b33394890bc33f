// The spec's savings-plan API (spec §7), driven by the protocol's web endpoint table. Private to
// the signed-in user: a browser session (`Authorization: Bearer <token>`) or a signed API key;
// without either, 401 with the protocol's error body.
import { randomUUID } from 'node:crypto'
import { assetBySymbol, markets as catalogueMarkets, savingsPlanLimits } from '@polder/catalogue'
import { parseBigDecimal } from '@polder/engine'
import { matchWebEndpoint, protocolError, safeParse } from '@polder/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { AccountStore } from '../accounts/accountStore.ts'
import { savingsPlanNotFound } from '../core/exchangeCore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { namedId } from '../core/namedIds.ts'
import type { Plan } from '../savings/savingsBook.ts'
import { dateToMs, executionId, msToDate, occurrence } from '../savings/schedule.ts'
import { idempotencyKeyOf } from './idempotencyKey.ts'
import { queryParameters } from './queryParameters.ts'
import { requireWebCaller } from './webAuth.ts'

export type SavingsDeps = { service: ExchangeService; accounts: AccountStore; nowMs: () => number }

const dayMs = 86_400_000

/**
 * How far ahead a plan may start, in days from today (UTC). The spec sets no bound; a start
 * years ahead is a typo rather than a plan, and it would still have to be kept and shown.
 */
export const startDaysAheadMax = 365

/** 232 in savings-plan words: the catalogue's text lists the fields of an order. */
const nothingToChange = {
  errorCode: 232,
  error: 'You must change at least one of amount, frequency, startDate or status.',
} as const

function planToWire(plan: Plan): Record<string, unknown> {
  return {
    id: plan.id,
    asset: plan.asset,
    market: plan.market,
    amount: plan.amount,
    frequency: plan.frequency,
    startDate: msToDate(plan.startMs),
    status: plan.status,
    nextExecutionDate:
      plan.status === 'ACTIVE'
        ? msToDate(occurrence(plan.startMs, plan.frequency, plan.nextIndex))
        : null,
    created: plan.created,
    updated: plan.updated,
  }
}

function eligibleAssets() {
  return catalogueMarkets
    .filter((market) => market.status === 'trading' && market.quote === 'EUR')
    .map((market) => ({
      symbol: market.base,
      name: assetBySymbol(market.base)?.name ?? market.base,
      market: market.market,
      minAmount: savingsPlanLimits.amountMinEur,
      maxAmount: savingsPlanLimits.amountMaxEur,
    }))
}

export function registerSavingsRoutes(app: FastifyInstance, deps: SavingsDeps): void {
  const { service } = deps

  const handler = async (request: FastifyRequest, reply: FastifyReply) => {
    const path = request.url.split('?')[0]!
    const match = matchWebEndpoint(request.method, path)
    if (!match) return reply.code(404).send(protocolError(110).body)
    const accountId = await requireWebCaller(request, reply, deps)
    if (accountId === undefined) return reply
    let input: unknown = {}
    if (match.endpoint.requestIn === 'query') {
      input = queryParameters(request)
    } else if (request.rawBody) {
      try {
        input = JSON.parse(request.rawBody)
      } catch {
        return reply.code(400).send(protocolError(102).body)
      }
    }
    const parsed = safeParse(match.endpoint.request, input, {
      location: match.endpoint.requestIn === 'query' ? 'query' : 'body',
    })
    if (!parsed.success) {
      const { status, body } = parsed.error
      return reply.code(status).send(body.errorCode === 232 ? nothingToChange : body)
    }
    const params = parsed.data as Record<string, unknown>
    const owned = (id: string | undefined) => {
      const plan = id === undefined ? undefined : service.core.savingsPlans.get(id)
      // A deleted plan is no longer among them: 404 as another account's.
      return plan && plan.accountId === accountId ? plan : undefined
    }
    const nowMs = deps.nowMs()
    /** Submits `command`, then answers `answer()` with `status`, or the refusal. */
    const submitted = async (
      command: Parameters<ExchangeService['submit']>[0],
      answer: () => unknown,
      status = 200,
    ) => {
      const pending = service.submit(command)
      // The plan as this command left it (submit applies before its first await): a command
      // applied before this one's commit, such as a delete from another tab, must not change
      // the answer, nor make a plan created answer 500.
      const applied = answer()
      const outcome = await pending
      if (outcome.ok) return reply.code(status).send(applied)
      // 240: the plan was deleted by another request since it was looked up.
      return reply
        .code(outcome.errorCode === savingsPlanNotFound.errorCode ? 404 : 400)
        .send({ errorCode: outcome.errorCode, error: outcome.error })
    }
    const checkAmount = (amount: string) => {
      // As bigints, so that an amount of any size meets the maximum (210), not 205.
      const parsedAmount = parseBigDecimal(amount, 2)
      const min = parseBigDecimal(savingsPlanLimits.amountMinEur, 2)
      const max = parseBigDecimal(savingsPlanLimits.amountMaxEur, 2)
      if (!parsedAmount.ok || !min.ok || !max.ok) {
        // Too many decimals is 429 (the parser says which), as for orders, withdrawals and payments.
        const code = parsedAmount.ok ? 205 : parsedAmount.errorCode
        return reply.code(400).send(protocolError(code, { param: 'amount' }).body)
      }
      if (parsedAmount.units < min.units) return reply.code(400).send(protocolError(212).body)
      if (parsedAmount.units > max.units) return reply.code(400).send(protocolError(210).body)
      return undefined
    }
    const checkStart = (startDate: string) => {
      const startMs = dateToMs(startDate)
      const todayMs = Math.floor(nowMs / dayMs) * dayMs
      // Written so that a date the parser could not read (NaN) is refused too.
      return startMs >= todayMs && startMs <= todayMs + startDaysAheadMax * dayMs
        ? undefined
        : reply.code(400).send({ errorCode: 205, error: 'startDate parameter is invalid.' })
    }

    switch (match.key) {
      case 'GET /exchange/savings-plans/v1':
        return (
          params.status === 'DELETED'
            ? service.core.deletedSavingsPlansOf(accountId)
            : service.core
                .savingsPlansOf(accountId)
                .filter((plan) => params.status === undefined || plan.status === params.status)
        ).map(planToWire)
      case 'GET /exchange/savings-plans/v1/assets':
        return eligibleAssets()
      case 'GET /exchange/savings-plans/v1/{id}': {
        const plan = owned(match.pathParams.id)
        return plan ? planToWire(plan) : reply.code(404).send(savingsPlanNotFound)
      }
      case 'POST /exchange/savings-plans/v1': {
        const eligible = eligibleAssets().find((asset) => asset.symbol === params.asset)
        if (!eligible) return reply.code(400).send(protocolError(205, { param: 'asset' }).body)
        // A create sent again with its Idempotency-Key (a client retrying after a timeout, whose
        // first try may have landed) names the same plan, and is answered with it: never two
        // plans buying for one click.
        const key = idempotencyKeyOf(request, reply)
        if (key === false) return reply
        const planId =
          key === undefined ? randomUUID() : namedId(`savings plan ${accountId} ${key}`)
        const earlier =
          key === undefined
            ? undefined
            : (owned(planId) ??
              service.core.deletedSavingsPlansOf(accountId).find((plan) => plan.id === planId))
        if (earlier !== undefined) {
          // The create it repeats may still be on its way to the journal (a slow commit is
          // what made the client retry): answered once that is durable, as the first would be.
          const answer = planToWire(earlier)
          await service.appliedDurable()
          return reply.code(201).send(answer)
        }
        const refused = checkAmount(String(params.amount)) ?? checkStart(String(params.startDate))
        if (refused) return refused
        const created = () => {
          const plan = service.core.savingsPlans.get(planId)
          return plan === undefined ? undefined : planToWire(plan)
        }
        return submitted(
          {
            type: 'createSavingsPlan',
            schedule: 3,
            timestamp: nowMs,
            planId,
            accountId,
            asset: eligible.symbol,
            market: eligible.market,
            amount: String(params.amount),
            frequency: params.frequency as Plan['frequency'],
            startMs: dateToMs(String(params.startDate)),
            status: (params.status as 'ACTIVE' | 'INACTIVE' | undefined) ?? 'ACTIVE',
          },
          created,
          201,
        )
      }
      case 'PATCH /exchange/savings-plans/v1/{id}': {
        const plan = owned(match.pathParams.id)
        if (!plan) return reply.code(404).send(savingsPlanNotFound)
        const data = params.data as {
          amount?: string
          frequency?: Plan['frequency']
          startDate?: string
          status?: 'ACTIVE' | 'INACTIVE'
        }
        const refused =
          (data.amount === undefined ? undefined : checkAmount(data.amount)) ??
          (data.startDate === undefined ? undefined : checkStart(data.startDate))
        if (refused) return refused
        return submitted(
          {
            type: 'updateSavingsPlan',
            schedule: 3,
            timestamp: nowMs,
            planId: plan.id,
            accountId,
            ...(data.amount === undefined ? {} : { amount: data.amount }),
            ...(data.frequency === undefined ? {} : { frequency: data.frequency }),
            ...(data.startDate === undefined ? {} : { startMs: dateToMs(data.startDate) }),
            ...(data.status === undefined ? {} : { status: data.status }),
          },
          () => planToWire(plan),
        )
      }
      case 'DELETE /exchange/savings-plans/v1/{id}': {
        const plan = owned(match.pathParams.id)
        if (!plan) return reply.code(404).send(savingsPlanNotFound)
        return submitted(
          { type: 'deleteSavingsPlan', timestamp: nowMs, planId: plan.id, accountId },
          () => planToWire(plan),
        )
      }
      case 'GET /exchange/savings-plans/v1/{id}/executions': {
        const plan = owned(match.pathParams.id)
        if (!plan) return reply.code(404).send(savingsPlanNotFound)
        const page = Number(params.page ?? 1)
        const size = Number(params.size ?? 20)
        const nextRunMs = occurrence(plan.startMs, plan.frequency, plan.nextIndex)
        const upcoming =
          plan.status === 'ACTIVE'
            ? [
                {
                  id: executionId(plan.id, nextRunMs),
                  savingsPlanId: plan.id,
                  status: 'SCHEDULED',
                  scheduledAt: nextRunMs,
                  executedAt: null,
                  amount: plan.amount,
                  filledAmount: null,
                  price: null,
                  orderId: null,
                  failureErrorCode: null,
                },
              ]
            : []
        const all = [
          ...upcoming,
          ...[...plan.executions]
            .reverse()
            .map((execution) => ({ ...execution, savingsPlanId: plan.id })),
        ]
        return { items: all.slice((page - 1) * size, page * size), page, size, total: all.length }
      }
      default:
        return reply.code(404).send(protocolError(110).body)
    }
  }

  for (const method of ['GET', 'POST', 'PATCH', 'DELETE'] as const) {
    app.route({ method, url: '/exchange/savings-plans/v1', handler })
    app.route({ method, url: '/exchange/savings-plans/v1/*', handler })
  }
}
