// Every market's public trades, kept for `/{market}/trades` beyond what the core holds in
// memory (its newest 1,000 per market, a few hours on a quiet market): the protocol lets a
// client ask for any window of up to 24 hours, and clients such as ccxt's fetchTrades(since)
// do. A projection of durable trades, fed after each journal commit, written in batches.
//
// - Embedded default: `trades.sqlite` in the data directory (node:sqlite, WAL), for the reason
//   the journal is there: an insert costs microseconds on the event loop, where PGlite's cost a
//   thread of its own that the two cores do not have to spare under load.
// - PostgreSQL (DATABASE_URL): the `public_trades` table (migration 6).
//
// A trade is listed from the moment it is added (reads take the written rows and the waiting
// ones); it is written within `tradeFlushIntervalMs`, in one transaction with the others that
// came meanwhile. A failed write is reported and tried again a second later, its trades still
// listed. A crash loses at most the unwritten batch, some 100 ms of trades: on start the server
// writes them again from the core's recent trades (`catchUp`), which its snapshot and the journal
// replay rebuild, and which always reach back past that batch (1,000 or more per market).
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { Worker } from 'node:worker_threads'
import type { Side, TradeEvent } from '@polder/engine'
import { startCheckpointer, stopCheckpointer } from './journalBackends.ts'
import type { StorageLocation } from './openStorage.ts'
import type { SqlDriver } from './sqlDriver.ts'

/** Inclusive bounds of a listing, newest first, at most `limit`. */
export type TradeWindow = {
  startMs: number
  endMs: number
  fromId: number
  toId: number
  limit: number
}

/** Queued trades are written this long after the first of them arrives. */
export const tradeFlushIntervalMs = 100
/** Rows deleted in one step of a prune, the event loop running in between. */
export const tradePruneRowsPerStep = 2_000
/** How long after a failed write it is tried again. */
const tradeRetryMs = 1_000
/** Trades kept waiting while writes fail (an hour of the simulator, 40 s of the heaviest load). */
export const tradeQueueMax = 1_000_000
/** Trades written in one transaction at most. */
const tradeWriteRowsMax = 10_000

type PruneStep = { market: string; beforeMs: number; throughId: number; limit: number }

type Row = {
  market: string
  trade_id: number | string
  timestamp_ms: number | string
  price: number | string
  amount: number | string
  side: string
}

function tradeOf(row: Row): TradeEvent {
  return {
    type: 'trade',
    market: row.market,
    tradeId: Number(row.trade_id),
    timestamp: Number(row.timestamp_ms),
    price: Number(row.price),
    amount: Number(row.amount),
    side: row.side as Side,
  }
}

export abstract class TradeArchive {
  abstract readonly kind: 'sqlite' | 'sql'
  /** Added, not yet being written. */
  #pending: TradeEvent[] = []
  /** Being written now (listed from memory until the write is done). */
  #writingBatch: readonly TradeEvent[] = []
  #writing: Promise<void> = Promise.resolve()
  #timer: NodeJS.Timeout | undefined
  /** The last write failed: the next is tried `tradeRetryMs` later, not at every trade. */
  #failing = false
  /** Trades dropped since the queue last overflowed (reported once per overflow). */
  #droppedReported = false
  #pruning: Promise<number> | undefined
  #closed = false
  #onError: (error: Error) => void = () => {}
  readonly #queueMax: number

  constructor(options: { queueMax?: number } = {}) {
    this.#queueMax = options.queueMax ?? tradeQueueMax
  }

  /** Told of a failed write (its trades stay queued and are tried again a second later). */
  onError(listener: (error: Error) => void): void {
    this.#onError = listener
  }

