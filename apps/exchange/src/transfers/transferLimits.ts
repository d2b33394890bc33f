// The daily transfer limits of an account's level (the catalogue's `accountLimits`, shared with
// the site's limits table), over a rolling 24 hours, in EUR cents.
import { type AccountLimits, accountLimits, assetBySymbol } from '@polder/catalogue'
import { type Engine, parseDecimal } from '@polder/engine'
import { protocolError } from '@polder/protocol'
import type { OrderHistory } from '../core/orderHistory.ts'
import { formatLedgerUnits } from '../ledger/ledger.ts'

/** The window every daily limit looks back over. */
export const limitWindowMs = 86_400_000
/** Ledger units (10^-18) per euro cent. */
export const ledgerUnitsPerCent = 10n ** 16n

/** Every account is `verified` until verification levels exist. */
export function limitsOfAccount(_accountId: number): AccountLimits {
  return accountLimits.find((limits) => limits.level === 'verified')!
}

/** A catalogue EUR amount ("100000") in cents. */
export function eurToCents(eur: string): bigint {
  const parsed = parseDecimal(eur, 2)
  if (!parsed.ok) throw new Error(`catalogue amount "${eur}" is not EUR`)
  return BigInt(parsed.units)
}

export function centsToEur(cents: bigint): string {
  return formatLedgerUnits(cents * ledgerUnitsPerCent, 2)
}

/**
 * The refusal when `amountCents` on top of `usedCents` passes `limitCents` (440 for deposits,
 * 441 for withdrawals), naming the limit and what is left; undefined within the limit.
 */
export function dailyLimitRefusal(
  code: 440 | 441,
  scope: string,
  limitCents: bigint,
  usedCents: bigint,
  amountCents: bigint,
): { errorCode: number; error: string } | undefined {
  if (usedCents + amountCents <= limitCents) return undefined
  const remaining = limitCents > usedCents ? limitCents - usedCents : 0n
  return protocolError(code, {
    scope,
    limitEur: centsToEur(limitCents).replace(/\.00$/, ''),
    remainingEur: centsToEur(remaining),
  }).body
}

/** Which daily withdrawal limit a withdrawal counts against. */
export type WithdrawalKind = 'euro' | 'crypto'

export function withdrawalKind(asset: string): WithdrawalKind {
  return asset === 'EUR' ? 'euro' : 'crypto'
}

/**
 * What the account withdrew after `sinceMs` of one kind, in EUR cents: euros at face value,
 * crypto at its value when requested.
 */
export function withdrawnCentsSince(
  history: OrderHistory,
  accountId: number,
  sinceMs: number,
  kind: WithdrawalKind,
): bigint {
  let total = 0n
  for (const transfer of history.transfersOf(accountId, 'withdraw')) {
    if (transfer.timestamp <= sinceMs) break
    if (withdrawalKind(transfer.asset) !== kind) continue
    total +=
      transfer.valueEurCents !== undefined
        ? BigInt(transfer.valueEurCents)
        : kind === 'euro'
          ? BigInt(transfer.amount) / ledgerUnitsPerCent
          : 0n
  }
  return total
}

/**
 * What `ledgerAmount` of `asset` is worth in EUR cents (rounded up), for the withdrawal limits:
 * euros at face value, crypto at the higher of its EUR market's last price and the catalogue's
 * reference price. Never at the last price alone: two accounts of one person could trade a few
 * units with each other at 1 EUR in a quiet book and then withdraw any amount under the limit.
 */
export function eurValueCents(engine: Engine, asset: string, ledgerAmount: bigint): bigint {
  if (asset === 'EUR') return ledgerAmount / ledgerUnitsPerCent
  const spec = engine.market(`${asset}-EUR`)
  const last = spec === null ? undefined : engine.ticker(spec.market)?.lastPrice
  const reference = parseDecimal(assetBySymbol(asset)?.referencePriceEur ?? '0', 10)
  const valueAt = (units: bigint, decimals: number): bigint => {
    const scale = 10n ** 16n * 10n ** BigInt(decimals) // ledger units per cent, per price unit
    return (ledgerAmount * units + scale - 1n) / scale
  }
  const atLast = spec !== null && last ? valueAt(BigInt(last), spec.priceDecimals) : 0n
  const atReference = reference.ok ? valueAt(BigInt(reference.units), 10) : 0n
  return atLast > atReference ? atLast : atReference
}
