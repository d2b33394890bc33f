// Every order's latest state and its fills, per account, and the recent public trades per
// market: the data behind GET /order(s), /trades and /{market}/trades. Derived from engine
// events inside the core, so a journal replay rebuilds it.
import type { EngineEvent, FillEvent, OrderState, TradeEvent } from '@polder/engine'
import { limitWindowMs } from '../transfers/transferLimits.ts'
import { ArrayView, RawJson } from './stringifyInSlices.ts'

/**
 * An order's latest state and its fills, oldest first: all of them, or, for an order filled more
 * than `orderFillsKeptMax` times, its newest ones, `earlierFills` telling how many came before
 * (the fill archive has those: `FillArchive.earlierOfOrder`).
 */
export type OrderRecord = { state: OrderState; fills: FillEvent[]; earlierFills?: number }
/**
 * An order as kept: an open order's state as an object (it still changes), a closed order's as
 * its JSON text. Closed orders are most of the history, and one string each is far less work
 * for the garbage collector than an object of 30 fields with its boxed numbers: with the
 * history of objects, the exchange's minor GCs took 9-10 ms every ~430 ms at 5,000 orders/s.
 */
type KeptOrder = {
  market: string
  state: OrderState | string
  fills: FillEvent[]
  /** How many fills of the order came before those in `fills` (see `orderFillsKeptMax`). */
  earlierFills: number
  created: number
  /** When it closed (its last update), -1 while open: a number, so trims read no text. */
  closed: number
}

/** Where an order stands in an account's list: by its creation time, then its id. */
export type OrderKey = { created: number; orderId: string }

/** Whether `a` comes after `b` in an account's list (positive), before it, or is it (0). */
export function compareOrderKeys(a: OrderKey, b: OrderKey): number {
  if (a.created !== b.created) return a.created - b.created
  return a.orderId < b.orderId ? -1 : a.orderId > b.orderId ? 1 : 0
}

/** An account's orders in one market between two keys (both included) and created in a window. */
export type OrderWindow = {
  startMs: number
  endMs: number
  from?: OrderKey
  to?: OrderKey
  limit: number
}

/** Whether an order is in the window's keys and times (its limit aside). */
export function isInOrderWindow(key: OrderKey, window: OrderWindow): boolean {
  return (
    key.created >= window.startMs &&
    key.created <= window.endMs &&
    (window.from === undefined || compareOrderKeys(key, window.from) >= 0) &&
    (window.to === undefined || compareOrderKeys(key, window.to) <= 0)
  )
}

/** A closed order's creation time read from its kept text, without parsing the rest. */
function createdOf(text: string): number {
  const found = /"created":(\d+)/.exec(text)
  if (!found) throw new Error('a kept order has no creation time')
  return Number(found[1])
}

/** A closed order's last change (when it closed) read from its kept text (snapshot restore). */
function updatedOf(text: string): number {
  const found = /"updated":(\d+)/.exec(text)
  if (!found) throw new Error('a kept order has no update time')
  return Number(found[1])
}

/**
 * A closed order's state is kept as text; an open one's as it is (an open order's latest event,
 * whose `type` nothing reads). The text is the state's alone: an event's `type` is cut off its
 * front, so the archive's rows and the snapshots hold one form whichever way the state came.
 */
function keepState(state: OrderState): OrderState | string {
  if (openStatuses.has(state.status)) return state
  const text = JSON.stringify(state)
  return text.startsWith(eventHead) ? `{${text.slice(eventHead.length)}` : text
}

/** How an order event's JSON text starts (the engine puts `type` first). */
const eventHead = '{"type":"order",'

function stateOf(kept: KeptOrder): OrderState {
  return typeof kept.state === 'string' ? (JSON.parse(kept.state) as OrderState) : kept.state
}

