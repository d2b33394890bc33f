// The exchange's state machine: the matching engine plus the ledger and the per-order holds
// that make every order funded. `apply` is deterministic: the server journals each command it
// accepts, and replaying the journal through a fresh core rebuilds books, orders, balances and
// nonces exactly. Nothing here does I/O or reads a clock; times arrive in the commands.

import {
  type AddMarket,
  type CancelOrder,
  type CancelOrders,
  Engine,
  type EngineEvent,
  type EngineSnapshot,
  EventLog,
  type FillEvent,
  type FlushBook,
  feeFor,
  formatAmount,
  formatPrice,
  formatQuote,
  type MarketSpec,
  type OrderFees,
  type OrderState,
  type OrderType,
  type PlaceOrder,
  placeOrderFromWire,
  restFeeAtMost,
  type SetMarketStatus,
  type Side,
  type UpdateOrder,
} from '@polder/engine'
import { protocolError, savingsPlansPerAccountMax } from '@polder/protocol'
import {
  InsufficientBalanceError,
  Ledger,
  LedgerInvariantError,
  type LedgerSnapshot,
  toLedgerUnits,
} from '../ledger/ledger.ts'
import { type Payment, PaymentBook, type PaymentStatus } from '../payments/paymentBook.ts'
import {
  type Execution,
  executionsPerPlanMax,
  type Plan,
  type SavingsSnapshot,
} from '../savings/savingsBook.ts'
import { type Frequency, lastOccurrenceIndex, occurrence } from '../savings/schedule.ts'
import { MarketStats, type MarketStatsSnapshot } from './marketStats.ts'
import { OrderHistory, type OrderHistorySnapshot } from './orderHistory.ts'
import { ArrayView } from './stringifyInSlices.ts'
import { TradingVolume, type TradingVolumeSnapshot } from './tradingVolume.ts'

export type Deposit = {
  type: 'deposit'
  timestamp: number
  accountId: number
  asset: string
  /** Ledger units (10^-18) as a decimal integer string: JSON has no bigint. */
  amount: string
  reference: string
  /** Where it came from, for the deposit history (sandbox values for crypto, SEPA for euros). */
  address?: string
  txId?: string
}

export type Withdraw = Omit<Deposit, 'type'> & {
  type: 'withdraw'
  /** The withdrawal fee the account pays on top of `amount`, in ledger units. */
  fee?: string
  paymentId?: string
  /**
   * The simulated confirmation: when the withdrawal is sent, and when it completes. Without
   * it (journals from before confirmation delays) it completes at once.
   */
  schedule?: { sendingAtMs: number; completedAtMs: number }
  /** Its value in EUR cents when requested, for the account level's daily withdrawal limits. */
  valueEurCents?: number
}

/** Withdrawal statuses the exchange goes through (protocol §4.6 names), in order. */
export const withdrawalStatuses = ['awaiting_processing', 'sending', 'completed'] as const
export type WithdrawalStatus = (typeof withdrawalStatuses)[number]

/** A withdrawal not completed yet. Balances were debited when it was requested. */
export type PendingWithdrawal = {
  reference: string
  accountId: number
  status: Exclude<WithdrawalStatus, 'completed'>
  sendingAtMs: number
  completedAtMs: number
}

/** Moves a withdrawal to its next status once that status is due (the simulated confirmation). */
export type AdvanceWithdrawal = {
  type: 'advanceWithdrawal'
  timestamp: number
  reference: string
  status: Exclude<WithdrawalStatus, 'awaiting_processing'>
}

/** What payment-method deposits credit: euros. */
export const paymentAsset = 'EUR'

/** A euro deposit by a payment method, started with the provider: pending until it answers. */
export type StartPayment = {
  type: 'startPayment'
  timestamp: number
  paymentId: string
  accountId: number
  method: string
  /** Ledger units: what the customer pays, and the method's fee, which comes out of it. */
  amount: string
  fee: string
}

/** What the provider said about a payment: its reference, and its outcome once known. */
export type UpdatePayment = {
  type: 'updatePayment'
  timestamp: number
  paymentId: string
  status: PaymentStatus
  providerReference?: string
  failureReason?: string
}

export type CreateSavingsPlan = {
  type: 'createSavingsPlan'
  timestamp: number
  planId: string
  accountId: number
  asset: string
  market: string
  amount: string
  frequency: Frequency
  startMs: number
  status: 'ACTIVE' | 'INACTIVE'
  /**
   * The scheduling rules the command was made under. 3 (every command made now): as 2, and a
   * plan is not re-anchored on the day its last run was bought, even when that run was bought
   * late, for an earlier date (`anchoredIndex`). 2: a plan starting today runs today, and a
   * re-activated plan starts afresh. Without it, as journaled before those rules: the first
   * occurrence after the command, and a re-activation keeps its place. A replay applies each
   * command by its own rules, or runs journaled by the old ones would be refused and the
   * exchange would not start.
   */
  schedule?: 2 | 3
}

export type UpdateSavingsPlan = {
  type: 'updateSavingsPlan'
  timestamp: number
  planId: string
  accountId: number
  amount?: string
  frequency?: Frequency
  startMs?: number
  status?: 'ACTIVE' | 'INACTIVE'
  /** As `CreateSavingsPlan.schedule`. */
  schedule?: 2 | 3
}

export type DeleteSavingsPlan = {
  type: 'deleteSavingsPlan'
  timestamp: number
  planId: string
  accountId: number
}

/** Runs occurrence `index` of a plan; occurrences skipped before it are recorded as missed. */
export type RunSavingsPlan = {
  type: 'runSavingsPlan'
  timestamp: number
  planId: string
  index: number
  /** One id per recorded execution: the missed ones, then this run. */
  executionIds: string[]
  orderId: string
  makerFeePpm: number
  takerFeePpm: number
  /**
   * 2 (every run journaled now): a SUCCESS records as its amount the EUR its order spent.
   * Without it, as journaled before: the plan's amount, as it was shown then.
   */
  amountRules?: 2
}

/** What the savings-plan routes and commands answer for a plan that is not the caller's. */
export const savingsPlanNotFound = { errorCode: 240, error: 'No savings plan found.' } as const

const utcDayMs = 86_400_000

/**
 * The occurrence a plan runs next once (re)anchored at `timestamp`: created, re-activated, or
 * given a new frequency or start date. A plan starting today buys today, though its occurrence
 * (00:00 UTC) has passed, since the customer chose today. Otherwise the first occurrence after
 * `timestamp`, so that a start in the past or a pause does not record every period gone by as
 * missed and buy at once. Never a date the plan already ran, nor (rules 3) the day its last
 * run was bought, so re-anchoring cannot buy twice on one day.
 */
function anchoredIndex(
  plan: Pick<Plan, 'startMs' | 'frequency' | 'executions'>,
  timestamp: number,
  schedule: 2 | 3 | undefined,
): number {
  // The rules of commands journaled before these (see CreateSavingsPlan.schedule).
  if (schedule === undefined)
    return Math.max(0, lastOccurrenceIndex(plan.startMs, plan.frequency, timestamp - 1) + 1)
  const todayMs = Math.floor(timestamp / utcDayMs) * utcDayMs
  const last = plan.executions.at(-1)
  // A run made late (the exchange was stopped over its date) is dated by its occurrence but was
  // bought on a later day; that day counts as run too, or moving the start to it would buy twice
  // on it. Rules 2 looked at the occurrence only, and replay keeps them for their commands.
  const lastRunMs =
    last === undefined
      ? Number.NEGATIVE_INFINITY
      : schedule === 3 && last.executedAt !== null
        ? Math.floor(last.executedAt / utcDayMs) * utcDayMs
        : last.scheduledAt
  const afterMs = Math.max(plan.startMs >= todayMs ? plan.startMs - 1 : timestamp - 1, lastRunMs)
  return lastOccurrenceIndex(plan.startMs, plan.frequency, afterMs) + 1
}

