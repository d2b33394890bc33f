// Double-entry ledger. Every movement is one journal entry of postings that sum to zero per
// asset; an account's balance is split in two buckets, `available` and `inOrder` (held for open
// orders). Two system accounts take the other side of flows that cross the exchange's edge:
// `external` (deposits in, withdrawals out) and `fees` (fees collected). So for every asset:
//   sum of customer balances + fees collected = deposits − withdrawals
// which `checkInvariant` verifies.
//
// Amounts are bigint counts of 10^-18 of an asset ("ledger units"), finer than any asset's or
// market's scale, so fills and fees in engine units convert exactly.

export const ledgerDecimals = 18

export type Bucket = 'available' | 'inOrder'
/** `staking` holds what customers have staked: still theirs, counted with their balances. */
export type SystemAccount = 'external' | 'fees' | 'staking'
export type Holder = number | SystemAccount

export type Posting = { holder: Holder; asset: string; bucket: Bucket; delta: bigint }

export type EntryKind =
  | 'deposit'
  | 'withdrawal'
  | 'hold'
  | 'release'
  | 'fill'
  | 'fee'
  | 'stake'
  | 'unstake'
  | 'reward'

export type LedgerEntry = {
  entryId: number
  kind: EntryKind
  /** What caused it: an order id, a fill id, a deposit id. */
  reference: string
  timestampMs: number
  postings: readonly Posting[]
}

export type Balance = { available: bigint; inOrder: bigint }

export class InsufficientBalanceError extends Error {
  override name = 'InsufficientBalanceError'
}

export class LedgerInvariantError extends Error {
  override name = 'LedgerInvariantError'
}

/** Balances as plain JSON (bigints as decimal strings). */
export type LedgerSnapshot = {
  nextEntryId: number
  balances: [holder: Holder, asset: string, available: string, inOrder: string][]
}

export class Ledger {
  readonly #balances = new Map<Holder, Map<string, Balance>>()
  #nextEntryId = 1

