// Every account's closed orders, kept for `GET /orders` and `GET /order` beyond what the core holds
// in memory (its newest 5,000 to 10,000 per account): a trader's whole order record, as their
// fills are in the fill archive. A closed order never changes again, so it is written once, as
// it closed, with its fills; open orders are only ever in the core. Queued, written in batches
// and listed while waiting as the other archives (projectionArchive.ts).
//
// - Embedded default: `orders.sqlite` in the data directory (node:sqlite, WAL), on a thread of
//   its own (sqliteWorker.ts).
// - PostgreSQL (DATABASE_URL): the `account_orders` table (migration 8).
//
// Orders are listed by their creation time, then their id (`OrderKey`): ids are time-ordered
// (UUIDv7, src/core/orderIds.ts), so within a millisecond that is the order they were placed in,
// and each of the three indexes grows at its partition's end as orders are added.
//
// After a crash: the core keeps every order that closed in its last 10 s (`closedOrderKeptMs`),
// and the archive writes within a second, so the next start writes again, in close order, every
// order the core holds that closed from 10 s before the newest archived one (`catchUp`;
// duplicates are ignored). What can still leave orders out: a crash after the archive had
// fallen more than 10 s behind (writes failing, which are reported, or slow, which
// `polder_archive_waiting` in /metrics shows), or after the clock jumped ahead by more than 10 s.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import {
  closedOrderKeptMs,
  compareOrderKeys,
  isInOrderWindow,
  type OrderKey,
  type OrderRecord,
  type OrderWindow,
} from '../core/orderHistory.ts'
import type { StorageLocation } from './openStorage.ts'
import { BatchedArchive, insertIgnoringDuplicates } from './projectionArchive.ts'
import type { SqlDriver, SqlParam } from './sqlDriver.ts'
import { SqliteThread } from './sqliteThread.ts'
import type { SqliteValue } from './sqliteWorker.ts'

const columns = 'account_id, market, order_id, client_order_id, created_ms, updated_ms, record'
/** Sorts after every order id (ours are UUIDs: hex digits and dashes). */
const afterEveryId = '~'
/**
 * Orders per transaction (made and sent to the archive's thread 250 at a time, some 1.2 µs of
 * the event loop an order).
 */
const orderWriteRowsMax = 2_500
/**
 * Written 200 ms apart: on its own thread a write costs the event loop little whatever its size,
 * and a second's orders under load (20,000 on the load bench) kept waiting outlive the young
 * generation, and the garbage collector then spends more on them than the write.
 */
const orderFlushIntervalMs = 200
/**
 * Orders kept waiting while writes fail: some 1.4 KB each in the heap, so 140 MB at most (the
 * other archives' million small events would be 1.4 GB of orders).
 */
const orderQueueMax = 100_000
/** A catch-up writes what it has queued every this many orders. */
const catchUpFlushRows = 50_000

/** A closed order to archive: its record, and its state's JSON text when the core has it. */
export type ArchivedOrder = OrderRecord & { stateText?: string }

function valuesOf(order: ArchivedOrder): SqlParam[] {
  const { state, fills, earlierFills } = order
  // The state's text is the core's own (it keeps a closed order's state as text): not made twice.
  const stateText = order.stateText ?? JSON.stringify(state)
  return [
    state.accountId,
    state.market,
    state.orderId,
    state.clientOrderId,
    state.created,
    state.updated,
    // An order filled more than the core keeps of it has its earlier fills counted: they are in
    // the fill archive.
    `{"state":${stateText},"fills":${JSON.stringify(fills)}${earlierFills ? `,"earlierFills":${earlierFills}` : ''}}`,
  ]
}

const recordOf = (row: { record: string }): OrderRecord => {
  const { state, fills, earlierFills } = JSON.parse(row.record) as OrderRecord
  return earlierFills ? { state, fills, earlierFills } : { state, fills }
}

/**
 * The window's bounds as keys (a cursor, or else the time window's edge) and the creation times
 * between them, which is the range of the index that a listing reads (a cursor deep in the past
 * is then one seek, not a walk over every newer order).
 */
function boundsOf(window: OrderWindow) {
  const from: OrderKey = window.from ?? { created: window.startMs, orderId: '' }
  const to: OrderKey = window.to ?? { created: window.endMs, orderId: afterEveryId }
  return {
    from,
    to,
    startMs: Math.max(window.startMs, from.created),
    endMs: Math.min(window.endMs, to.created),
  }
}

/** A listing's parameters, in the order both stores' statements take them. */
function listingParams(accountId: number, market: string, window: OrderWindow): SqlParam[] {
  const { from, to, startMs, endMs } = boundsOf(window)
  return [
    accountId,
    market,
    startMs,
    endMs,
    from.created,
    from.orderId,
    to.created,
    to.orderId,
    window.limit,
  ]
}