/** Stakes (or, with `unstake`, returns) an amount in ledger units. */
export type Stake = {
  type: 'stake' | 'unstake'
  timestamp: number
  accountId: number
  asset: string
  amount: string
  /** The staking risk disclosure, acknowledged once per account before its first stake. */
  acknowledgeRisk?: boolean
  reference: string
}

/** Pays one day of rewards on every position, once per day (UTC): `yieldPpm` a year by asset. */
export type AccrueStakingRewards = {
  type: 'accrueStakingRewards'
  timestamp: number
  /** 00:00 UTC of the day paid for. */
  dayMs: number
  yieldPpm: Record<string, number>
  /**
   * The rules the command was made under. 2 (every command made now): a position earns on the
   * least it held since the previous payout. Without it, as journaled before that rule: on what
   * it holds when paid. A replay pays each day by its own command's rules, or a journaled
   * command that spent a reward paid the old way would be refused and the exchange not start.
   * 3: as 2, but what was staked or unstaked on the day after the one paid for (between midnight
   * and the payout, which runs in the minute after it) counts for the next payout only: a stake
   * made at 00:00:10 held the day paid for none of the time, and the next day not all of it.
   */
  rules?: 2 | 3
  /**
   * The first day paid for, when days were missed (the exchange was stopped over a midnight, or
   * a payout was lost to a crash): every day from it through `dayMs` is paid, each on the least
   * the position held since the previous payout. Absent: `dayMs` alone.
   */
  fromDayMs?: number
}

/** The most days one payout pays (`AccrueStakingRewards.fromDayMs`): a year. */
export const stakingCatchUpDaysMax = 366

/**
 * A day's staking reward: `dayMs` the UTC day it was earned, `creditedMs` when it reached the
 * balance (absent in snapshots from before 2026-11-27's fourteenth session: the day's end then).
 */
export type StakingReward = { dayMs: number; asset: string; amount: string; creditedMs?: number }

/** A stake or unstake as applied, kept a while by its reference (see `recentStake`). */
export type RecentStake = {
  reference: string
  accountId: number
  type: 'stake' | 'unstake'
  asset: string
  /** In ledger units. */
  amount: string
  timestamp: number
}

/**
 * How long a stake's or unstake's reference is kept, and how many at most of an account's: a
 * client that retries with the same Idempotency-Key within this time is answered with what was
 * done, not staked twice. Kept per account, so that no account's stakes push out another's.
 */
export const recentStakeKeptMs = 86_400_000
export const recentStakesPerAccountMax = 1_000

/**
 * Cancel-on-disconnect (POST /cancelOrdersAfter): starts or restarts the countdown of one of the
 * account's order groups, or stops it (`expiresAtMs` 0). Orders may name the group only while its
 * countdown runs.
 */
export type SetCancelDeadline = {
  type: 'setCancelDeadline'
  timestamp: number
  accountId: number
  codGroupId: number
  /** When the group's open orders are canceled; 0 stops the countdown. */
  expiresAtMs: number
}

/**
 * Cancels the open orders of a group whose countdown ran out, and ends the countdown. Refused
 * (205) while the countdown still runs, so that a restart just in time wins over a late check.
 */
export type CancelExpiredGroup = {
  type: 'cancelExpiredGroup'
  timestamp: number
  accountId: number
  codGroupId: number
}

/** A running cancel-on-disconnect countdown. */
export type CancelDeadline = { accountId: number; codGroupId: number; expiresAtMs: number }

/**
 * An order update as the core takes it. `holdRules` 2 (every update made now): the order's new
 * hold counts what its fills so far paid against the fee of its filled total and its rest (see
 * holdRequirement). Without it, as journaled before: the fee of the rest alone, so that a replay
 * accepts every update it accepted then.
 */
export type CoreUpdateOrder = UpdateOrder & { readonly holdRules?: 2 }

export type CoreCommand =
  | AddMarket
  | SetMarketStatus
  | PlaceOrder
  | CoreUpdateOrder
  | CancelOrder
  | CancelOrders
  | FlushBook
  | Deposit
  | Withdraw
  | CreateSavingsPlan
  | UpdateSavingsPlan
  | DeleteSavingsPlan
  | RunSavingsPlan
  | Stake
  | AccrueStakingRewards
  | AdvanceWithdrawal
  | StartPayment
  | UpdatePayment
  | SetCancelDeadline
  | CancelExpiredGroup

export type CoreOutcome =
  | { ok: true; events: EngineEvent[]; orderIds?: readonly string[] }
  | { ok: false; errorCode: number; error: string }

/** Funds held for one open order. */
type Hold = {
  accountId: number
  asset: string
  remaining: bigint
  /** The highest fee rate its fills can pay (the larger of its maker and taker rates). */
  feePpm: number
}

type OrderShape = {
  side: Side
  orderType: OrderType
  amountRemaining: number | null
  amountQuoteRemaining: number | null
  price: number | null
  /**
   * An open order's fee rules and fills so far (`Engine.orderFees`): its rest holds the most
   * its fills can still cost. Absent for a new order, and for an update journaled before
   * `holdRules` 2: the fee of the rest alone at `feePpm`.
   */
  fees?: OrderFees | null
}

const openStatuses = new Set(['new', 'partiallyFilled', 'awaitingTrigger'])
const noHoldContext: HoldContext = { bestBid: 0, bestAsk: 0, disableMarketProtection: false }

function isCodGroupId(value: number): boolean {
  return Number.isInteger(value) && value >= 1 && value <= 1000
}

function groupKey(accountId: number, codGroupId: number): string {
  return `${accountId} ${codGroupId}`
}

function insufficient(): CoreOutcome {
  return { ok: false, ...protocolError(216).body }
}

/** The opposite side's best prices when the order arrives (0: none), and its protection. */
export type HoldContext = { bestBid: number; bestAsk: number; disableMarketProtection: boolean }

/**
 * What an order must hold, in ledger units of the asset it spends: base for a sell, quote plus
 * the taker fee for a buy. The hold is a bound that every possible execution stays within:
 * - a limit price bounds a limit order's cost;
 * - a market order trades no further than its protection band from the best opposite price at
 *   arrival (engine README, "Market protection"), so that band bounds it; with protection
 *   disabled, or for stopLoss/takeProfit orders that fire later at a price unknown now, only the
 *   market's maxPrice (buys) or minPrice (sells by amountQuote) bound it;
 * - a market order facing an empty side cannot trade, and holds nothing.
 * The fee is the higher of the order's rates on the bounding notional; for an order with fills,
 * the most the fills of that notional can still cost it (`restFeeAtMost`).
 */