  snapshot(): LedgerSnapshot {
    const balances: LedgerSnapshot['balances'] = []
    for (const [holder, assets] of this.#balances) {
      for (const [asset, balance] of assets) {
        balances.push([holder, asset, balance.available.toString(), balance.inOrder.toString()])
      }
    }
    return { nextEntryId: this.#nextEntryId, balances }
  }

  static restore(snapshot: LedgerSnapshot): Ledger {
    const ledger = new Ledger()
    ledger.#nextEntryId = snapshot.nextEntryId
    for (const [holder, asset, available, inOrder] of snapshot.balances) {
      let assets = ledger.#balances.get(holder)
      if (!assets) {
        assets = new Map()
        ledger.#balances.set(holder, assets)
      }
      assets.set(asset, { available: BigInt(available), inOrder: BigInt(inOrder) })
    }
    return ledger
  }

  balance(holder: Holder, asset: string): Balance {
    const balance = this.#balances.get(holder)?.get(asset)
    return balance ? { ...balance } : { available: 0n, inOrder: 0n }
  }

  /** Every asset the holder has a non-zero balance in. */
  balances(holder: Holder): Map<string, Balance> {
    const result = new Map<string, Balance>()
    for (const [asset, balance] of this.#balances.get(holder) ?? []) {
      if (balance.available !== 0n || balance.inOrder !== 0n) result.set(asset, { ...balance })
    }
    return result
  }

  deposit(
    account: number,
    asset: string,
    amount: bigint,
    reference: string,
    timestampMs: number,
  ): LedgerEntry {
    const postings = movePostings(asset, amount, availableOf('external'), availableOf(account))
    return this.#post('deposit', reference, timestampMs, postings)
  }

  /** Sends `amount` out of the exchange; the account also pays `fee`, which the exchange keeps. */
  withdraw(
    account: number,
    asset: string,
    amount: bigint,
    reference: string,
    timestampMs: number,
    fee = 0n,
  ): LedgerEntry {
    assertPositive(amount)
    if (fee < 0n) throw new RangeError(`fee must not be negative, got ${fee}`)
    return this.#post('withdrawal', reference, timestampMs, [
      { holder: account, asset, bucket: 'available', delta: -(amount + fee) },
      { holder: 'external', asset, bucket: 'available', delta: amount },
      { holder: 'fees', asset, bucket: 'available', delta: fee },
    ])
  }

  /** A fee the account pays the exchange (a payment method's deposit fee): its own movement. */
  chargeFee(
    account: number,
    asset: string,
    amount: bigint,
    reference: string,
    timestampMs: number,
  ): LedgerEntry {
    const postings = movePostings(asset, amount, availableOf(account), availableOf('fees'))
    return this.#post('fee', reference, timestampMs, postings)
  }

  /** Moves `amount` between an account's available balance and the staking account. */
  stake(
    account: number,
    asset: string,
    amount: bigint,
    staking: boolean,
    reference: string,
    timestampMs: number,
  ): LedgerEntry {
    assertPositive(amount)
    const sign = staking ? 1n : -1n
    return this.#post(staking ? 'stake' : 'unstake', reference, timestampMs, [
      { holder: account, asset, bucket: 'available', delta: -sign * amount },
      { holder: 'staking', asset, bucket: 'available', delta: sign * amount },
    ])
  }

  /** A staking reward: new coins from the network, into the account's available balance. */
  reward(
    account: number,
    asset: string,
    amount: bigint,
    reference: string,
    timestampMs: number,
  ): LedgerEntry {
    const postings = movePostings(asset, amount, availableOf('external'), availableOf(account))
    return this.#post('reward', reference, timestampMs, postings)
  }

  /** Moves funds from available to inOrder for an order. */
  hold(
    account: number,
    asset: string,
    amount: bigint,
    reference: string,
    timestampMs: number,
  ): LedgerEntry {
    const postings = movePostings(asset, amount, availableOf(account), inOrderOf(account))
    return this.#post('hold', reference, timestampMs, postings)
  }

  /** Returns held funds to available (order canceled, filled below its hold, or updated). */
  release(
    account: number,
    asset: string,
    amount: bigint,
    reference: string,
    timestampMs: number,
  ): LedgerEntry {
    const postings = movePostings(asset, amount, inOrderOf(account), availableOf(account))
    return this.#post('release', reference, timestampMs, postings)
  }

  /**
   * Settles one fill: the buyer's held quote pays the seller, the seller's held base goes to the
   * buyer, and each side's fee (quote, taken from what it pays or receives) goes to `fees`.
   * A negative fee is a rebate paid out of `fees`.
   */
  settleFill(fill: {
    reference: string
    timestampMs: number
    base: string
    quote: string
    buyer: number
    seller: number
    baseAmount: bigint
    quoteAmount: bigint
    buyerFee: bigint
    sellerFee: bigint
  }): LedgerEntry {
    const { base, quote, buyer, seller } = fill
    return this.#post('fill', fill.reference, fill.timestampMs, [
      { holder: seller, asset: base, bucket: 'inOrder', delta: -fill.baseAmount },
      { holder: buyer, asset: base, bucket: 'available', delta: fill.baseAmount },
      {
        holder: buyer,
        asset: quote,
        bucket: 'inOrder',
        delta: -(fill.quoteAmount + fill.buyerFee),
      },
      {
        holder: seller,
        asset: quote,
        bucket: 'available',
        delta: fill.quoteAmount - fill.sellerFee,
      },
      { holder: 'fees', asset: quote, bucket: 'available', delta: fill.buyerFee + fill.sellerFee },
    ])
  }

  /** Per asset: customers + fees + external must be zero. Throws on a broken ledger. */
  checkInvariant(): Map<string, { customers: bigint; fees: bigint; netDeposits: bigint }> {
    const totals = new Map<string, { customers: bigint; fees: bigint; netDeposits: bigint }>()
    for (const [holder, assets] of this.#balances) {
      for (const [asset, balance] of assets) {
        const total = totals.get(asset) ?? { customers: 0n, fees: 0n, netDeposits: 0n }
        const amount = balance.available + balance.inOrder
        if (holder === 'external') total.netDeposits -= amount
        else if (holder === 'fees') total.fees += amount
        else {
          total.customers += amount
          if (balance.available < 0n || balance.inOrder < 0n) {
            throw new LedgerInvariantError(`account ${holder} has a negative ${asset} balance`)
          }
        }
        totals.set(asset, total)
      }
    }
    for (const [asset, total] of totals) {
      if (total.customers + total.fees !== total.netDeposits) {
        throw new LedgerInvariantError(
          `${asset}: customers ${total.customers} + fees ${total.fees} != deposits - withdrawals ${total.netDeposits}`,
        )
      }
    }
    return totals
  }

  #post(kind: EntryKind, reference: string, timestampMs: number, postings: Posting[]): LedgerEntry {
    // Each asset's postings sum to zero. An entry has two to six postings: each asset is summed
    // where it first appears, without a map made for every entry.
    for (let first = 0; first < postings.length; first += 1) {
      const { asset } = postings[first]!
      if (postings.findIndex((posting) => posting.asset === asset) < first) continue
      let sum = 0n
      for (let index = first; index < postings.length; index += 1)
        if (postings[index]!.asset === asset) sum += postings[index]!.delta
      if (sum !== 0n)
        throw new LedgerInvariantError(`${kind} ${reference}: ${asset} postings sum to ${sum}`)
    }
    // Customers may not go negative; check every posting before applying any.
    for (const posting of postings) {
      if (typeof posting.holder !== 'number' || posting.delta >= 0n) continue
      const current = this.balance(posting.holder, posting.asset)[posting.bucket]
      if (current + posting.delta < 0n) {
        throw new InsufficientBalanceError(
          `account ${posting.holder} has ${current} ${posting.asset} ${posting.bucket}, needs ${-posting.delta}`,
        )
      }
    }
    for (const posting of postings) {
      if (posting.delta === 0n) continue
      let assets = this.#balances.get(posting.holder)
      if (!assets) {
        assets = new Map()
        this.#balances.set(posting.holder, assets)
      }
      const balance = assets.get(posting.asset) ?? { available: 0n, inOrder: 0n }
      balance[posting.bucket] += posting.delta
      assets.set(posting.asset, balance)
    }
    // Entries are returned, not kept: the ledger is derived state, rebuilt from the command
    // journal, so keeping every entry would only grow memory.
    return { entryId: this.#nextEntryId++, kind, reference, timestampMs, postings }
  }
}

