// Every account's fills, kept for `GET /trades` (and `privateGetTrades`) and the ledger
// (`GET /account/history`) beyond what the core holds in memory (the newest 5,000 to 10,000 per
// account): an account's whole trading record,
// as a trader needs it for their accounts and their taxes. A projection of durable fills, fed
// after each journal commit, written in batches, never pruned; how it queues, writes, lists and
// catches up after a crash: projectionArchive.ts.
//
// - Embedded default: `fills.sqlite` in the data directory (node:sqlite, WAL), as the trade
//   archive and for the same reason.
// - PostgreSQL (DATABASE_URL): the `account_fills` table (migration 7).
//
// Partitions are an account's fills in one market: their ids are the market's trade ids, which
// rise with time, so a listing turns its time window into ids first, as the trade archive does.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { FillEvent, Side } from '@polder/engine'
import type { StorageLocation } from './openStorage.ts'
import {
  AccountReadLines,
  type ArchiveWindow,
  insertIgnoringDuplicates,
  ProjectionArchive,
  SqliteArchiveFile,
} from './projectionArchive.ts'
import { type SqlDriver, toTextArray } from './sqlDriver.ts'

/** One account's fills in one market. */
export type FillPartition = { accountId: number; market: string }

/** An account's fills in every market between two times (inclusive), of one side or both. */
export type LedgerWindow = { startMs: number; endMs: number; side: Side | undefined }

/** A page of an account's ledger: `limit` fills of the window from the `offset`-th on. */
type LedgerRead = { accountId: number; window: LedgerWindow; offset: number; limit: number }

export { LedgerBusyError, ledgerReadsPerAccountMax } from './projectionArchive.ts'

/** At most `count` fills of an order before one of its fills, newest first when read. */
type OrderFillsRead = {
  accountId: number
  market: string
  orderId: string
  beforeFillId: number
  count: number
}

/** How many fills a ledger window holds, and the page of them asked for. */
export type LedgerFillPage = { total: number; fills: FillEvent[] }

type Row = {
  account_id: number | string
  market: string
  fill_id: number | string
  order_id: string
  client_order_id: string | null
  timestamp_ms: number | string
  side: string
  price: number | string
  amount: number | string
  quote: number | string
  taker: number | boolean
  fee: number | string
  fee_currency: string
}

const columns =
  'account_id, market, fill_id, order_id, client_order_id, timestamp_ms, side, price, amount, quote, taker, fee, fee_currency'
const columnCount = 13

function fillOf(row: Row): FillEvent {
  return {
    type: 'fill',
    market: row.market,
    orderId: row.order_id,
    clientOrderId: row.client_order_id,
    accountId: Number(row.account_id),
    fillId: Number(row.fill_id),
    timestamp: Number(row.timestamp_ms),
    side: row.side as Side,
    price: Number(row.price),
    amount: Number(row.amount),
    quote: Number(row.quote),
    taker: row.taker === true || row.taker === 1,
    fee: Number(row.fee),
    feeCurrency: row.fee_currency,
  }
}

/** A fill's values in the order of `columns` (`taker` as 0/1 for SQLite, a boolean for SQL). */
function valuesOf<Taker extends number | boolean>(fill: FillEvent, taker: Taker) {
  return [
    fill.accountId,
    fill.market,
    fill.fillId,
    fill.orderId,
    fill.clientOrderId,
    fill.timestamp,
    fill.side,
    fill.price,
    fill.amount,
    fill.quote,
    taker,
    fill.fee,
    fill.feeCurrency,
  ] as const
}

/**
 * The ledger's count and page in one PostgreSQL statement, so that both see the same rows (a
 * page past the end is one row of nulls beside the count). Markets sort by their bytes, as in
 * SQLite and in memory (`compareLedgerFills`).
 */