export function holdRequirement(
  spec: MarketSpec,
  order: OrderShape,
  feePpm: number,
  context: HoldContext,
): bigint {
  const isMarket = order.orderType === 'market'
  const band = (best: number): number => Math.floor((best * spec.marketProtectionPpm) / 1_000_000)
  const protectedMarket = isMarket && !context.disableMarketProtection
  if (order.side === 'sell') {
    if (order.amountRemaining !== null)
      return toLedgerUnits(order.amountRemaining, spec.quantityDecimals)
    if (isMarket && context.bestBid === 0) return 0n
    const lowest = protectedMarket
      ? Math.max(spec.minPrice, context.bestBid - band(context.bestBid))
      : spec.minPrice
    const quoteUnits = BigInt(order.amountQuoteRemaining ?? 0)
    const perBaseUnit = BigInt(lowest) * BigInt(spec.quotePerPriceBase)
    const baseUnits = (quoteUnits + perBaseUnit - 1n) / perBaseUnit
    return toLedgerUnits(baseUnits, spec.quantityDecimals)
  }
  // Each fill pays what brings the order's fees to the fee of its fills so far (capped at the
  // fill's own notional): after fills, the rest can owe more than the fee of the rest alone
  // (a capped dust fill left part unpaid; under the old rules a taker fill charged the taker
  // rate on earlier maker fills too), and per role the whole rest at the larger rate.
  const fees = order.fees
  const quoteWithFee = (quoteUnits: number): bigint => {
    const fee =
      fees === undefined || fees === null
        ? feeFor(quoteUnits, feePpm, spec.quotePerNotional)
        : restFeeAtMost(fees, quoteUnits, spec.quotePerNotional)
    return toLedgerUnits(quoteUnits + Math.max(0, fee), spec.quoteDecimals)
  }
  if (order.amountRemaining === null) return quoteWithFee(order.amountQuoteRemaining ?? 0)
  if (isMarket && context.bestAsk === 0) return 0n
  const price =
    order.price ??
    (protectedMarket
      ? Math.min(spec.maxPrice, context.bestAsk + band(context.bestAsk))
      : spec.maxPrice)
  return quoteWithFee(price * order.amountRemaining * spec.quotePerPriceBase)
}

/** The whole core as plain JSON: what a journal snapshot stores. */
export type CoreSnapshot = {
  version: 1
  engine: EngineSnapshot
  ledger: LedgerSnapshot
  /** An array when read back; an ArrayView when captured (see `snapshot`). */
  holds: Iterable<
    [key: string, accountId: number, asset: string, remaining: string, feePpm: number]
  >
  history: OrderHistorySnapshot
  stats: MarketStatsSnapshot
  savings?: SavingsSnapshot
  /**
   * Set by snapshots that list each account's deleted plans in the order they were deleted
   * (after the others); before, every plan was listed in the order it was created.
   */
  deletedSavingsInOrder?: true
  staking?: {
    positions: [key: string, amount: string][]
    acknowledged: number[]
    lastAccruedDayMs: number
    rewards: [accountId: number, rewards: StakingReward[]][]
    /** Positions whose least amount since the last payout is below their amount now. */
    lows?: [key: string, amount: string][]
    /** Positions changed on a day after the one the next payout pays (see `#stakeLowsLater`). */
    lowsLater?: [key: string, before: string, low: string][]
    /** Absent from snapshots made before 2026-11-28: a retry then stakes again, as it did. */
    recent?: RecentStake[]
  }
  payments?: Payment[]
  pendingWithdrawals?: PendingWithdrawal[]
  cancelDeadlines?: CancelDeadline[]
  /** Absent from snapshots made before 2026-11-27: volumes then count from the snapshot on. */
  volume?: TradingVolumeSnapshot
}

const noDeadlines: readonly CancelDeadline[] = Object.freeze([])

export class ExchangeCore {
  readonly #log = new EventLog()
  readonly engine: Engine
  readonly ledger: Ledger
  readonly history: OrderHistory
  readonly stats: MarketStats
  /** Each account's euros traded over the last 30 days (its fee tier). */
  readonly volume: TradingVolume
  readonly #holds = new Map<string, Hold>()
  /** Savings plans by id, but those deleted. */
  readonly savingsPlans = new Map<string, Plan>()
  /** The ids of each account's plans in `savingsPlans`, in the order they were created. */
  readonly #savingsPlanIds = new Map<number, Set<string>>()
  /**
   * Each account's deleted plans, the most recently deleted last: at most
   * `savingsPlansPerAccountMax` (the oldest let go), so that creating and deleting plans does
   * not grow the state without bound.
   */
  readonly #deletedSavingsPlans = new Map<number, Plan[]>()
  /** Staked amounts by `${accountId} ${asset}`, in ledger units. */
  readonly stakes = new Map<string, bigint>()
  /**
   * The least each position held since the last payout, for those staked to or unstaked from
   * since (the others held what they hold now): a day's reward is paid on it, so that funds
   * staked for a moment around midnight earn nothing for the day.
   */
  readonly #stakeLows = new Map<string, bigint>()
  /**
   * The positions staked to or unstaked from on a day after the one the next payout pays (the day
   * after the last one paid): what each held before the first such change, which the next payout
   * pays on, and the least it held since, which the payout after it pays on.
   */
  readonly #stakeLowsLater = new Map<string, { before: bigint; low: bigint }>()
  readonly #riskAcknowledged = new Set<number>()
  /**
   * Each account's stakes and unstakes of the last day by reference, oldest first, with the time
   * of its last; the accounts least recently staking first (see `recentStake`).
   */
  readonly #recentStakes = new Map<
    number,
    { lastMs: number; byReference: Map<string, RecentStake> }
  >()
  #lastAccruedDayMs = 0
  readonly #rewards = new Map<number, StakingReward[]>()
  readonly payments: PaymentBook
  /** Withdrawals not completed yet, by reference. */
  readonly pendingWithdrawals = new Map<string, PendingWithdrawal>()
  /** Running cancel-on-disconnect countdowns by `${accountId} ${codGroupId}`. */
  readonly cancelDeadlines = new Map<string, CancelDeadline>()
  /** The earliest of `cancelDeadlines`' ends (Infinity: none), or undefined once they changed. */
  #earliestCancelDeadlineMs: number | undefined