/** One of a holder's two balances of an asset. */
type Place = { holder: Holder; bucket: Bucket }
const availableOf = (holder: Holder): Place => ({ holder, bucket: 'available' })
const inOrderOf = (holder: Holder): Place => ({ holder, bucket: 'inOrder' })

/** The two postings that move a positive `amount` of `asset` from one balance to another. */
function movePostings(asset: string, amount: bigint, from: Place, to: Place): Posting[] {
  assertPositive(amount)
  // Postings keep one key order (one object shape): hold and release run for every order.
  return [
    { holder: from.holder, asset, bucket: from.bucket, delta: -amount },
    { holder: to.holder, asset, bucket: to.bucket, delta: amount },
  ]
}

function assertPositive(amount: bigint): void {
  if (amount <= 0n) throw new RangeError(`amount must be positive, got ${amount}`)
}

/** 10^0 to 10^18 as bigints, computed once (an exponentiation made a new bigint at every call). */
const powersOfTen = Array.from({ length: ledgerDecimals + 1 }, (_, power) => 10n ** BigInt(power))

/** Ledger units in one unit of 10^-decimals. */
function unitScale(decimals: number): bigint {
  const scale = Number.isInteger(decimals) ? powersOfTen[ledgerDecimals - decimals] : undefined
  if (scale === undefined) throw new RangeError(`decimals ${decimals} out of range`)
  return scale
}

/** Converts an integer count of 10^-decimals units to ledger units. */
export function toLedgerUnits(units: number | bigint, decimals: number): bigint {
  return BigInt(units) * unitScale(decimals)
}

/** Formats ledger units as a plain decimal string with `decimals` digits, rounding down. */
export function formatLedgerUnits(amount: bigint, decimals: number): string {
  const negative = amount < 0n
  const scaled = (negative ? -amount : amount) / unitScale(decimals)
  const digits = scaled.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals)
  return `${negative ? '-' : ''}${whole}${decimals > 0 ? `.${fraction}` : ''}`
}

/** As `formatLedgerUnits`, without the fraction's trailing zeros ("5.00000000" → "5"). */
export function formatLedgerAmount(amount: bigint, decimals: number): string {
  const text = formatLedgerUnits(amount, decimals)
  return decimals > 0 ? text.replace(/\.?0+$/, '') : text
}
