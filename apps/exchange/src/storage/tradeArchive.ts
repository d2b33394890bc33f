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
// How trades are queued, written, listed and caught up after a crash: projectionArchive.ts.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { Side, TradeEvent } from '@polder/engine'
import type { StorageLocation } from './openStorage.ts'
import {
  type ArchiveWindow,
  insertIgnoringDuplicates,
  ProjectionArchive,
  SqliteArchiveFile,
} from './projectionArchive.ts'
import type { SqlDriver } from './sqlDriver.ts'

/** Inclusive bounds of a listing, newest first, at most `limit`. */
export type TradeWindow = ArchiveWindow

/** Rows deleted in one step of a prune, the event loop running in between. */
export const tradePruneRowsPerStep = 2_000

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

/** Public trades, partitioned by market. */
export abstract class TradeArchive extends ProjectionArchive<TradeEvent, string> {
  #pruning: Promise<number> | undefined

  constructor(options: { queueMax?: number } = {}) {
    super('trade', options)
  }

  protected idOf(trade: TradeEvent): number {
    return trade.tradeId
  }

  protected timeOf(trade: TradeEvent): number {
    return trade.timestamp
  }

  protected isIn(trade: TradeEvent, market: string): boolean {
    return trade.market === market
  }

  /** A market's trade ids are consecutive: a step of more than one is a trade missing. */
  protected missesSome(known: number, _recent: readonly TradeEvent[], first: TradeEvent): boolean {
    return first.tradeId > known + 1
  }

  /** A market's trades in the window, newest first, written or still waiting. */
  list(market: string, window: TradeWindow): Promise<TradeEvent[]> {
    return this.listIn(market, window)
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
    // The newest trades are counted from the written rows: write the waiting ones first, or a
    // market whose last trades still wait would keep that many more old ones until next time.
    // (A failed write is reported and retried by the archive; the prune goes on without it.)
    await this.flush().catch(() => {})
    let deleted = 0
    for (const market of markets) {
      const throughId = (await this.newestId(market)) - keepNewest
      for (;;) {
        if (this.closed) return deleted
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

  /** A prune stops at its next step once the archive is closed. */
  protected override async beforeClose(): Promise<void> {
    await this.#pruning?.catch(() => {})
  }

  /** Deletes up to `limit` trades of `market` older than `beforeMs` with ids up to `throughId`. */
  protected abstract deleteOlder(step: PruneStep): Promise<number>
}

const selectColumns = 'market, trade_id, timestamp_ms, price, amount, side'
/** A trade's values in the order of `selectColumns`. */
const columnsOf = (trade: TradeEvent) =>
  [trade.market, trade.tradeId, trade.timestamp, trade.price, trade.amount, trade.side] as const

/** The archive in a SQLite file (or in memory when `path` is undefined). */
export class SqliteTradeArchive extends TradeArchive {
  readonly kind = 'sqlite'
  readonly #db: DatabaseSync
  readonly #select: StatementSync
  readonly #newest: StatementSync
  readonly #file: SqliteArchiveFile

  constructor(path: string | undefined) {
    super()
    this.#file = new SqliteArchiveFile(
      path,
      `create table if not exists public_trades (
        market text not null,
        trade_id integer not null,
        timestamp_ms integer not null,
        price integer not null,
        amount integer not null,
        side text not null,
        primary key (market, trade_id)
      ) strict, without rowid;
      create index if not exists public_trades_by_time on public_trades (market, timestamp_ms);`,
    )
    this.#db = this.#file.db
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
  }

  protected async insert(trades: readonly TradeEvent[]): Promise<void> {
    // A trade already written (a catch-up after a crash) is the same trade: kept as it is.
    await this.#file.insertAll(
      `insert or ignore into public_trades (${selectColumns}) values (?, ?, ?, ?, ?, ?)`,
      trades.map(columnsOf),
    )
  }

  protected async select(market: string, window: TradeWindow): Promise<TradeEvent[]> {
    return (this.#select.all({ market, ...window }) as Row[]).map(tradeOf)
  }

  protected async newestId(market: string): Promise<number> {
    return Number((this.#newest.get(market) as { trade_id: number | null }).trade_id ?? 0)
  }

  protected deleteOlder(step: PruneStep): Promise<number> {
    return this.#file.run(
      `delete from public_trades where market = ? and trade_id in
         (select trade_id from public_trades
           where market = ? and timestamp_ms < ? and trade_id <= ?
           limit ?)`,
      [step.market, step.market, step.beforeMs, step.throughId, step.limit],
    )
  }

  protected closeStore(): Promise<void> {
    return this.#file.close()
  }
}

/** The archive in the `public_trades` table of a SQL database (migration 6). */
export class SqlTradeArchive extends TradeArchive {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver, options: { queueMax?: number } = {}) {
    super(options)
    this.#driver = driver
  }

  protected insert(trades: readonly TradeEvent[]): Promise<void> {
    return insertIgnoringDuplicates(
      this.#driver,
      'public_trades',
      selectColumns,
      trades.map(columnsOf),
    )
  }

  protected async select(market: string, window: TradeWindow): Promise<TradeEvent[]> {
    // The time window turned into ids first, as in SqliteTradeArchive.
    const rows = await this.#driver.query<Row>(
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
    return rows.map(tradeOf)
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