  constructor(snapshot?: CoreSnapshot) {
    if (snapshot !== undefined && snapshot.version !== 1)
      throw new Error('unknown core snapshot version')
    this.engine = snapshot
      ? Engine.restore(snapshot.engine, { book: 'fast', sink: this.#log })
      : new Engine({ book: 'fast', sink: this.#log })
    this.ledger = snapshot ? Ledger.restore(snapshot.ledger) : new Ledger()
    this.history = snapshot ? OrderHistory.restore(snapshot.history) : new OrderHistory()
    this.stats = snapshot ? MarketStats.restore(snapshot.stats) : new MarketStats()
    this.volume = TradingVolume.restore(snapshot?.volume)
    // Deleted plans in the order they were deleted: as listed, or by the time they were deleted
    // in snapshots of before they were kept apart (which list them in the order they were made).
    const plans = snapshot?.savings ?? []
    for (const plan of plans) if (plan.status !== 'DELETED') this.#keepSavingsPlan(plan)
    const deleted = plans.filter((plan) => plan.status === 'DELETED')
    if (snapshot?.deletedSavingsInOrder !== true) deleted.sort((a, b) => a.updated - b.updated)
    for (const plan of deleted) this.#keepSavingsPlan(plan)
    for (const [key, amount] of snapshot?.staking?.positions ?? [])
      this.stakes.set(key, BigInt(amount))
    for (const [key, amount] of snapshot?.staking?.lows ?? [])
      this.#stakeLows.set(key, BigInt(amount))
    for (const [key, before, low] of snapshot?.staking?.lowsLater ?? [])
      this.#stakeLowsLater.set(key, { before: BigInt(before), low: BigInt(low) })
    for (const accountId of snapshot?.staking?.acknowledged ?? [])
      this.#riskAcknowledged.add(accountId)
    for (const stake of snapshot?.staking?.recent ?? []) this.#keepRecentStake(stake)
    this.#lastAccruedDayMs = snapshot?.staking?.lastAccruedDayMs ?? 0
    for (const [accountId, rewards] of snapshot?.staking?.rewards ?? [])
      this.#rewards.set(accountId, rewards)
    this.payments = new PaymentBook(snapshot?.payments)
    for (const withdrawal of snapshot?.pendingWithdrawals ?? [])
      this.pendingWithdrawals.set(withdrawal.reference, withdrawal)
    for (const deadline of snapshot?.cancelDeadlines ?? [])
      this.cancelDeadlines.set(groupKey(deadline.accountId, deadline.codGroupId), deadline)
    for (const [key, accountId, asset, remaining, feePpm] of snapshot?.holds ?? []) {
      this.#holds.set(key, { accountId, asset, remaining: BigInt(remaining), feePpm })
    }
  }

  snapshot(): CoreSnapshot {
    return {
      version: 1,
      engine: this.engine.snapshot(),
      ledger: this.ledger.snapshot(),
      holds: this.#captureHolds(),
      history: this.history.snapshot(),
      stats: this.stats.snapshot(),
      savings: [...this.savingsPlans.values(), ...[...this.#deletedSavingsPlans.values()].flat()],
      deletedSavingsInOrder: true,
      staking: {
        positions: [...this.stakes].map(([key, amount]) => [key, amount.toString()]),
        acknowledged: [...this.#riskAcknowledged],
        lastAccruedDayMs: this.#lastAccruedDayMs,
        rewards: [...this.#rewards],
        lows: [...this.#stakeLows].map(([key, amount]) => [key, amount.toString()]),
        lowsLater: [...this.#stakeLowsLater].map(([key, { before, low }]) => [
          key,
          before.toString(),
          low.toString(),
        ]),
        recent: [...this.#recentStakes.values()].flatMap(({ byReference }) => [
          ...byReference.values(),
        ]),
      },
      payments: this.payments.snapshot(),
      pendingWithdrawals: [...this.pendingWithdrawals.values()],
      cancelDeadlines: [...this.cancelDeadlines.values()],
      volume: this.volume.snapshot(),
    }
  }

  /** The holds as of now, in flat arrays (one per open order: thousands), written later. */
  #captureHolds(): ArrayView<
    [key: string, accountId: number, asset: string, remaining: string, feePpm: number]
  > {
    const count = this.#holds.size
    const keys = new Array<string>(count)
    const holds = new Array<Hold>(count)
    // A hold's remaining amount changes in place as its order fills: that one is kept now.
    const remaining = new Array<bigint>(count)
    let index = 0
    this.#holds.forEach((hold, key) => {
      keys[index] = key
      holds[index] = hold
      remaining[index] = hold.remaining
      index += 1
    })
    return new ArrayView(count, (at) => [
      keys[at]!,
      holds[at]!.accountId,
      holds[at]!.asset,
      remaining[at]!.toString(),
      holds[at]!.feePpm,
    ])
  }

  /** Funds still held for an open order, in ledger units, or 0n. */
  heldFor(market: string, orderId: string): bigint {
    return this.#holds.get(`${market} ${orderId}`)?.remaining ?? 0n
  }

  apply(command: CoreCommand): CoreOutcome {
    switch (command.type) {
      case 'deposit':
      case 'withdraw':
        return this.#transfer(command)
      case 'placeOrder':
        return this.#place(command)
      case 'createSavingsPlan':
      case 'updateSavingsPlan':
      case 'deleteSavingsPlan':
        return this.#changeSavingsPlan(command)
      case 'runSavingsPlan':
        return this.#runSavingsPlan(command)
      case 'stake':
      case 'unstake':
        return this.#stake(command)
      case 'accrueStakingRewards':
        return this.#accrue(command)
      case 'advanceWithdrawal':
        return this.#advanceWithdrawal(command)
      case 'startPayment':
        return this.#startPayment(command)
      case 'updatePayment':
        return this.#updatePayment(command)
      case 'updateOrder':
        return this.#update(command)
      case 'setCancelDeadline':
        return this.#setCancelDeadline(command)
      case 'cancelExpiredGroup':
        return this.#cancelExpiredGroup(command)
      default: {
        const result = this.engine.execute(command)
        const events = this.#log.take()
        if (!result.ok) return result
        this.#settle(events)
        return { ok: true, events, ...('orderIds' in result ? { orderIds: result.orderIds } : {}) }
      }
    }
  }

  /** An account's savings plans but those deleted, in the order they were created. */
  savingsPlansOf(accountId: number): Plan[] {
    const ids = this.#savingsPlanIds.get(accountId) ?? []
    return [...ids].map((id) => this.savingsPlans.get(id)!)
  }

  /** An account's most recently deleted savings plans (at most `savingsPlansPerAccountMax`). */
  deletedSavingsPlansOf(accountId: number): readonly Plan[] {
    return this.#deletedSavingsPlans.get(accountId) ?? []
  }

  /** Files a plan by its status: a deleted one among its account's last deleted. */
  #keepSavingsPlan(plan: Plan): void {
    if (plan.status === 'DELETED') {
      const deleted = this.#deletedSavingsPlans.get(plan.accountId) ?? []
      deleted.push(plan)
      if (deleted.length > savingsPlansPerAccountMax) deleted.shift()
      this.#deletedSavingsPlans.set(plan.accountId, deleted)
      return
    }
    this.savingsPlans.set(plan.id, plan)
    const ids = this.#savingsPlanIds.get(plan.accountId) ?? new Set()
    ids.add(plan.id)
    this.#savingsPlanIds.set(plan.accountId, ids)
  }

  #changeSavingsPlan(
    command: CreateSavingsPlan | UpdateSavingsPlan | DeleteSavingsPlan,
  ): CoreOutcome {
    if (command.type === 'createSavingsPlan') {
      if ((this.#savingsPlanIds.get(command.accountId)?.size ?? 0) >= savingsPlansPerAccountMax)
        return {
          ok: false,
          errorCode: 235,
          error: `At most ${savingsPlansPerAccountMax} savings plans per account.`,
        }
      if (this.savingsPlans.has(command.planId))
        return { ok: false, ...protocolError(205, { param: 'id' }).body }
      const { type: _type, planId, timestamp, ...fields } = command
      this.#keepSavingsPlan({
        ...fields,
        id: planId,
        created: timestamp,
        updated: timestamp,
        nextIndex: anchoredIndex({ ...fields, executions: [] }, timestamp, command.schedule),
        executions: [],
      })
      return { ok: true, events: [] }
    }
    const plan = this.savingsPlans.get(command.planId)
    if (plan === undefined || plan.accountId !== command.accountId) {
      return { ok: false, ...savingsPlanNotFound }
    }
    if (command.type === 'deleteSavingsPlan') {
      plan.status = 'DELETED'
      plan.updated = command.timestamp
      this.savingsPlans.delete(plan.id)
      this.#savingsPlanIds.get(plan.accountId)?.delete(plan.id)
      this.#keepSavingsPlan(plan)
      return { ok: true, events: [] }
    }
    // A paused plan skipped its occurrences by choice: re-activated, it starts afresh rather
    // than recording them as missed (419) and buying at once.
    const reactivated =
      command.schedule !== undefined && plan.status === 'INACTIVE' && command.status === 'ACTIVE'
    if (command.amount !== undefined) plan.amount = command.amount
    if (command.status !== undefined) plan.status = command.status
    plan.frequency = command.frequency ?? plan.frequency
    plan.startMs = command.startMs ?? plan.startMs
    if (reactivated || command.frequency !== undefined || command.startMs !== undefined)
      plan.nextIndex = anchoredIndex(plan, command.timestamp, command.schedule)
    plan.updated = command.timestamp
    return { ok: true, events: [] }
  }

  #runSavingsPlan(command: RunSavingsPlan): CoreOutcome {
    const plan = this.savingsPlans.get(command.planId)
    if (plan === undefined || plan.status !== 'ACTIVE') return { ok: false, ...savingsPlanNotFound }
    const missed = command.index - plan.nextIndex
    // Each occurrence runs once: an index already run, or one not yet due, is refused.
    if (missed < 0 || occurrence(plan.startMs, plan.frequency, command.index) > command.timestamp) {
      return { ok: false, ...protocolError(232).body }
    }
    if (command.executionIds.length !== missed + 1)
      return { ok: false, ...protocolError(205, { param: 'executionIds' }).body }
    const record = (execution: Execution) => {
      plan.executions.push(execution)
      if (plan.executions.length > executionsPerPlanMax)
        plan.executions.splice(0, plan.executions.length - executionsPerPlanMax)
    }
    for (let k = 0; k < missed; k += 1) {
      record({
        id: command.executionIds[k]!,
        scheduledAt: occurrence(plan.startMs, plan.frequency, plan.nextIndex + k),
        status: 'FAILED',
        executedAt: null,
        amount: plan.amount,
        filledAmount: null,
        price: null,
        orderId: null,
        failureErrorCode: 419, // server unavailable: missed while the exchange was stopped
      })
    }
    plan.nextIndex = command.index + 1
    const scheduledAt = occurrence(plan.startMs, plan.frequency, command.index)
    const spec = this.engine.market(plan.market)
    const buy =
      spec &&
      placeOrderFromWire(
        spec,
        { side: 'buy', orderType: 'market', amountQuote: plan.amount },
        {
          timestamp: command.timestamp,
          orderId: command.orderId,
          accountId: plan.accountId,
          makerFeePpm: command.makerFeePpm,
          takerFeePpm: command.takerFeePpm,
        },
      )
    const outcome: CoreOutcome =
      buy === null || buy === undefined
        ? { ok: false, ...protocolError(205, { param: 'market' }).body }
        : 'ok' in buy
          ? buy
          : this.#place(buy)
    const base = {
      id: command.executionIds[missed]!,
      scheduledAt,
      executedAt: command.timestamp,
      amount: plan.amount,
    }
    if (!outcome.ok) {
      record({
        ...base,
        status: 'FAILED',
        filledAmount: null,
        price: null,
        orderId: null,
        failureErrorCode: outcome.errorCode,
      })
      return { ok: true, events: [] }
    }
    const order = outcome.events.findLast(
      (event) => event.type === 'order' && event.orderId === command.orderId,
    )
    const filled = order?.type === 'order' && order.filledAmount > 0
    record({
      ...base,
      // What the run spent (the fee on top, as on any order by amountQuote): less than the plan
      // amount when the book or the market's protection band let it buy less.
      // Written as the plan's amount is, without trailing zeros ("100", "50.13").
      ...(filled && spec && command.amountRules === 2
        ? { amount: formatQuote(spec, order.filledAmountQuote).replace(/\.0*$|(\.\d*?)0+$/, '$1') }
        : {}),
      status: filled ? 'SUCCESS' : 'FAILED',
      filledAmount: filled && spec ? formatAmount(spec, order.filledAmount) : null,
      price:
        filled && spec
          ? formatPrice(
              spec,
              Math.round(order.filledAmountQuote / (order.filledAmount * spec.quotePerPriceBase)),
            )
          : null,
      orderId: command.orderId,
      failureErrorCode: filled ? null : 230,
    })
    return outcome
  }

  /** The account's staking rewards, newest first (kept: the last 3,650 days' worth). */
  stakingRewardsOf(accountId: number): readonly StakingReward[] {
    return [...(this.#rewards.get(accountId) ?? [])].reverse()
  }

  hasAcknowledgedStakingRisk(accountId: number): boolean {
    return this.#riskAcknowledged.has(accountId)
  }

  /**
   * The stake or unstake applied under this reference in the day before `nowMs`
   * (`recentStakeKeptMs`), if any. The web API derives the reference from the client's
   * Idempotency-Key, and answers a retry with the one applied instead of staking again; a key
   * used again after a day stakes anew.
   */
  recentStake(accountId: number, reference: string, nowMs: number): RecentStake | undefined {
    const stake = this.#recentStakes.get(accountId)?.byReference.get(reference)
    return stake !== undefined && stake.timestamp > nowMs - recentStakeKeptMs ? stake : undefined
  }

  #stake(command: Stake): CoreOutcome {
    const amount = BigInt(command.amount)
    if (amount <= 0n) return { ok: false, ...protocolError(205, { param: 'amount' }).body }
    // A reference is applied once: a second command naming it is a retry, never a new stake.
    if (this.recentStake(command.accountId, command.reference, command.timestamp) !== undefined)
      return { ok: false, ...protocolError(205, { param: 'reference' }).body }
    const key = `${command.accountId} ${command.asset}`
    const staked = this.stakes.get(key) ?? 0n
    if (command.type === 'stake') {
      if (!this.#riskAcknowledged.has(command.accountId) && command.acknowledgeRisk !== true) {
        return {
          ok: false,
          errorCode: 320,
          error: 'Acknowledge the staking risk disclosure before staking.',
        }
      }
      if (this.ledger.balance(command.accountId, command.asset).available < amount)
        return { ok: false, ...protocolError(216).body }
      this.#riskAcknowledged.add(command.accountId)
      this.ledger.stake(
        command.accountId,
        command.asset,
        amount,
        true,
        command.reference,
        command.timestamp,
      )
      // Added to the position, but not to the least it held since the last payout.
      this.#lowerStake(key, staked, staked, command.timestamp)
      this.stakes.set(key, staked + amount)
    } else {
      if (staked < amount) return { ok: false, ...protocolError(216).body }
      this.ledger.stake(
        command.accountId,
        command.asset,
        amount,
        false,
        command.reference,
        command.timestamp,
      )
      if (staked === amount) this.stakes.delete(key)
      else this.stakes.set(key, staked - amount)
      this.#lowerStake(key, staked, staked - amount, command.timestamp)
    }
    this.#keepRecentStake(command)
    return { ok: true, events: [] }
  }

  /**
   * Keeps an applied stake's reference, forgetting the account's past a day old or past the most
   * kept, and every account's whose last stake is a day old.
   */
  #keepRecentStake(command: Stake | RecentStake): void {
    const { reference, accountId, type, asset, amount, timestamp } = command
    const fromMs = timestamp - recentStakeKeptMs
    for (const [idle, { lastMs }] of this.#recentStakes) {
      if (lastMs > fromMs) break
      this.#recentStakes.delete(idle)
    }
    const byReference = this.#recentStakes.get(accountId)?.byReference ?? new Map()
    for (const [kept, stake] of byReference) {
      if (stake.timestamp > fromMs && byReference.size < recentStakesPerAccountMax) break
      byReference.delete(kept)
    }
    byReference.delete(reference) // one a day old, used again: now the newest
    byReference.set(reference, { reference, accountId, type, asset, amount, timestamp })
    // The account is now the most recent to stake.
    this.#recentStakes.delete(accountId)
    this.#recentStakes.set(accountId, { lastMs: timestamp, byReference })
  }

  /**
   * Keeps the least a position held since the last payout, of a change from `before` to `after`
   * at `timestamp`: apart when the change was made on a day after the one the next payout pays
   * (before any payout, none is known: every change counts for the first).
   */
  #lowerStake(key: string, before: bigint, after: bigint, timestamp: number): void {
    const least = before < after ? before : after
    const dayStartMs = Math.floor(timestamp / utcDayMs) * utcDayMs
    if (this.#lastAccruedDayMs > 0 && dayStartMs > this.#lastAccruedDayMs + utcDayMs) {
      const later = this.#stakeLowsLater.get(key)
      if (later === undefined) this.#stakeLowsLater.set(key, { before, low: least })
      else if (least < later.low) later.low = least
      return
    }
    const low = this.#stakeLows.get(key)
    if (low === undefined || least < low) this.#stakeLows.set(key, least)
  }

  /** 00:00 UTC of the last day staking rewards were paid for; 0 before the first payout. */
  get lastAccruedDayMs(): number {
    return this.#lastAccruedDayMs
  }

  #accrue(command: AccrueStakingRewards): CoreOutcome {
    // Once per day: a repeated or older day is refused, so a crash or a second timer never pays twice.
    if (command.dayMs <= this.#lastAccruedDayMs) return { ok: false, ...protocolError(232).body }
    if (command.rules !== undefined && command.rules !== 2 && command.rules !== 3)
      return { ok: false, ...protocolError(205, { param: 'rules' }).body }
    const fromDayMs = command.fromDayMs ?? command.dayMs
    const days = (command.dayMs - fromDayMs) / utcDayMs + 1
    if (
      fromDayMs <= this.#lastAccruedDayMs ||
      !Number.isSafeInteger(days) ||
      days < 1 ||
      days > stakingCatchUpDaysMax
    )
      return { ok: false, ...protocolError(205, { param: 'fromDayMs' }).body }
    // Under rules 3, a payout of the one day after the last paid leaves the changes of the days
    // after it to the next payout; a payout of more days (a catch-up) counts every change made
    // since the last one, as earlier rules do.
    const laterApart =
      command.rules === 3 &&
      fromDayMs === command.dayMs &&
      command.dayMs === this.#lastAccruedDayMs + utcDayMs
    this.#lastAccruedDayMs = command.dayMs
    // Under rules 3, a position unstaked to nothing after midnight is gone from `stakes`, but
    // the day paid is owed on what it held before.
    const positions: Iterable<[string, bigint]> = laterApart
      ? [
          ...this.stakes,
          ...[...this.#stakeLowsLater.keys()]
            .filter((key) => !this.stakes.has(key))
            .map((key): [string, bigint] => [key, 0n]),
        ]
      : this.stakes
    for (const [key, staked] of positions) {
      const [accountText, asset] = key.split(' ') as [string, string]
      const yieldPpm = BigInt(command.yieldPpm[asset] ?? 0)
      // Simple daily interest on the least amount staked since the last payout (a stake made
      // during the day earns from the next day on), rounded down to the ledger unit.
      const amount =
        command.rules === undefined ? staked : this.#stakedToPay(key, staked, laterApart)
      const reward = (amount * yieldPpm) / (1_000_000n * 365n)
      if (reward <= 0n) continue
      const accountId = Number(accountText)
      const rewards = this.#rewards.get(accountId) ?? []
      for (let dayMs = fromDayMs; dayMs <= command.dayMs; dayMs += utcDayMs) {
        this.ledger.reward(accountId, asset, reward, `reward ${dayMs} ${key}`, command.timestamp)
        rewards.push({ dayMs, asset, amount: reward.toString(), creditedMs: command.timestamp })
      }
      if (rewards.length > 3_650 * 2) rewards.splice(0, rewards.length - 3_650)
      this.#rewards.set(accountId, rewards)
    }
    // What was staked or unstaked up to this payout counts in full from the next one on; what
    // was kept apart counts for the next one.
    this.#stakeLows.clear()
    if (laterApart) for (const [key, { low }] of this.#stakeLowsLater) this.#stakeLows.set(key, low)
    this.#stakeLowsLater.clear()
    return { ok: true, events: [] }
  }

  /** What a position is paid on: the least it held over the days paid (see `#lowerStake`). */
  #stakedToPay(key: string, staked: bigint, laterApart: boolean): bigint {
    const low = this.#stakeLows.get(key)
    const later = this.#stakeLowsLater.get(key)
    if (later === undefined) return low ?? staked
    // Kept apart: the position held `later.before` from the last change paid for (or from the
    // last payout) to the first later one.
    const held = laterApart ? later.before : later.low
    return low === undefined || held < low ? held : low
  }

  #transfer(command: Deposit | Withdraw): CoreOutcome {
    const amount = BigInt(command.amount)
    if (amount <= 0n) return { ok: false, ...protocolError(205, { param: 'amount' }).body }
    const fee = command.type === 'withdraw' ? BigInt(command.fee ?? '0') : 0n
    try {
      if (command.type === 'deposit') {
        this.ledger.deposit(
          command.accountId,
          command.asset,
          amount,
          command.reference,
          command.timestamp,
        )
      } else {
        this.ledger.withdraw(
          command.accountId,
          command.asset,
          amount,
          command.reference,
          command.timestamp,
          fee,
        )
      }
    } catch (error) {
      if (error instanceof InsufficientBalanceError)
        return { ok: false, ...protocolError(408).body }
      throw error
    }
    this.history.recordTransfer(command.accountId, {
      kind: command.type,
      timestamp: command.timestamp,
      asset: command.asset,
      amount: amount.toString(),
      fee: fee.toString(),
      reference: command.reference,
      ...(command.address === undefined ? {} : { address: command.address }),
      ...(command.txId === undefined ? {} : { txId: command.txId }),
      ...(command.type === 'withdraw' && command.paymentId !== undefined
        ? { paymentId: command.paymentId }
        : {}),
      ...(command.type === 'withdraw' && command.valueEurCents !== undefined
        ? { valueEurCents: command.valueEurCents }
        : {}),
      ...(command.type === 'withdraw' && command.schedule !== undefined
        ? { status: 'awaiting_processing' }
        : {}),
    })
    if (command.type === 'withdraw' && command.schedule !== undefined) {
      this.pendingWithdrawals.set(command.reference, {
        reference: command.reference,
        accountId: command.accountId,
        status: 'awaiting_processing',
        ...command.schedule,
      })
    }
    return { ok: true, events: [] }
  }

  #advanceWithdrawal(command: AdvanceWithdrawal): CoreOutcome {
    const withdrawal = this.pendingWithdrawals.get(command.reference)
    if (withdrawal === undefined)
      return { ok: false, ...protocolError(205, { param: 'reference' }).body }
    // One status at a time, each once, and never before it is due: a second timer or a replay
    // cannot skip or repeat a step.
    const next = withdrawalStatuses[withdrawalStatuses.indexOf(withdrawal.status) + 1]
    const dueMs = command.status === 'sending' ? withdrawal.sendingAtMs : withdrawal.completedAtMs
    if (command.status !== next || command.timestamp < dueMs)
      return { ok: false, ...protocolError(232).body }
    this.history.setTransferStatus(withdrawal.accountId, withdrawal.reference, command.status)
    if (command.status === 'completed') this.pendingWithdrawals.delete(withdrawal.reference)
    else withdrawal.status = command.status
    return { ok: true, events: [] }
  }