const newestFirst = (a: OrderRecord, b: OrderRecord) => compareOrderKeys(b.state, a.state)

/** Closed orders, one account's in one market listed together. */
export abstract class OrderArchive extends BatchedArchive<ArchivedOrder> {
  constructor(options: { queueMax?: number } = {}) {
    super('order', {
      flushIntervalMs: orderFlushIntervalMs,
      writeRowsMax: orderWriteRowsMax,
      queueMax: orderQueueMax,
      ...options,
    })
  }

  /** The account's closed orders in a market in the window, newest first: written or waiting. */
  async list(accountId: number, market: string, window: OrderWindow): Promise<OrderRecord[]> {
    const waiting = this.#waitingOf(accountId, market).filter((record) =>
      isInOrderWindow(record.state, window),
    )
    const written = await this.select(accountId, market, window)
    if (waiting.length === 0) return written
    const byId = new Map<string, OrderRecord>()
    for (const record of [...written, ...waiting]) byId.set(record.state.orderId, record)
    return [...byId.values()].sort(newestFirst).slice(0, window.limit)
  }

  /** The account's closed order in a market with this id. */
  async find(accountId: number, market: string, orderId: string): Promise<OrderRecord | undefined> {
    const waiting = this.#waitingOf(accountId, market).find(
      (record) => record.state.orderId === orderId,
    )
    return waiting ?? (await this.selectOne(accountId, market, orderId))
  }

  /** The account's newest closed order in a market with this clientOrderId. */
  async findByClientId(
    accountId: number,
    market: string,
    clientOrderId: string,
  ): Promise<OrderRecord | undefined> {
    const found = this.#waitingOf(accountId, market).filter(
      (record) => record.state.clientOrderId === clientOrderId,
    )
    const written = await this.selectByClientId(accountId, market, clientOrderId)
    if (written) found.push(written)
    return found.sort(newestFirst)[0]
  }

  #waitingOf(accountId: number, market: string): OrderRecord[] {
    const found: OrderRecord[] = []
    for (const { state, fills, earlierFills } of this.waiting())
      if (state.accountId === accountId && state.market === market)
        found.push(earlierFills ? { state, fills, earlierFills } : { state, fills })
    return found
  }

  /**
   * Writes again the closed orders the core holds that a crash may have kept from being written:
   * those that closed from `closedOrderKeptMs` before the newest archived one on (all of them
   * into an empty archive), or before the newest the core holds if that is earlier (a clock
   * once set ahead leaves archived closes in the future). `closedSince` gives the core's closed
   * orders of archived accounts in the order they closed, so that a crash during this write
   * leaves a prefix by close time, which the next catch-up starts from.
   */
  async catchUp(
    closedSince: (sinceMs: number) => Iterable<OrderRecord>,
    coreNewestCloseMs: number | undefined,
  ): Promise<number> {
    const archived = await this.newestCloseMs()
    const newest =
      archived === undefined || coreNewestCloseMs === undefined
        ? archived
        : Math.min(archived, coreNewestCloseMs)
    let written = 0
    for (const record of closedSince(newest === undefined ? 0 : newest - closedOrderKeptMs)) {
      this.add(record)
      written += 1
      if (this.queued >= catchUpFlushRows) await this.flush().catch(() => {})
    }
    // A store that refuses writes now does not keep the server from starting (they are retried).
    await this.flush().catch(() => {})
    return written
  }

  protected abstract select(
    accountId: number,
    market: string,
    window: OrderWindow,
  ): Promise<OrderRecord[]>
  protected abstract selectOne(
    accountId: number,
    market: string,
    orderId: string,
  ): Promise<OrderRecord | undefined>
  protected abstract selectByClientId(
    accountId: number,
    market: string,
    clientOrderId: string,
  ): Promise<OrderRecord | undefined>
  /** When the most recently archived order closed; undefined for an empty archive. */
  protected abstract newestCloseMs(): Promise<number | undefined>
}

const sqliteSchema = `
  create table if not exists account_orders (
    account_id integer not null,
    market text not null,
    order_id text not null,
    client_order_id text,
    created_ms integer not null,
    updated_ms integer not null,
    record text not null
  ) strict;
  create unique index if not exists account_orders_by_id
    on account_orders (account_id, market, order_id);
  create index if not exists account_orders_by_time
    on account_orders (account_id, market, created_ms, order_id);
  create index if not exists account_orders_by_client_id
    on account_orders (account_id, market, client_order_id) where client_order_id is not null;`

/**
 * The archive in a SQLite file (or in memory when `path` is undefined), on a thread of its own:
 * written on the event loop, its rows cost 20-30 µs each there (a kilobyte of record and three
 * indexes), which at 5,000 closed orders a second would take a tenth of the server's thread.
 */