  /** Queues a durable trade; it is written within `tradeFlushIntervalMs`. */
  add(trade: TradeEvent): void {
    if (this.#closed) return
    this.#pending.push(trade)
    if (this.#pending.length > this.#queueMax) {
      // Writes have been failing for a long while: the oldest tenth goes at once (only the
      // core's recent trades, at the next start, can bring them back).
      const dropped = this.#pending.splice(0, Math.ceil(this.#queueMax / 10)).length
      if (!this.#droppedReported)
        this.#onError(
          new Error(`trade archive queue full: ${dropped} trades and more not archived`),
        )
      this.#droppedReported = true
    }
    this.#schedule(this.#failing ? tradeRetryMs : tradeFlushIntervalMs)
  }

  /** Arms the write timer unless one is armed (or the archive is closed). */
  #schedule(delayMs: number): void {
    if (this.#closed) return
    this.#timer ??= setTimeout(() => {
      this.#timer = undefined
      this.flush().catch(() => {}) // a failure reported, and retried, in the write itself
    }, delayMs).unref()
  }

  /**
   * Writes everything queued so far, after any write in progress, in transactions of at most
   * `tradeWriteRowsMax` with the event loop running in between (a backlog after an outage
   * does not hold it). A failure is reported through `onError` and retried a second later.
   */
  flush(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const write = async (): Promise<void> => {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, tradeWriteRowsMax)
        this.#writingBatch = batch
        try {
          await this.insert(batch)
        } catch (error) {
          // Kept for the next attempt, ahead of what arrived meanwhile.
          this.#pending = batch.concat(this.#pending)
          this.#failing = true
          this.#onError(error as Error)
          clearTimeout(this.#timer)
          this.#timer = undefined
          this.#schedule(tradeRetryMs)
          throw error
        } finally {
          this.#writingBatch = []
        }
        this.#failing = false
        this.#droppedReported = false
        if (this.#pending.length > 0) await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    const written = this.#writing.then(write)
    this.#writing = written.catch(() => {}) // a failed write does not stop later ones
    return written
  }

  /**
   * A market's trades in the window, newest first: those written, and those still waiting to
   * be (a trade is listed from the moment it is added, whether or not its write has succeeded).
   */
  async list(market: string, window: TradeWindow): Promise<TradeEvent[]> {
    const waiting: TradeEvent[] = []
    const take = (trades: readonly TradeEvent[]) => {
      for (const trade of trades)
        if (
          trade.market === market &&
          trade.timestamp >= window.startMs &&
          trade.timestamp <= window.endMs &&
          trade.tradeId >= window.fromId &&
          trade.tradeId <= window.toId
        )
          waiting.push(trade)
    }
    take(this.#writingBatch)
    take(this.#pending)
    const written = (await this.select(market, window)).map(tradeOf)
    if (waiting.length === 0) return written
    const byId = new Map<number, TradeEvent>()
    for (const trade of written) byId.set(trade.tradeId, trade)
    for (const trade of waiting) byId.set(trade.tradeId, trade)
    return [...byId.values()].sort((a, b) => b.tradeId - a.tradeId).slice(0, window.limit)
  }

  /**
   * Writes the trades of `recent` (per market, oldest first, as the core keeps them) newer than
   * the archive's newest of that market and not older than `keptFromMs`: what a crash kept from
   * being written. Returns how many were written, and the markets whose recent trades no longer
   * reach back to the archive's newest (a gap the core's memory cannot fill).
   */
  async catchUp(
    recent: Iterable<[market: string, trades: readonly TradeEvent[]]>,
    keptFromMs = 0,
  ): Promise<{ written: number; gaps: string[] }> {
    let written = 0
    const gaps: string[] = []
    for (const [market, trades] of recent) {
      const known = await this.newestId(market)
      const missing = trades.filter(
        (trade) => trade.tradeId > known && trade.timestamp >= keptFromMs,
      )
      if (missing.length === 0) continue
      if (known > 0 && missing[0]!.tradeId > known + 1) gaps.push(market)
      for (const trade of missing) this.add(trade)
      written += missing.length
    }
    // A store that refuses writes now does not keep the server from starting: the trades wait
    // in the queue, and the write is retried.
    await this.flush().catch(() => {})
    return { written, gaps }
  }

  /**
   * Deletes the trades of `markets` older than `beforeMs`, a step at a time, except each
   * market's newest `keepNewest` (a quiet market still shows its last trades); returns how many
   * went.
   */
  prune(beforeMs: number, keepNewest: number, markets: Iterable<string>): Promise<number> {
    if (this.#pruning !== undefined) return this.#pruning // one at a time
    const pruning = this.#prune(beforeMs, keepNewest, markets)
    this.#pruning = pruning
    const done = () => {
      if (this.#pruning === pruning) this.#pruning = undefined
    }
    pruning.then(done, done)
    return pruning
  }

  async #prune(beforeMs: number, keepNewest: number, markets: Iterable<string>): Promise<number> {
    let deleted = 0
    for (const market of markets) {
      const throughId = (await this.newestId(market)) - keepNewest
      for (;;) {
        if (this.#closed) return deleted
        const step = await this.deleteOlder({
          market,
          beforeMs,
          throughId,
          limit: tradePruneRowsPerStep,
        })
        deleted += step
        if (step < tradePruneRowsPerStep) break
        await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    return deleted
  }

  /** Writes what is queued, lets a prune stop at its next step, and closes the store. */
  async close(): Promise<void> {
    await this.flush().catch(() => {})
    this.#closed = true
    clearTimeout(this.#timer)
    await this.#pruning?.catch(() => {})
    await this.closeStore()
  }

  protected abstract insert(trades: readonly TradeEvent[]): Promise<void>
  protected abstract select(market: string, window: TradeWindow): Promise<Row[]>
  /**
   * The newest archived trade id of a market, 0 for none (one step down the primary key: a
   * `group by` over all markets read the whole table, 0.3 s at 4 million trades).
   */
  protected abstract newestId(market: string): Promise<number>
  /** Deletes up to `limit` trades of `market` older than `beforeMs` with ids up to `throughId`. */
  protected abstract deleteOlder(step: PruneStep): Promise<number>
  protected abstract closeStore(): Promise<void>
}

const selectColumns = 'market, trade_id, timestamp_ms, price, amount, side'
/** A trade's values in the order of `selectColumns`. */
const columnsOf = (trade: TradeEvent) =>
  [trade.market, trade.tradeId, trade.timestamp, trade.price, trade.amount, trade.side] as const

/** The archive in a SQLite file (or in memory when `path` is undefined). */
export class SqliteTradeArchive extends TradeArchive {
  readonly kind = 'sqlite'
  readonly #db: DatabaseSync
  readonly #insert: StatementSync
  readonly #select: StatementSync
  readonly #newest: StatementSync
  readonly #delete: StatementSync
  readonly #checkpointer: Worker | undefined

  constructor(path: string | undefined) {
    super()
    this.#db = new DatabaseSync(path ?? ':memory:')
    this.#db.exec(`
      pragma journal_mode = wal;
      pragma synchronous = normal;
      pragma wal_autocheckpoint = ${path === undefined ? 1000 : 0};
      create table if not exists public_trades (
        market text not null,
        trade_id integer not null,
        timestamp_ms integer not null,
        price integer not null,
        amount integer not null,
        side text not null,
        primary key (market, trade_id)
      ) strict, without rowid;
      create index if not exists public_trades_by_time on public_trades (market, timestamp_ms);
    `)
    // A trade already written (a catch-up after a crash) is the same trade: kept as it is.
    this.#insert = this.#db.prepare(
      `insert or ignore into public_trades (${selectColumns}) values (?, ?, ?, ?, ?, ?)`,
    )
    // Trade ids rise with time in each market, so the time window is first turned into ids
    // (two steps down the time index), and the rows are then read by id: read by id alone, a
    // window far in the past walked every newer trade (28 ms behind 200,000 of them).
    this.#select = this.#db.prepare(
      `select ${selectColumns} from public_trades
        where market = :market
          and trade_id between
            max(:fromId, coalesce((select trade_id from public_trades
              where market = :market and timestamp_ms >= :startMs
              order by timestamp_ms, trade_id limit 1), :toId + 1))
            and
            min(:toId, coalesce((select trade_id from public_trades
              where market = :market and timestamp_ms <= :endMs
              order by timestamp_ms desc, trade_id desc limit 1), -1))
          and timestamp_ms between :startMs and :endMs
        order by trade_id desc limit :limit`,
    )
    this.#newest = this.#db.prepare(
      'select max(trade_id) as trade_id from public_trades where market = ?',
    )
    this.#delete = this.#db.prepare(
      `delete from public_trades where market = :market and trade_id in
         (select trade_id from public_trades
           where market = :market and timestamp_ms < :beforeMs and trade_id <= :throughId
           limit :limit)`,
    )
    if (path !== undefined) {
      // Checkpoints (the only step that waits for the disk) off the event loop, as the journal's.
      this.#checkpointer = startCheckpointer(path, 1_000)
    }
  }

  protected async insert(trades: readonly TradeEvent[]): Promise<void> {
    this.#db.exec('begin')
    try {
      for (const trade of trades) this.#insert.run(...columnsOf(trade))
      this.#db.exec('commit')
    } catch (error) {
      if (this.#db.isTransaction) this.#db.exec('rollback')
      throw error
    }
  }

  protected async select(market: string, window: TradeWindow): Promise<Row[]> {
    return this.#select.all({ market, ...window }) as Row[]
  }

  protected async newestId(market: string): Promise<number> {
    return Number((this.#newest.get(market) as { trade_id: number | null }).trade_id ?? 0)
  }

  protected async deleteOlder(step: PruneStep): Promise<number> {
    return Number(this.#delete.run(step).changes)
  }

  protected async closeStore(): Promise<void> {
    await stopCheckpointer(this.#checkpointer)
    if (this.#db.isOpen) this.#db.close()
  }
}

/** Rows one insert statement carries (six parameters each, under PostgreSQL's 65,535). */
const insertRowsMax = 5_000

/** The archive in the `public_trades` table of a SQL database (migration 6). */
export class SqlTradeArchive extends TradeArchive {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver, options: { queueMax?: number } = {}) {
    super(options)
    this.#driver = driver
  }

  protected async insert(trades: readonly TradeEvent[]): Promise<void> {
    await this.#driver.transaction(async (tx) => {
      for (let from = 0; from < trades.length; from += insertRowsMax) {
        const chunk = trades.slice(from, from + insertRowsMax)
        const values = chunk.map((_, index) => {
          const at = index * 6
          return `($${at + 1}, $${at + 2}, $${at + 3}, $${at + 4}, $${at + 5}, $${at + 6})`
        })
        await tx.query(
          `insert into public_trades (${selectColumns}) values ${values.join(', ')}
           on conflict do nothing`,
          chunk.flatMap(columnsOf),
        )
      }
    })
  }

  protected select(market: string, window: TradeWindow): Promise<Row[]> {
    // The time window turned into ids first, as in SqliteTradeArchive.
    return this.#driver.query<Row>(
      `select ${selectColumns} from public_trades
        where market = $1
          and trade_id between
            greatest($4::bigint, coalesce((select trade_id from public_trades
              where market = $1 and timestamp_ms >= $2
              order by timestamp_ms, trade_id limit 1), $5::bigint + 1))
            and
            least($5::bigint, coalesce((select trade_id from public_trades
              where market = $1 and timestamp_ms <= $3
              order by timestamp_ms desc, trade_id desc limit 1), -1))
          and timestamp_ms between $2 and $3
        order by trade_id desc limit $6`,
      [market, window.startMs, window.endMs, window.fromId, window.toId, window.limit],
    )
  }

  protected async newestId(market: string): Promise<number> {
    const [row] = await this.#driver.query<{ trade_id: string | number | null }>(
      'select max(trade_id) as trade_id from public_trades where market = $1',
      [market],
    )
    return Number(row?.trade_id ?? 0)
  }

  protected async deleteOlder(step: PruneStep): Promise<number> {
    const rows = await this.#driver.query<{ n: string | number }>(
      `with gone as (
         delete from public_trades where market = $1 and trade_id in
           (select trade_id from public_trades
             where market = $1 and timestamp_ms < $2 and trade_id <= $3 limit $4)
         returning 1)
       select count(*) as n from gone`,
      [step.market, step.beforeMs, step.throughId, step.limit],
    )
    return Number(rows[0]?.n ?? 0)
  }

  protected async closeStore(): Promise<void> {
    // The driver belongs to the caller.
  }
}

/** The trade archive of a storage location: a SQLite file beside an embedded database. */
export function openTradeArchive(location: StorageLocation, driver: SqlDriver): TradeArchive {
  if (location.kind === 'postgres') return new SqlTradeArchive(driver)
  if (location.dataDir === undefined) return new SqliteTradeArchive(undefined)
  mkdirSync(location.dataDir, { recursive: true })
  return new SqliteTradeArchive(join(location.dataDir, 'trades.sqlite'))
}