  #startPayment(command: StartPayment): CoreOutcome {
    const amount = BigInt(command.amount)
    const fee = BigInt(command.fee)
    if (this.payments.get(command.paymentId) !== undefined)
      return { ok: false, ...protocolError(205, { param: 'paymentId' }).body }
    if (amount <= 0n || fee < 0n || fee >= amount)
      return { ok: false, ...protocolError(205, { param: 'amount' }).body }
    this.payments.add({
      id: command.paymentId,
      accountId: command.accountId,
      method: command.method,
      amount: command.amount,
      fee: command.fee,
      status: 'pending',
      providerReference: null,
      failureReason: null,
      created: command.timestamp,
      updated: command.timestamp,
    })
    return { ok: true, events: [] }
  }

  #updatePayment(command: UpdatePayment): CoreOutcome {
    const payment = this.payments.get(command.paymentId)
    if (payment === undefined)
      return { ok: false, ...protocolError(205, { param: 'paymentId' }).body }
    // Confirmed and failed are final: a late or repeated answer of the provider changes nothing.
    if (payment.status !== 'pending') return { ok: false, ...protocolError(232).body }
    payment.providerReference = command.providerReference ?? payment.providerReference
    payment.updated = command.timestamp
    if (command.status === 'failed') {
      payment.status = 'failed'
      payment.failureReason = command.failureReason ?? 'declined by the payment provider'
    } else if (command.status === 'confirmed') {
      payment.status = 'confirmed'
      const { accountId, id } = payment
      const amount = BigInt(payment.amount)
      const fee = BigInt(payment.fee)
      // The whole payment arrives, then the method's fee is its own movement to the fees account.
      this.ledger.deposit(accountId, paymentAsset, amount, `payment ${id}`, command.timestamp)
      if (fee > 0n)
        this.ledger.chargeFee(accountId, paymentAsset, fee, `payment fee ${id}`, command.timestamp)
      this.history.recordTransfer(accountId, {
        kind: 'deposit',
        timestamp: command.timestamp,
        asset: paymentAsset,
        amount: payment.amount,
        fee: payment.fee,
        reference: id,
        paymentId: id,
        method: payment.method,
        ...(payment.providerReference === null ? {} : { txId: payment.providerReference }),
      })
    }
    return { ok: true, events: [] }
  }

  #setCancelDeadline(command: SetCancelDeadline): CoreOutcome {
    const { accountId, codGroupId, expiresAtMs, timestamp } = command
    if (!isCodGroupId(codGroupId))
      return { ok: false, ...protocolError(205, { param: 'codGroupId' }).body }
    if (!Number.isSafeInteger(expiresAtMs) || expiresAtMs < 0)
      return { ok: false, ...protocolError(205, { param: 'expiryAfterSeconds' }).body }
    const key = groupKey(accountId, codGroupId)
    // A countdown that ran out and was not carried out yet (the task runs every 100 ms, and not
    // while the server is down) is carried out first: its orders go, whatever comes after.
    const expired = this.cancelDeadlines.get(key)
    const canceled =
      expired !== undefined && expired.expiresAtMs <= timestamp
        ? this.#cancelGroup(accountId, codGroupId, timestamp)
        : { ok: true as const, events: [], orderIds: [] }
    const replaced = this.cancelDeadlines.get(key)?.expiresAtMs
    if (expiresAtMs === 0) this.cancelDeadlines.delete(key)
    else this.cancelDeadlines.set(key, { accountId, codGroupId, expiresAtMs })
    // A restart of the countdown that was the earliest moves it later: look again. Any other
    // change can only bring the earliest forward.
    const earliest = this.#earliestCancelDeadlineMs
    if (earliest !== undefined && replaced === earliest) this.#earliestCancelDeadlineMs = undefined
    else if (earliest !== undefined && expiresAtMs !== 0)
      this.#earliestCancelDeadlineMs = Math.min(earliest, expiresAtMs)
    return canceled
  }

  #cancelExpiredGroup(command: CancelExpiredGroup): CoreOutcome {
    const key = groupKey(command.accountId, command.codGroupId)
    const deadline = this.cancelDeadlines.get(key)
    if (deadline === undefined || command.timestamp < deadline.expiresAtMs)
      return { ok: false, ...protocolError(205, { param: 'codGroupId' }).body }
    return this.#cancelGroup(command.accountId, command.codGroupId, command.timestamp)
  }

  /** Ends a group's countdown and cancels its open orders (reason cancelOnDisconnect). */
  #cancelGroup(
    accountId: number,
    codGroupId: number,
    timestamp: number,
  ): CoreOutcome & { ok: true } {
    this.cancelDeadlines.delete(groupKey(accountId, codGroupId))
    this.#earliestCancelDeadlineMs = undefined
    const result = this.engine.execute({
      type: 'cancelOrders',
      timestamp,
      accountId,
      codGroupId,
    })
    const events = this.#log.take()
    if (!result.ok) throw new LedgerInvariantError(`group cancel refused: ${result.error}`)
    this.#settle(events)
    return { ok: true, events, orderIds: 'orderIds' in result ? result.orderIds : [] }
  }

  /**
   * The countdowns that have run out by `nowMs`. Asked before every command: while none has, it
   * allocates nothing.
   */
  expiredCancelDeadlines(nowMs: number): readonly CancelDeadline[] {
    if (this.earliestCancelDeadlineMs() > nowMs) return noDeadlines
    const expired: CancelDeadline[] = []
    for (const deadline of this.cancelDeadlines.values())
      if (deadline.expiresAtMs <= nowMs) expired.push(deadline)
    return expired
  }

  /** When the next countdown runs out (Infinity: none runs); asked before every command. */
  earliestCancelDeadlineMs(): number {
    if (this.#earliestCancelDeadlineMs === undefined) {
      let earliest = Number.POSITIVE_INFINITY
      for (const deadline of this.cancelDeadlines.values())
        earliest = Math.min(earliest, deadline.expiresAtMs)
      this.#earliestCancelDeadlineMs = earliest
    }
    return this.#earliestCancelDeadlineMs
  }

  #place(command: PlaceOrder): CoreOutcome {
    // The history keeps orders by id alone: an id it holds, of any market, is not taken again
    // (the engine refuses the ids of its own market's open and recent orders the same way).
    if (this.history.holds(command.orderId))
      return { ok: false, ...protocolError(205, { param: 'orderId' }).body }
    // Only while the group's countdown runs: an order in a group nobody watches over, or one
    // whose countdown ran out, would rest without the protection its owner asked for.
    if (command.codGroupId !== undefined && command.codGroupId !== 0) {
      const deadline = this.cancelDeadlines.get(groupKey(command.accountId, command.codGroupId))
      if (deadline === undefined || deadline.expiresAtMs <= command.timestamp)
        return { ok: false, ...protocolError(205, { param: 'codGroupId' }).body }
    }
    const spec = this.engine.market(command.market)
    let need = 0n
    let asset = ''
    if (spec !== null) {
      asset = command.side === 'buy' ? spec.quote : spec.base
      const available = this.ledger.balance(command.accountId, asset).available
      const required = holdRequirement(
        spec,
        {
          side: command.side,
          orderType: command.orderType,
          amountRemaining: command.amount ?? null,
          amountQuoteRemaining: command.amountQuote ?? null,
          price: command.price ?? null,
        },
        Math.max(command.makerFeePpm, command.takerFeePpm),
        this.#holdContext(command.market, command.disableMarketProtection === true),
      )
      need = required
      // Checked before the engine runs, so a refusal changes nothing; an order the engine would
      // refuse anyway is refused for that, whatever its owner holds.
      if (need > available) return this.engine.placeRejection(command) ?? insufficient()
    }
    const result = this.engine.execute(command)
    const events = this.#log.take()
    if (!result.ok) return result
    if (need > 0n)
      this.ledger.hold(command.accountId, asset, need, command.orderId, command.timestamp)
    this.#holds.set(`${command.market} ${command.orderId}`, {
      accountId: command.accountId,
      asset,
      remaining: need,
      feePpm: Math.max(command.makerFeePpm, command.takerFeePpm),
    })
    this.#settle(events)
    return { ok: true, events }
  }

  #update(command: CoreUpdateOrder): CoreOutcome {
    const spec = this.engine.market(command.market)
    const current = spec && this.#findOpenOrder(command)
    let delta = 0n
    let hold: Hold | undefined
    if (spec && current) {
      hold = this.#holds.get(`${command.market} ${current.orderId}`)
      if (hold === undefined)
        throw new LedgerInvariantError(`open order ${current.orderId} has no hold`)
      const amountRemaining =
        command.amountRemaining ??
        (command.amount !== undefined
          ? command.amount - current.filledAmount
          : current.amountRemaining)
      const amountQuoteRemaining =
        command.amountQuote !== undefined
          ? command.amountQuote - current.filledAmountQuote
          : current.amountQuoteRemaining
      const required = holdRequirement(
        spec,
        {
          side: current.side,
          orderType: current.orderType,
          amountRemaining,
          amountQuoteRemaining,
          price: command.price ?? current.price,
          ...(command.holdRules === 2
            ? { fees: this.engine.orderFees(command.market, current.orderId) }
            : {}),
        },
        hold.feePpm,
        this.#holdContext(command.market, current.disableMarketProtection),
      )
      delta = required - hold.remaining
      // An update the engine would refuse gets that answer whatever the balance, as a new order.
      if (delta > this.ledger.balance(hold.accountId, hold.asset).available)
        return this.engine.updateRejection(command) ?? insufficient()
    }
    const result = this.engine.execute(command)
    const events = this.#log.take()
    if (!result.ok) return result
    if (hold && current) {
      if (delta > 0n)
        this.ledger.hold(hold.accountId, hold.asset, delta, current.orderId, command.timestamp)
      if (delta < 0n)
        this.ledger.release(hold.accountId, hold.asset, -delta, current.orderId, command.timestamp)
      hold.remaining += delta
    }
    this.#settle(events)
    return { ok: true, events }
  }

  #holdContext(market: string, disableMarketProtection: boolean): HoldContext {
    const ticker = this.engine.ticker(market)
    return { bestBid: ticker?.bestBid ?? 0, bestAsk: ticker?.bestAsk ?? 0, disableMarketProtection }
  }

  #findOpenOrder(command: UpdateOrder): OrderState | undefined {
    if (command.clientOrderId !== undefined) {
      return this.engine
        .openOrders(command.market, command.accountId)
        .find((order) => order.clientOrderId === command.clientOrderId)
    }
    const order =
      command.orderId === undefined ? null : this.engine.getOrder(command.market, command.orderId)
    return order && order.accountId === command.accountId && openStatuses.has(order.status)
      ? order
      : undefined
  }

  /** Moves funds for every trade of a command, then gives back what closed orders still hold. */
  #settle(events: readonly EngineEvent[]): void {
    this.history.record(events)
    let pending: FillEvent[] = []
    const finalStatus = new Map<string, { orderId: string; market: string; timestamp: number }>()
    /** Orders the command changed that stay open, as the command left them. */
    let stillOpen: Map<string, OrderState> | undefined // made for the first such order only
    for (const event of events) {
      if (event.type === 'fill') pending.push(event)
      else if (event.type === 'trade') {
        this.#settleTrade(pending)
        this.stats.record(event, pending[0]!.quote)
        pending = []
      } else if (event.type === 'order') {
        const key = `${event.market} ${event.orderId}`
        if (openStatuses.has(event.status)) {
          finalStatus.delete(key)
          stillOpen ??= new Map()
          stillOpen.set(key, event)
        } else {
          stillOpen?.delete(key)
          finalStatus.set(key, {
            orderId: event.orderId,
            market: event.market,
            timestamp: event.updated,
          })
        }
      }
    }
    if (pending.length > 0) throw new LedgerInvariantError('fills without their trade')
    if (stillOpen !== undefined) for (const [key, order] of stillOpen) this.#trimHold(key, order)
    for (const [key, order] of finalStatus) {
      const hold = this.#holds.get(key)
      if (hold === undefined) continue
      if (hold.remaining > 0n) {
        this.ledger.release(
          hold.accountId,
          hold.asset,
          hold.remaining,
          order.orderId,
          order.timestamp,
        )
      }
      this.#holds.delete(key)
    }
  }

  /**
   * Gives back what an open order with a limit price holds beyond what its rest can still spend
   * (`holdRequirement`, the bound an update sets too): after fills at a better price than its
   * limit, or an amount taken off by self-trade prevention (decrementAndCancel), which before
   * stayed held until the order closed. Only ever a release: a journal replayed from before
   * this rule leaves more available at each step, never less, so every command in it is
   * accepted again as it was.
   */
  #trimHold(key: string, order: OrderState): void {
    if (order.price === null) return // a market order held by its band closes in its command
    const hold = this.#holds.get(key)
    const spec = this.engine.market(order.market)
    // Open in the engine as in the event (the command is over): a rest it does not know is not
    // trimmed, as the fee of the rest alone could fall short.
    const fees = this.engine.orderFees(order.market, order.orderId)
    if (hold === undefined || spec === null || fees === null) return
    const required = holdRequirement(
      spec,
      {
        side: order.side,
        orderType: order.orderType,
        amountRemaining: order.amountRemaining,
        amountQuoteRemaining: order.amountQuoteRemaining,
        price: order.price,
        fees,
      },
      hold.feePpm,
      // The best prices bound only a market order's hold: one with a limit price needs none.
      noHoldContext,
    )
    const excess = hold.remaining - required
    if (excess <= 0n) return
    this.ledger.release(hold.accountId, hold.asset, excess, order.orderId, order.updated)
    hold.remaining = required
  }

  #settleTrade(fills: readonly FillEvent[]): void {
    const buy = fills.find((fill) => fill.side === 'buy')
    const sell = fills.find((fill) => fill.side === 'sell')
    if (fills.length !== 2 || !buy || !sell)
      throw new LedgerInvariantError('a trade needs one buy and one sell fill')
    const spec = this.engine.market(buy.market)
    if (spec === null) throw new LedgerInvariantError(`fill in unknown market ${buy.market}`)
    const quote = toLedgerUnits(buy.quote, spec.quoteDecimals)
    const base = toLedgerUnits(buy.amount, spec.quantityDecimals)
    const buyerFee = toLedgerUnits(buy.fee, spec.quoteDecimals)
    const sellerFee = toLedgerUnits(sell.fee, spec.quoteDecimals)
    this.ledger.settleFill({
      reference: `${buy.market} ${buy.fillId}`,
      timestampMs: buy.timestamp,
      base: spec.base,
      quote: spec.quote,
      buyer: buy.accountId,
      seller: sell.accountId,
      baseAmount: base,
      quoteAmount: quote,
      buyerFee,
      sellerFee,
    })
    this.#spend(`${buy.market} ${buy.orderId}`, quote + buyerFee)
    this.#spend(`${sell.market} ${sell.orderId}`, base)
    // Volume in euros: the markets quoted in euros (all of the listing's) count.
    if (spec.quote === 'EUR') {
      this.volume.record(buy.accountId, buy.timestamp, quote)
      this.volume.record(sell.accountId, sell.timestamp, quote)
    }
  }

  #spend(key: string, amount: bigint): void {
    const hold = this.#holds.get(key)
    if (hold === undefined || hold.remaining < amount) {
      throw new LedgerInvariantError(`order ${key} spent more than it held`)
    }
    hold.remaining -= amount
  }
}