const sqlLedgerStatement = (() => {
  const where = `where account_id = $1 and timestamp_ms between $2 and $3
    and ($4::text is null or side = $4)`
  return `select counted.total, page.* from (select count(*) as total from account_fills ${where}) counted
    left join (select ${columns} from account_fills ${where}
      order by timestamp_ms desc, market collate "C", fill_id desc limit $5 offset $6) page
    on true`
})()

/**
 * Fills are written a second apart, not the trade archive's 100 ms: a write's cost is mostly the
 * pages it changes, and an account's fills are spread over the table by account, so that larger,
 * rarer batches cost less per fill (bench/exchange/archives.bench.ts: 6.1 µs a fill in batches
 * of 500, 2.9 in batches of 5,000). A listing does not wait for the write (a ledger read does,
 * and so writes the batch early: `ledger`), and a crash loses
 * nothing the core's memory cannot give back unless one account was filled more than 5,000 times
 * in the lost second (the core keeps its newest 5,000 or more; the catch-up names such a gap).
 */
const fillFlushIntervalMs = 1_000
/**
 * Fills per transaction: a second's batch under heavy load is thousands, and one transaction of
 * them all would hold the file's thread (the event loop, in memory) for tens of milliseconds;
 * 1,000 hold it 3-6 ms.
 */
const fillWriteRowsMax = 1_000

/** Fills, partitioned by account and market. */
export abstract class FillArchive extends ProjectionArchive<FillEvent, FillPartition> {
  constructor(options: { queueMax?: number } = {}) {
    super('fill', {
      flushIntervalMs: fillFlushIntervalMs,
      writeRowsMax: fillWriteRowsMax,
      ...options,
    })
  }

  protected idOf(fill: FillEvent): number {
    return fill.fillId
  }

  protected timeOf(fill: FillEvent): number {
    return fill.timestamp
  }

  protected isIn(fill: FillEvent, partition: FillPartition): boolean {
    return fill.accountId === partition.accountId && fill.market === partition.market
  }

  /**
   * An account's fill ids skip the market's other trades, so a step says nothing; what the core
   * holds no longer reaching back to the archive's newest fill does (fills may be missing).
   */
  protected missesSome(known: number, recent: readonly FillEvent[]): boolean {
    return recent[0]!.fillId > known
  }

  /** An account's fills in one market in the window, newest first, written or still waiting. */
  list(accountId: number, market: string, window: ArchiveWindow): Promise<FillEvent[]> {
    return this.listIn({ accountId, market }, window)
  }

  /**
   * The `count` fills of an order just before its fill `beforeFillId`, oldest first, written or
   * still waiting: those the core let go of an order filled more than it keeps of one
   * (`orderFillsKeptMax`). The read walks the account's fills in the market back from that fill
   * until it has found them, so it costs what the order's fills and the account's others in the
   * market meanwhile do: so it runs in the account's line of long reads, as its ledger's do (a
   * fourth read of the account under way is refused: LedgerBusyError, but with `waitWhenBusy`,
   * which waits its turn: the reply of an update already applied).
   */
  earlierOfOrder(
    accountId: number,
    market: string,
    orderId: string,
    beforeFillId: number,
    count: number,
    waitWhenBusy = false,
  ): Promise<FillEvent[]> {
    return this.#ledgerReads.run(
      accountId,
      async () => {
        const byId = new Map<number, FillEvent>()
        const read: OrderFillsRead = { accountId, market, orderId, beforeFillId, count }
        for (const fill of this.waiting())
          if (
            fill.accountId === accountId &&
            fill.market === market &&
            fill.orderId === orderId &&
            fill.fillId < beforeFillId
          )
            byId.set(fill.fillId, fill)
        for (const fill of await this.selectOfOrder(read)) byId.set(fill.fillId, fill)
        return [...byId.values()].sort((a, b) => a.fillId - b.fillId).slice(-count)
      },
      waitWhenBusy,
    )
  }

  protected abstract selectOfOrder(read: OrderFillsRead): Promise<FillEvent[]>

  readonly #ledgerReads = new AccountReadLines()

  /**
   * An account's fills in every market in the window for its ledger (`GET /account/history`),
   * in the ledger's order (newest first, then by market, then by id: accountLedger.ts): how
   * many, and `limit` of them from the `offset`-th on.
   *
   * Every fill added before the call is written first, so the count and the page see the same
   * fills. A read walks the account's fills in the window (there is no index by time across
   * markets; 0.4-1 s at a million fills), so an account's reads go one at a time, and one with
   * `ledgerReadsPerAccountMax` running or waiting is refused (`LedgerBusyError`): a caller asking
   * again and again waits behind itself. Across accounts the reads run one at a time too: on
   * SQLite on a reading thread of the file's own (so the archive's writes never wait for one),
   * on PostgreSQL one statement at a time (the pool's connections carry the journal too).
   */
  ledger(
    accountId: number,
    window: LedgerWindow,
    offset: number,
    limit: number,
  ): Promise<LedgerFillPage> {
    return this.#ledgerReads.run(accountId, async () => {
      await this.writtenThrough()
      return this.selectLedger({ accountId, window, offset, limit })
    })
  }

  protected abstract selectLedger(read: LedgerRead): Promise<LedgerFillPage>
}

