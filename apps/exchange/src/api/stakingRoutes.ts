// Staking for the trading app (spec §1: "staking yield up to 15%"): stake and unstake eligible
// assets, see positions and daily rewards. The staking risk disclosure must be acknowledged once
// per account (`acknowledgeRisk: true` with the first stake). Private like the savings plans.
// A stake or unstake sent with an `Idempotency-Key` is applied once: a retry with the same key
// within a day is answered with what the first did.
import { randomUUID } from 'node:crypto'
import { assetBySymbol, assets } from '@polder/catalogue'
import { parseBigDecimal } from '@polder/engine'
import { protocolError } from '@polder/protocol'
import type { FastifyInstance } from 'fastify'
import { z } from 'zod'
import type { AccountStore } from '../accounts/accountStore.ts'
import type { RecentStake } from '../core/exchangeCore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { namedId } from '../core/namedIds.ts'
import { formatLedgerAmount, formatLedgerUnits, toLedgerUnits } from '../ledger/ledger.ts'
import { idempotencyKeyOf } from './idempotencyKey.ts'
import { requireWebCaller } from './webAuth.ts'
import { webJsonBody } from './webJsonBody.ts'

export type StakingDeps = { service: ExchangeService; accounts: AccountStore; nowMs: () => number }

const stakeBody = z.strictObject({
  asset: z.string().max(16),
  amount: z.string().max(64),
  acknowledgeRisk: z.boolean().optional(),
})

export function registerStakingRoutes(app: FastifyInstance, deps: StakingDeps): void {
  const { service } = deps
  const answer = (stake: Pick<RecentStake, 'asset' | 'amount'>) => ({
    success: true,
    asset: stake.asset,
    amount: formatLedgerAmount(BigInt(stake.amount), assetBySymbol(stake.asset)?.decimals ?? 18),
  })
  const eligible = () =>
    assets
      .filter((asset) => asset.staking?.eligible === true)
      .map((asset) => ({
        symbol: asset.symbol,
        name: asset.name,
        yieldPercentPerYear: asset.staking!.yieldPercentPerYear,
      }))

  app.get('/exchange/staking/v1/assets', async () => eligible())

  app.get('/exchange/staking/v1', async (request, reply) => {
    const accountId = await requireWebCaller(request, reply, deps)
    if (accountId === undefined) return reply
    const positions = [...service.core.stakes]
      .filter(([key]) => key.startsWith(`${accountId} `))
      .map(([key, amount]) => {
        const symbol = key.split(' ')[1]!
        const asset = assetBySymbol(symbol)
        return {
          asset: symbol,
          amount: formatLedgerUnits(amount, asset?.decimals ?? 18),
          yieldPercentPerYear: asset?.staking?.yieldPercentPerYear ?? '0',
        }
      })
    const rewards = service.core
      .stakingRewardsOf(accountId)
      .slice(0, 100)
      .map((reward) => ({
        date: new Date(reward.dayMs).toISOString().slice(0, 10),
        asset: reward.asset,
        amount: formatLedgerUnits(
          BigInt(reward.amount),
          assetBySymbol(reward.asset)?.decimals ?? 18,
        ),
      }))
    return {
      riskAcknowledged: service.core.hasAcknowledgedStakingRisk(accountId),
      positions,
      rewards,
    }
  })

  for (const action of ['stake', 'unstake'] as const) {
    app.post(`/exchange/staking/v1/${action}`, async (request, reply) => {
      const accountId = await requireWebCaller(request, reply, deps)
      if (accountId === undefined) return reply
      const key = idempotencyKeyOf(request, reply)
      if (key === false) return reply
      // The key names the command: the same key again finds the one applied, even if the retry
      // asks for something else (its body is not looked at again, as for savings plans).
      const reference = key === undefined ? randomUUID() : namedId(`${action} ${accountId} ${key}`)
      const earlier =
        key === undefined ? undefined : service.core.recentStake(accountId, reference, deps.nowMs())
      if (earlier !== undefined) {
        // The command it repeats may still be on its way to the journal (a slow commit is what
        // made the client retry): answered once that is durable, as the first would be.
        await service.appliedDurable()
        return answer(earlier)
      }
      const body = webJsonBody(
        request,
        reply,
        stakeBody,
        'Send asset, amount and, for a first stake, acknowledgeRisk.',
      )
      if (body === undefined) return reply
      const asset = assetBySymbol(body.asset)
      if (!asset?.staking || (action === 'stake' && !asset.staking.eligible)) {
        return reply.code(400).send(protocolError(205, { param: 'asset' }).body)
      }
      // As a bigint: a stake of 90 million SHIB (about 1,000 euros) is past a number's integers.
      const amount = parseBigDecimal(body.amount, asset.decimals)
      // Too many decimals is 429 (the parser says which), as for orders, withdrawals and payments.
      if (!amount.ok)
        return reply.code(400).send(protocolError(amount.errorCode, { param: 'amount' }).body)
      if (amount.units <= 0n)
        return reply.code(400).send(protocolError(205, { param: 'amount' }).body)
      const outcome = await service.submit({
        type: action,
        timestamp: deps.nowMs(),
        accountId,
        asset: asset.symbol,
        amount: toLedgerUnits(amount.units, asset.decimals).toString(),
        ...(body.acknowledgeRisk === undefined ? {} : { acknowledgeRisk: body.acknowledgeRisk }),
        reference,
      })
      if (!outcome.ok)
        return reply.code(400).send({ errorCode: outcome.errorCode, error: outcome.error })
      return answer({
        asset: asset.symbol,
        amount: toLedgerUnits(amount.units, asset.decimals).toString(),
      })
    })
  }
}