/** A kept order as read: its state, its fills, and how many came before them if any did. */
function recordOf(kept: KeptOrder, state = stateOf(kept)): OrderRecord {
  const record: OrderRecord = { state, fills: kept.fills }
  if (kept.earlierFills > 0) record.earlierFills = kept.earlierFills
  return record
}

/**
 * Lets go of an order's oldest fills down to `orderFillsKeptMax`, counting them. The fills are
 * put in a new array: a snapshot being written holds the old one and its length then.
 */
function trimFills(kept: KeptOrder): void {
  if (kept.fills.length <= orderFillsKeptMax * 2) return
  const over = kept.fills.length - orderFillsKeptMax
  kept.fills = kept.fills.slice(over)
  kept.earlierFills += over
}

/** Public trades kept per market for `/{market}/trades` (its limit is at most 1000). */
export const recentTradesPerMarketMax = 1_000
/**
 * Orders and fills kept per account. Open orders are always kept; beyond this the oldest closed
 * orders and fills are forgotten, so memory stays bounded under the simulator's steady flow.
 * Every fill is also in the fill archive (src/storage/fillArchive.ts), every closed order in the
 * order archive (src/storage/orderArchive.ts), but the simulator's.
 */
export const ordersPerAccountMax = 5_000
/**
 * A closed order is kept at least this long after it closed (by the times of the core's own
 * events, so a replay forgets the same ones): the order archive writes it within a second or
 * two, and a crash before that write is caught up from what the core holds at the next start.
 * Longer would hold more in memory: an account placing 1,000 orders a second keeps 10 s of them.
 */
export const closedOrderKeptMs = 10_000
export const fillsPerAccountMax = 5_000
/**
 * Fills kept with an order: past twice this many, its oldest are let go down to this many, and
 * counted (`earlierFills`). A large resting order hit by many small takers would otherwise carry
 * them all while it rests, and in its archive row: a million euros at the 5 EUR minimum is some
 * 200,000 fills, about 80 MB. Every fill is in the fill archive (but the simulator's), where
 * `GET /order` and the other order reads find the earlier ones.
 */
export const orderFillsKeptMax = 1_000
/**
 * An account with no order event or fill for this long has its closed orders and its fills let
 * go, whatever their count (by the times of the core's events, so a replay lets go of the same
 * ones): an account that stops below `ordersPerAccountMax` would otherwise keep them for good,
 * and one address opening accounts could fill the memory with them. The archives hold them all
 * (but the simulator's), and reads go there for what the core does not hold.
 */
export const closedKeptMs = 3_600_000
const openStatuses = new Set(['new', 'partiallyFilled', 'awaitingTrigger'])

/** A deposit or withdrawal, amounts in ledger units (10^-18) as decimal strings. */
export type Transfer = {
  /**
   * The account's count of transfers when this one was recorded (1, 2, …): its id in the
   * transfer archive (src/storage/transferArchive.ts). The newest kept transfer has the count
   * (the trim never takes it). Snapshots from before 2026-11-27 lack it: their kept transfers
   * are numbered on from the highest number among them when read back (from 1 when none has one).
   */
  seq: number
  kind: 'deposit' | 'withdraw'
  timestamp: number
  asset: string
  amount: string
  fee: string
  reference: string
  address?: string
  paymentId?: string
  txId?: string
  /** A withdrawal's status (protocol §4.6); absent: completed. */
  status?: string
  /** A withdrawal's value in EUR cents when requested (for the daily withdrawal limits). */
  valueEurCents?: number
  /** The payment method of a euro deposit. */
  method?: string
}

/** Kept per account: the newest, and every one of the last `limitWindowMs` (daily limits). */
export const transfersPerAccountMax = 5_000

/** A transfer as recorded or changed by a command, for the transfer archive. */
export type TransferChange = { accountId: number; transfer: Transfer }