/** The archive in a SQLite file (or in memory when `path` is undefined). */
export class SqliteFillArchive extends FillArchive {
  readonly kind = 'sqlite'
  readonly #db: DatabaseSync
  readonly #select: StatementSync
  readonly #newest: StatementSync
  readonly #atOrAfter: StatementSync
  readonly #atOrBefore: StatementSync
  readonly #file: SqliteArchiveFile

  constructor(path: string | undefined) {
    super()
    this.#file = new SqliteArchiveFile(
      path,
      `create table if not exists account_fills (
        account_id integer not null,
        market text not null,
        fill_id integer not null,
        order_id text not null,
        client_order_id text,
        timestamp_ms integer not null,
        side text not null,
        price integer not null,
        amount integer not null,
        quote integer not null,
        taker integer not null,
        fee integer not null,
        fee_currency text not null,
        primary key (account_id, market, fill_id)
      ) strict, without rowid;`,
    )
    this.#db = this.#file.db
    // No index by time (a second index spread by account doubled the cost of a write): a time
    // window is turned into ids by a binary search down the primary key (`#idBounds`).
    this.#select = this.#db.prepare(
      `select ${columns} from account_fills
        where account_id = :accountId and market = :market
          and fill_id between :fromId and :toId
          and timestamp_ms between :startMs and :endMs
        order by fill_id desc limit :limit`,
    )
    this.#atOrAfter = this.#db.prepare(
      `select fill_id, timestamp_ms from account_fills
        where account_id = ? and market = ? and fill_id >= ? order by fill_id limit 1`,
    )
    this.#atOrBefore = this.#db.prepare(
      `select fill_id, timestamp_ms from account_fills
        where account_id = ? and market = ? and fill_id <= ? order by fill_id desc limit 1`,
    )
    this.#newest = this.#db.prepare(
      'select max(fill_id) as fill_id from account_fills where account_id = ? and market = ?',
    )
  }

  protected async selectOfOrder(read: OrderFillsRead): Promise<FillEvent[]> {
    // On the reading thread, as the ledger's: an order filled 100,000 times walks as many rows.
    const [rows] = await this.#file.readTogether([
      {
        sql: `select ${columns} from account_fills
          where account_id = ? and market = ? and fill_id < ? and order_id = ?
          order by fill_id desc limit ?`,
        params: [read.accountId, read.market, read.beforeFillId, read.orderId, read.count],
      },
    ])
    return (rows as Row[]).map(fillOf)
  }

  protected async insert(fills: readonly FillEvent[]): Promise<void> {
    // A fill already written (a catch-up after a crash) is the same fill: kept as it is.
    await this.#file.insertAll(
      `insert or ignore into account_fills (${columns})
       values (${Array.from({ length: columnCount }, () => '?').join(', ')})`,
      fills.map((fill) => valuesOf(fill, fill.taker ? 1 : 0)),
    )
  }

  protected async select(partition: FillPartition, window: ArchiveWindow): Promise<FillEvent[]> {
    const [fromId, toId] = this.#idBounds(partition, window)
    if (fromId > toId) return []
    return (this.#select.all({ ...partition, ...window, fromId, toId }) as Row[]).map(fillOf)
  }

  /**
   * The window's id range narrowed to its time window: fill ids rise with time in a partition,
   * so the first fill at or after `startMs` and the last at or before `endMs` are found by a
   * binary search over ids, each step one seek down the primary key (some 50 steps at most,
   * each a few microseconds). Without it, a window far in the past walks every newer fill.
   */
  #idBounds(partition: FillPartition, window: ArchiveWindow): [number, number] {
    const { accountId, market } = partition
    type Probe = { fill_id: number; timestamp_ms: number } | undefined
    let low = window.fromId
    let high = window.toId
    if (window.startMs > 0) {
      // The smallest id whose first fill at or after it is at or after startMs.
      let from = low
      let to = high + 1
      while (from < to) {
        const middle = from + Math.floor((to - from) / 2)
        const found = this.#atOrAfter.get(accountId, market, middle) as Probe
        if (found === undefined || found.timestamp_ms >= window.startMs) to = middle
        else from = found.fill_id + 1
      }
      low = from
    }
    if (window.endMs < Number.MAX_SAFE_INTEGER) {
      // The largest id whose last fill at or before it is at or before endMs.
      let from = low - 1
      let to = high
      while (from < to) {
        const middle = to - Math.floor((to - from) / 2)
        const found = this.#atOrBefore.get(accountId, market, middle) as Probe
        if (found === undefined || found.timestamp_ms <= window.endMs) from = middle
        else to = found.fill_id - 1
      }
      high = to
    }
    return [low, high]
  }

  protected async selectLedger(read: LedgerRead): Promise<LedgerFillPage> {
    const { accountId, window, offset, limit } = read
    const bySide = window.side === undefined ? '' : ' and side = ?'
    const where = `where account_id = ? and timestamp_ms between ? and ?${bySide}`
    const params = [accountId, window.startMs, window.endMs, ...(window.side ? [window.side] : [])]
    // Two statements in one read (the two in one statement cost half as much again here).
    const [counted, rows] = await this.#file.readTogether([
      { sql: `select count(*) as total from account_fills ${where}`, params },
      {
        sql: `select ${columns} from account_fills ${where}
          order by timestamp_ms desc, market, fill_id desc limit ? offset ?`,
        params: [...params, limit, offset],
      },
    ])
    return {
      total: Number((counted as { total: number }[])[0]?.total ?? 0),
      fills: (rows as Row[]).map(fillOf),
    }
  }

  protected async newestId(partition: FillPartition): Promise<number> {
    const row = this.#newest.get(partition.accountId, partition.market) as {
      fill_id: number | null
    }
    return Number(row.fill_id ?? 0)
  }

  protected closeStore(): Promise<void> {
    return this.#file.close()
  }
}

