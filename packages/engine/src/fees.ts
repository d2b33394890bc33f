// What an order's fills are charged, and what its rest can still be charged (README "Fees").
import { feeFor, feeForRoles } from './arithmetic.ts'

/** An order's fee rules and what its fills so far came to: all its fees depend on. */
export interface OrderFees {
  /** 2: fees per role (`PlaceOrder.feeRules`); 1: as placed before. */
  readonly feeRules: 1 | 2
  readonly makerFeePpm: number
  readonly takerFeePpm: number
  /** Quote units filled in all, and the part of it filled as maker. */
  readonly filledAmountQuote: number
  readonly makerFilledQuote: number
  /** Quote units, negative for a net rebate. */
  readonly feePaid: number
}

/**
 * What a fill of `quote` costs `order` in its role: what brings the order's fees to the fee of
 * its fills so far, each role's notional at that role's rate and the sum rounded up once, so an
 * order split into many fills pays no more than one fill of the same totals (and what the
 * server held for it), and never more than the fill's own notional (a dust fill cannot cost
 * more than it is worth).
 */
export function feeOfFill(order: OrderFees, quote: number, asMaker: boolean, step: number): number {
  const filled = order.filledAmountQuote + quote
  if (order.feeRules === 1) {
    // Placed before per-role fees: this fill's rate on the order's whole filled total.
    const ppm = asMaker ? order.makerFeePpm : order.takerFeePpm
    return Math.min(quote, feeFor(filled, ppm, step) - order.feePaid)
  }
  const asMakerTotal = order.makerFilledQuote + (asMaker ? quote : 0)
  const due = feeForRoles(
    asMakerTotal,
    order.makerFeePpm,
    filled - asMakerTotal,
    order.takerFeePpm,
    step,
  )
  return Math.min(quote, due - order.feePaid)
}

/**
 * The most the fills of a further `rest` quote units can cost `order` in all (negative when they
 * can only pay a rebate back): what a server holds for an open buy's fees. Per role, every
 * fill of the rest at the larger of the two rates; under the rules before, the larger rate on
 * the whole filled total and the rest. Each fill is charged at most its share of it (fills
 * capped at their notional pay less, and a later fill makes up only what they left unpaid).
 */
export function restFeeAtMost(order: OrderFees, rest: number, step: number): number {
  const maker = order.makerFeePpm
  const taker = order.takerFeePpm
  if (order.feeRules === 1) {
    return feeFor(order.filledAmountQuote + rest, Math.max(maker, taker), step) - order.feePaid
  }
  const asMaker = order.makerFilledQuote
  const asTaker = order.filledAmountQuote - asMaker
  const due =
    maker > taker
      ? feeForRoles(asMaker + rest, maker, asTaker, taker, step)
      : feeForRoles(asMaker, maker, asTaker + rest, taker, step)
  return due - order.feePaid
}