export type OrderHistorySnapshot = {
  transfers?: [accountId: number, transfers: Transfer[]][]
  /**
   * An array when read back; an ArrayView when captured (see `snapshot`), where a closed
   * order's state is its kept JSON text.
   */
  orders: Iterable<
    [
      key: string,
      record: { state: OrderState | RawJson; fills: FillEvent[]; earlierFills?: number },
    ]
  >
  /**
   * Each account's orders as `${market} ${orderId}`, oldest first: what snapshots held before
   * 2026-11-27, read back still. Empty since, so that a build of before then, given a newer
   * snapshot, lists none of its orders (the order archive has the closed ones) instead of taking
   * ids for keys (its trim of an account's orders would then fail while applying a command).
   */
  byAccount: [accountId: number, keys: string[]][]
  /** Each account's order ids, oldest first (since 2026-11-27). */
  orderIdsByAccount?: [accountId: number, orderIds: string[]][]
  fillsByAccount: [accountId: number, fills: FillEvent[]][]
  trades: [market: string, trades: TradeEvent[]][]
  /**
   * The accounts' last activity in the order kept (see `closedKeptMs`); absent from snapshots
   * made before 2026-11-28, when it is worked out from what the accounts keep.
   */
  lastActive?: [accountId: number, atMs: number][]
}

/** The order id in a snapshot's `${market} ${orderId}` key (neither has a space). */
function orderIdOfKey(key: string): string {
  return key.slice(key.indexOf(' ') + 1)
}

export class OrderHistory {
  /**
   * By order id alone: ids are unique across markets (UUIDv7 from one generator, orderIds.ts),
   * and the id of an event is the string the map holds, whose hash V8 keeps with it. A key made
   * as `${market} ${orderId}` was a new string to hash at every lookup: 1.1 µs more a lookup in
   * a map of 200,000 orders, and an order's events and fills look it up several times.
   */
  readonly #orders = new Map<string, KeptOrder>()
  /** Each account's order ids, oldest first. */
  readonly #byAccount = new Map<number, string[]>()
  readonly #fillsByAccount = new Map<number, FillEvent[]>()
  readonly #trades = new Map<string, TradeEvent[]>()
  readonly #transfers = new Map<number, Transfer[]>()
  /**
   * The accounts with closed orders or fills kept, by the time of their last order event or
   * fill, least recent first (an account touched moves to the end): see `closedKeptMs`.
   */
  readonly #lastActive = new Map<number, number>()
  /**
   * Transfers recorded or changed since `takeTransferChanges` was last called (copies are made
   * there): what the command just applied did, for the archive. Not part of the history's state.
   */
  #transferChanges: TransferChange[] = []