/** The archive in the `account_fills` table of a SQL database (migration 7). */
export class SqlFillArchive extends FillArchive {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver, options: { queueMax?: number } = {}) {
    super(options)
    this.#driver = driver
  }

  protected insert(fills: readonly FillEvent[]): Promise<void> {
    const rows = fills.map((fill) => valuesOf(fill, fill.taker))
    return insertIgnoringDuplicates(this.#driver, 'account_fills', columns, rows)
  }

  protected async select(partition: FillPartition, window: ArchiveWindow): Promise<FillEvent[]> {
    const rows = await this.#driver.query<Row>(
      `select ${columns} from account_fills
        where account_id = $1 and market = $2
          and fill_id between
            greatest($5::bigint, coalesce((select fill_id from account_fills
              where account_id = $1 and market = $2 and timestamp_ms >= $3
              order by timestamp_ms, fill_id limit 1), $6::bigint + 1))
            and
            least($6::bigint, coalesce((select fill_id from account_fills
              where account_id = $1 and market = $2 and timestamp_ms <= $4
              order by timestamp_ms desc, fill_id desc limit 1), -1))
          and timestamp_ms between $3 and $4
        order by fill_id desc limit $7`,
      [
        partition.accountId,
        partition.market,
        window.startMs,
        window.endMs,
        window.fromId,
        window.toId,
        window.limit,
      ],
    )
    return rows.map(fillOf)
  }

  protected async selectOfOrder(read: OrderFillsRead): Promise<FillEvent[]> {
    const rows = await this.#oneAtATime(() =>
      this.#driver.query<Row>(
        `select ${columns} from account_fills
          where account_id = $1 and market = $2 and fill_id < $3 and order_id = $4
          order by fill_id desc limit $5`,
        [read.accountId, read.market, read.beforeFillId, read.orderId, read.count],
      ),
    )
    return rows.map(fillOf)
  }

  /** The long statement under way (a ledger's, an order's earlier fills'). */
  #longStatement: Promise<unknown> = Promise.resolve()

  /**
   * Runs the long reads one at a time, however many accounts ask: one can hold a connection
   * for a second, and the pool's few connections carry the journal's commits too.
   */
  #oneAtATime<Result>(read: () => Promise<Result>): Promise<Result> {
    const statement = this.#longStatement.then(read)
    this.#longStatement = statement.catch(() => {})
    return statement
  }

  protected async selectLedger(read: LedgerRead): Promise<LedgerFillPage> {
    const { accountId, window, offset, limit } = read
    const rows = await this.#oneAtATime(() =>
      this.#driver.query<{ total: string | number } & Partial<Row>>(sqlLedgerStatement, [
        accountId,
        window.startMs,
        window.endMs,
        window.side ?? null,
        limit,
        offset,
      ]),
    )
    return {
      total: Number(rows[0]?.total ?? 0),
      fills: rows.filter((row) => row.fill_id != null).map((row) => fillOf(row as Row)),
    }
  }

  /** One round trip for many partitions (a start after a crash asks for every active account). */
  protected override async newestIds(partitions: readonly FillPartition[]): Promise<number[]> {
    if (partitions.length === 0) return []
    const rows = await this.#driver.query<{ fill_id: string | number | null }>(
      `select (select fill_id from account_fills
                where account_id = wanted.account_id and market = wanted.market
                order by fill_id desc limit 1) as fill_id
         from unnest($1::bigint[], $2::text[]) with ordinality
           as wanted(account_id, market, position)
        order by wanted.position`,
      [
        `{${partitions.map((partition) => partition.accountId).join(',')}}`,
        toTextArray(partitions.map((partition) => partition.market)),
      ],
    )
    return rows.map((row) => Number(row.fill_id ?? 0))
  }

  protected async newestId(partition: FillPartition): Promise<number> {
    const [row] = await this.#driver.query<{ fill_id: string | number | null }>(
      'select max(fill_id) as fill_id from account_fills where account_id = $1 and market = $2',
      [partition.accountId, partition.market],
    )
    return Number(row?.fill_id ?? 0)
  }

  protected async closeStore(): Promise<void> {
    // The driver belongs to the caller.
  }
}

/** A PostgreSQL array literal of texts (market ids: letters, digits and dashes, quoted anyway). */
/** The fill archive of a storage location: a SQLite file beside an embedded database. */
export function openFillArchive(location: StorageLocation, driver: SqlDriver): FillArchive {
  if (location.kind === 'postgres') return new SqlFillArchive(driver)
  if (location.dataDir === undefined) return new SqliteFillArchive(undefined)
  mkdirSync(location.dataDir, { recursive: true })
  return new SqliteFillArchive(join(location.dataDir, 'fills.sqlite'))
}