export class SqliteOrderArchive extends OrderArchive {
  readonly kind = 'sqlite'
  readonly #file: SqliteThread

  constructor(path: string | undefined) {
    super()
    // Rows are written as orders close (a catch-up too), so the last row is the newest close an
    // uninterrupted write made, and the record stays out of the indexes.
    this.#file = new SqliteThread(path, sqliteSchema)
  }

  protected insert(records: readonly ArchivedOrder[]): Promise<void> {
    return this.#file.runMany(
      `insert or ignore into account_orders (${columns}) values (?, ?, ?, ?, ?, ?, ?)`,
      records,
      (record) => valuesOf(record) as SqliteValue[],
    )
  }

  protected async select(
    accountId: number,
    market: string,
    window: OrderWindow,
  ): Promise<OrderRecord[]> {
    const rows = await this.#file.all<{ record: string }>(
      `select record from account_orders
        where account_id = ? and market = ?
          and created_ms between ? and ?
          and (created_ms, order_id) >= (?, ?)
          and (created_ms, order_id) <= (?, ?)
        order by created_ms desc, order_id desc limit ?`,
      listingParams(accountId, market, window) as SqliteValue[],
    )
    return rows.map(recordOf)
  }

  protected async selectOne(accountId: number, market: string, orderId: string) {
    const [row] = await this.#file.all<{ record: string }>(
      'select record from account_orders where account_id = ? and market = ? and order_id = ?',
      [accountId, market, orderId],
    )
    return row && recordOf(row)
  }

  protected async selectByClientId(accountId: number, market: string, clientOrderId: string) {
    // The index named: with the ordering asked for, the planner would rather walk by time.
    const [row] = await this.#file.all<{ record: string }>(
      `select record from account_orders indexed by account_orders_by_client_id
        where account_id = ? and market = ? and client_order_id = ?
        order by created_ms desc, order_id desc limit 1`,
      [accountId, market, clientOrderId],
    )
    return row && recordOf(row)
  }

  protected async newestCloseMs(): Promise<number | undefined> {
    const [row] = await this.#file.all<{ updated_ms: number }>(
      'select updated_ms from account_orders order by rowid desc limit 1',
      [],
    )
    return row?.updated_ms
  }

  protected closeStore(): Promise<void> {
    return this.#file.close()
  }
}

/** The archive in the `account_orders` table of a SQL database (migration 8). */
export class SqlOrderArchive extends OrderArchive {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver, options: { queueMax?: number } = {}) {
    super(options)
    this.#driver = driver
  }

  protected insert(records: readonly ArchivedOrder[]): Promise<void> {
    return insertIgnoringDuplicates(this.#driver, 'account_orders', columns, records.map(valuesOf))
  }

  protected async select(
    accountId: number,
    market: string,
    window: OrderWindow,
  ): Promise<OrderRecord[]> {
    const rows = await this.#driver.query<{ record: string }>(
      `select record from account_orders
        where account_id = $1 and market = $2
          and created_ms between $3 and $4
          and (created_ms, order_id) >= ($5::bigint, $6::text)
          and (created_ms, order_id) <= ($7::bigint, $8::text)
        order by created_ms desc, order_id desc limit $9`,
      listingParams(accountId, market, window),
    )
    return rows.map(recordOf)
  }

  protected async selectOne(accountId: number, market: string, orderId: string) {
    const [row] = await this.#driver.query<{ record: string }>(
      'select record from account_orders where account_id = $1 and market = $2 and order_id = $3',
      [accountId, market, orderId],
    )
    return row && recordOf(row)
  }

  protected async selectByClientId(accountId: number, market: string, clientOrderId: string) {
    const [row] = await this.#driver.query<{ record: string }>(
      `select record from account_orders
        where account_id = $1 and market = $2 and client_order_id = $3
        order by created_ms desc, order_id desc limit 1`,
      [accountId, market, clientOrderId],
    )
    return row && recordOf(row)
  }

  protected async newestCloseMs(): Promise<number | undefined> {
    const [row] = await this.#driver.query<{ updated_ms: string | number | null }>(
      'select max(updated_ms) as updated_ms from account_orders',
    )
    return row?.updated_ms == null ? undefined : Number(row.updated_ms)
  }

  protected async closeStore(): Promise<void> {
    // The driver belongs to the caller.
  }
}

/** The order archive of a storage location: a SQLite file beside an embedded database. */
export function openOrderArchive(location: StorageLocation, driver: SqlDriver): OrderArchive {
  if (location.kind === 'postgres') return new SqlOrderArchive(driver)
  if (location.dataDir === undefined) return new SqliteOrderArchive(undefined)
  mkdirSync(location.dataDir, { recursive: true })
  return new SqliteOrderArchive(join(location.dataDir, 'orders.sqlite'))
}