  /**
   * The history as data that later commands do not change: every container is copied (lists
   * grow and are trimmed, transfers change status), while order states and events are never
   * mutated once recorded. So the snapshot can be written out a slice at a time while the
   * exchange goes on. The orders, the largest part, are kept as references in flat arrays (an
   * order's latest state and how many fills it had), each entry built only when written:
   * copying every record into new objects held the event loop 65-80 ms at 70,000 orders, and
   * the next minor GC as long again.
   */
  snapshot(): OrderHistorySnapshot {
    const count = this.#orders.size
    const keys = new Array<string>(count)
    const markets = new Array<string>(count)
    const states = new Array<OrderState | string>(count)
    const fills = new Array<FillEvent[]>(count)
    const fillCounts = new Uint32Array(count)
    const earlierCounts = new Float64Array(count)
    let index = 0
    this.#orders.forEach((record, orderId) => {
      keys[index] = orderId
      markets[index] = record.market
      states[index] = record.state
      fills[index] = record.fills // only ever appended to (a trim puts a new array in its place)
      fillCounts[index] = record.fills.length
      earlierCounts[index] = record.earlierFills
      index += 1
    })
    return {
      transfers: [...this.#transfers].map(([accountId, transfers]) => [
        accountId,
        transfers.map((transfer) => ({ ...transfer })),
      ]),
      orders: new ArrayView(count, (at) => {
        const state = states[at]!
        return [
          `${markets[at]} ${keys[at]}`,
          {
            state: typeof state === 'string' ? new RawJson(state) : state,
            fills: fills[at]!.slice(0, fillCounts[at]),
            // Only when some were let go: other orders' snapshot entries stay as they were.
            ...(earlierCounts[at]! > 0 ? { earlierFills: earlierCounts[at]! } : {}),
          },
        ]
      }),
      byAccount: [],
      orderIdsByAccount: [...this.#byAccount].map(([accountId, ids]) => [accountId, [...ids]]),
      fillsByAccount: [...this.#fillsByAccount].map(([accountId, fills]) => [
        accountId,
        [...fills],
      ]),
      trades: [...this.#trades].map(([market, trades]) => [market, [...trades]]),
      lastActive: [...this.#lastActive],
    }
  }

  static restore(snapshot: OrderHistorySnapshot): OrderHistory {
    const history = new OrderHistory()
    for (const [key, record] of snapshot.orders) {
      // Captured text is already a closed order's kept form; read-back objects are sorted here.
      const state = record.state instanceof RawJson ? record.state.text : keepState(record.state)
      const market = key.slice(0, key.indexOf(' '))
      const { fills } = record
      const earlierFills = record.earlierFills ?? 0
      const kept: KeptOrder =
        typeof state === 'string'
          ? {
              market,
              state,
              fills,
              earlierFills,
              created: createdOf(state),
              closed: updatedOf(state),
            }
          : { market, state, fills, earlierFills, created: state.created, closed: -1 }
      history.#orders.set(orderIdOfKey(key), kept)
    }
    for (const [accountId, keys] of snapshot.byAccount)
      history.#byAccount.set(accountId, keys.map(orderIdOfKey))
    for (const [accountId, orderIds] of snapshot.orderIdsByAccount ?? [])
      history.#byAccount.set(accountId, orderIds)
    for (const [accountId, fills] of snapshot.fillsByAccount)
      history.#fillsByAccount.set(accountId, fills)
    for (const [market, trades] of snapshot.trades) history.#trades.set(market, trades)
    for (const [, transfers] of snapshot.transfers ?? []) {
      // Transfers of a snapshot from before they were numbered are numbered on from the highest
      // number among them (from 1 when none has one; some have when a build of before wrote a
      // snapshot of a newer one's, and their numbers are the archive's).
      let seq = 0
      for (const transfer of transfers) seq = Math.max(seq, transfer.seq ?? 0)
      for (const transfer of transfers) transfer.seq ??= ++seq
    }
    for (const [accountId, transfers] of snapshot.transfers ?? [])
      history.#transfers.set(accountId, transfers)
    history.#addMissingFills()
    // As kept, in its order: a clock stepped back leaves it out of time order, and the accounts
    // let go next must be the ones the history that wrote it would let go.
    if (snapshot.lastActive !== undefined)
      for (const [accountId, atMs] of snapshot.lastActive) history.#lastActive.set(accountId, atMs)
    else history.#activeFromKept()
    return history
  }

  /** Each account's last activity, as what it keeps read back from a snapshot tells it. */
  #activeFromKept(): void {
    const lastMs = new Map<number, number>()
    const touch = (accountId: number, atMs: number) => {
      if (atMs > (lastMs.get(accountId) ?? Number.NEGATIVE_INFINITY)) lastMs.set(accountId, atMs)
    }
    for (const [accountId, ids] of this.#byAccount)
      for (const id of ids) {
        const kept = this.#orders.get(id)
        if (kept !== undefined)
          touch(accountId, kept.closed >= 0 ? kept.closed : stateOf(kept).updated)
      }
    for (const [accountId, fills] of this.#fillsByAccount)
      for (const fill of fills) touch(accountId, fill.timestamp)
    for (const [accountId, atMs] of [...lastMs].sort((a, b) => a[1] - b[1]))
      this.#lastActive.set(accountId, atMs)
  }

  /**
   * Gives each order the fills of it that the accounts' recent fills hold and it lacks: before
   * 2026-11-26 a taker's fills that came before its first order event were not kept with it.
   */
  #addMissingFills(): void {
    const repaired = new Set<FillEvent[]>()
    for (const fills of this.#fillsByAccount.values())
      for (const fill of fills) {
        const kept = this.#order(fill.market, fill.orderId)
        if (kept === undefined || kept.earlierFills > 0) continue
        if (kept.fills.some((known) => known.fillId === fill.fillId)) continue
        kept.fills.push(fill)
        repaired.add(kept.fills)
      }
    for (const fills of repaired) fills.sort((a, b) => a.fillId - b.fillId)
  }

  record(events: readonly EngineEvent[]): void {
    // A taker's fills come before its first order event (one that trades at once is first
    // reported filled): they wait here for it.
    let early: Map<string, FillEvent[]> | undefined
    let latestMs: number | undefined
    for (const event of events) {
      if (event.type === 'order') {
        latestMs = event.updated
        this.#touch(event.accountId, event.updated)
        // The event is kept as the order's state, `type` and all (nothing reads it): copying
        // its 29 other fields into a new object cost as much as the rest of this loop.
        const state = event
        const { market, orderId } = event
        const known = this.#order(market, orderId)
        const closed = openStatuses.has(state.status) ? -1 : state.updated
        if (known) {
          known.state = keepState(state)
          known.closed = closed
        } else {
          const fills = early?.get(orderId) ?? []
          const kept: KeptOrder = {
            market,
            state: keepState(state),
            fills,
            earlierFills: 0,
            created: state.created,
            closed,
          }
          trimFills(kept)
          this.#orders.set(orderId, kept)
          const keys = this.#byAccount.get(event.accountId) ?? []
          keys.push(orderId)
          this.#byAccount.set(event.accountId, keys)
          // Tried again every 1,024 orders while too few have been closed long enough to go.
          const over = keys.length - ordersPerAccountMax * 2
          if (over > 0 && over % 1_024 === 1)
            this.#forgetClosed(keys, event.updated - closedOrderKeptMs)
        }
      } else if (event.type === 'fill') {
        const record = this.#order(event.market, event.orderId)
        if (record) {
          record.fills.push(event)
          trimFills(record)
        } else {
          early ??= new Map()
          const waiting = early.get(event.orderId)
          if (waiting) waiting.push(event)
          else early.set(event.orderId, [event])
        }
        const fills = this.#fillsByAccount.get(event.accountId) ?? []
        fills.push(event)
        this.#touch(event.accountId, event.timestamp)
        if (fills.length > fillsPerAccountMax * 2)
          fills.splice(0, fills.length - fillsPerAccountMax)
        this.#fillsByAccount.set(event.accountId, fills)
      } else if (event.type === 'trade') {
        const trades = this.#trades.get(event.market) ?? []
        trades.push(event)
        if (trades.length > recentTradesPerMarketMax * 2)
          trades.splice(0, trades.length - recentTradesPerMarketMax)
        this.#trades.set(event.market, trades)
      }
    }
    if (latestMs !== undefined) this.#letGoOlderThan(latestMs - closedKeptMs)
  }

  /** Marks the account active at `atMs`: the most recently active of all. */
  #touch(accountId: number, atMs: number): void {
    this.#lastActive.delete(accountId)
    this.#lastActive.set(accountId, atMs)
  }

  /**
   * Lets go of the closed orders and the fills of every account with neither an order event nor
   * a fill since `beforeMs`; their open orders stay.
   */
  #letGoOlderThan(beforeMs: number): void {
    for (const [accountId, lastMs] of this.#lastActive) {
      if (lastMs >= beforeMs) break
      this.#lastActive.delete(accountId)
      this.#fillsByAccount.delete(accountId)
      const ids = this.#byAccount.get(accountId) ?? []
      const open: string[] = []
      for (const id of ids) {
        const kept = this.#orders.get(id)!
        if (kept.closed < 0) open.push(id)
        else this.#orders.delete(id)
      }
      if (open.length === 0) this.#byAccount.delete(accountId)
      else this.#byAccount.set(accountId, open)
    }
  }

  recordTransfer(accountId: number, recorded: Omit<Transfer, 'seq'>): void {
    const transfers = this.#transfers.get(accountId) ?? []
    const transfer: Transfer = { seq: (transfers.at(-1)?.seq ?? 0) + 1, ...recorded }
    this.#transferChanges.push({ accountId, transfer })
    transfers.push(transfer)
    if (transfers.length > transfersPerAccountMax * 2) {
      // The oldest go, but never one the rolling daily withdrawal limits still count, nor a
      // withdrawal still under way (its next status must find it: the archive writes it again).
      // Such a withdrawal is stepped over, not stopped at: one stuck would otherwise keep all.
      const keptFromMs = transfer.timestamp - limitWindowMs
      const excess = transfers.length - transfersPerAccountMax
      const underWay: Transfer[] = []
      let forgotten = 0
      let index = 0
      for (; index < transfers.length && forgotten < excess; index += 1) {
        const oldest = transfers[index]!
        if (oldest.timestamp > keptFromMs) break
        if ((oldest.status ?? 'completed') === 'completed') forgotten += 1
        else underWay.push(oldest)
      }
      transfers.splice(0, index, ...underWay)
    }
    this.#transfers.set(accountId, transfers)
  }

  /** Sets the status of the account's transfer with `reference` (false when it is not kept). */
  setTransferStatus(accountId: number, reference: string, status: string): boolean {
    const transfers = this.#transfers.get(accountId) ?? []
    for (let index = transfers.length - 1; index >= 0; index -= 1) {
      const transfer = transfers[index]!
      if (transfer.reference !== reference) continue
      transfer.status = status
      this.#transferChanges.push({ accountId, transfer })
      return true
    }
    return false
  }

  /**
   * The transfers recorded or changed since the last call, each as it is now (a copy: a
   * withdrawal's status changes later), and forgets them.
   */
  takeTransferChanges(): TransferChange[] {
    if (this.#transferChanges.length === 0) return []
    const changes = this.#transferChanges.map(({ accountId, transfer }) => ({
      accountId,
      transfer: { ...transfer },
    }))
    this.#transferChanges = []
    return changes
  }

  /** Every account's kept transfers, oldest first (the archive's catch-up reads them). */
  keptTransfers(): IterableIterator<[accountId: number, transfers: readonly Transfer[]]> {
    return this.#transfers.entries()
  }

  /** The account's deposits or withdrawals, newest first. */
  transfersOf(accountId: number, kind: Transfer['kind']): Transfer[] {
    return (this.#transfers.get(accountId) ?? [])
      .filter((transfer) => transfer.kind === kind)
      .reverse()
  }

  /**
   * Drops the oldest closed orders until `ordersPerAccountMax` remain (open ones stay, and those
   * closed after `closedBeforeMs`).
   */
  #forgetClosed(keys: string[], closedBeforeMs: number): void {
    // `keys` are order ids.
    let excess = keys.length - ordersPerAccountMax
    const keptKeys: string[] = []
    for (const key of keys) {
      const { closed } = this.#orders.get(key)!
      if (excess > 0 && closed >= 0 && closed < closedBeforeMs) {
        this.#orders.delete(key)
        excess -= 1
      } else keptKeys.push(key)
    }
    keys.splice(0, keys.length, ...keptKeys)
  }

  /**
   * A closed order as kept: its state's JSON text and its fills, oldest first, neither read nor
   * copied (undefined for an open order, or one not held).
   */
  closedOrderText(
    market: string,
    orderId: string,
  ): { stateText: string; fills: readonly FillEvent[]; earlierFills: number } | undefined {
    const kept = this.#order(market, orderId)
    if (kept === undefined || typeof kept.state !== 'string') return undefined
    return { stateText: kept.state, fills: kept.fills, earlierFills: kept.earlierFills }
  }

  order(market: string, orderId: string): OrderRecord | undefined {
    const kept = this.#order(market, orderId)
    return kept === undefined ? undefined : recordOf(kept)
  }

  /**
   * Whether an order with this id is held, in any market: the core refuses a new order with the
   * id of one held (ids are unique by construction; this keeps one order to an id if not).
   */
  holds(orderId: string): boolean {
    return this.#orders.has(orderId)
  }

  /** The order with this id if it is in this market (an id of another market's is not). */
  #order(market: string, orderId: string): KeptOrder | undefined {
    const kept = this.#orders.get(orderId)
    return kept?.market === market ? kept : undefined
  }

  /**
   * The account's orders in one market in the window, newest first (by creation time, then id),
   * at most its limit. Only the orders found are read: the rest are told apart by their keys.
   */
  ordersIn(accountId: number, market: string, window: OrderWindow): OrderRecord[] {
    const found: { key: OrderKey; kept: KeptOrder }[] = []
    for (const orderId of this.#byAccount.get(accountId) ?? []) {
      const kept = this.#orders.get(orderId)!
      if (kept.market !== market) continue
      const orderKey = { created: kept.created, orderId }
      if (isInOrderWindow(orderKey, window)) found.push({ key: orderKey, kept })
    }
    found.sort((a, b) => compareOrderKeys(b.key, a.key))
    return found.slice(0, window.limit).map(({ kept }) => recordOf(kept))
  }

  /** Every closed order that closed at or after `sinceMs`, in the order they closed (catch-up). */
  closedSince(sinceMs: number): OrderRecord[] {
    const found: KeptOrder[] = []
    for (const kept of this.#orders.values())
      if (kept.closed >= 0 && kept.closed >= sinceMs) found.push(kept)
    return found.sort((a, b) => a.closed - b.closed).map((kept) => recordOf(kept))
  }

  /** When the most recently closed order the history holds closed; undefined for none. */
  newestCloseMs(): number | undefined {
    let newest: number | undefined
    for (const kept of this.#orders.values())
      if (kept.closed >= 0 && (newest === undefined || kept.closed > newest)) newest = kept.closed
    return newest
  }

  /** The account's order in a market with this clientOrderId, the newest if several. */
  orderByClientId(
    accountId: number,
    market: string,
    clientOrderId: string,
  ): OrderRecord | undefined {
    // A closed order's text is searched before it is parsed: most of them are not the one.
    const needle = `"clientOrderId":${JSON.stringify(clientOrderId)}`
    const keys = this.#byAccount.get(accountId) ?? []
    for (let index = keys.length - 1; index >= 0; index -= 1) {
      const kept = this.#orders.get(keys[index]!)!
      if (kept.market !== market) continue
      if (typeof kept.state === 'string' && !kept.state.includes(needle)) continue
      const state = stateOf(kept)
      if (state.clientOrderId === clientOrderId) return recordOf(kept, state)
    }
    return undefined
  }

  /** The account's fills, newest first, optionally in one market. */
  fillsOf(accountId: number, market?: string): FillEvent[] {
    const fills = this.#fillsByAccount.get(accountId) ?? []
    return fills.filter((fill) => market === undefined || fill.market === market).reverse()
  }

  /** Every account's recent fills, oldest first (the fill archive's catch-up reads them). */
  recentFills(): IterableIterator<[accountId: number, fills: readonly FillEvent[]]> {
    return this.#fillsByAccount.entries()
  }

  /** Every market's recent public trades, oldest first (the trade archive's catch-up reads them). */
  recentTrades(): IterableIterator<[market: string, trades: readonly TradeEvent[]]> {
    return this.#trades.entries()
  }
}
