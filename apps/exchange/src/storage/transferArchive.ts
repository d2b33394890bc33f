// Every account's deposits and withdrawals, kept for `GET /depositHistory`, `GET
// /withdrawalHistory` and the ledger (`GET /account/history`) beyond what the core holds in
// memory (an account's newest 5,000 to 10,000 and every one of the last 24 hours): an account's
// whole record of money in and out. A projection of durable transfers, fed as the fill archive is
// (projectionArchive.ts: queued, written in batches, listed while waiting, caught up after a
// crash), with one difference: a withdrawal's status changes after it is recorded, so a transfer
// is written again at each change and the row replaced.
//
// - Embedded default: `transfers.sqlite` in the data directory (node:sqlite, WAL).
// - PostgreSQL (DATABASE_URL): the `account_transfers` table (migration 9).
//
// A partition is an account; a transfer's id is its `seq`, the account's count of transfers
// when it was recorded (orderHistory.ts), so ids have no gaps and a gap after a crash is exact.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { Transfer } from '../core/orderHistory.ts'
import type { StorageLocation } from './openStorage.ts'
import {
  AccountReadLines,
  type ArchiveWindow,
  insertRows,
  ProjectionArchive,
  SqliteArchiveFile,
} from './projectionArchive.ts'
import type { SqlDriver, SqlParam } from './sqlDriver.ts'

/** A transfer with the account it belongs to. */
export type ArchivedTransfer = Transfer & { accountId: number }

/** An account's transfers of one kind and asset, or of any. */
export type TransferPartition = {
  accountId: number
  kind?: Transfer['kind']
  asset?: string
}

/** The ledger's transfers of an account: a time window (inclusive), of one kind or both. */
export type TransferLedgerWindow = { kind?: Transfer['kind']; startMs: number; endMs: number }

/** A transfer's place in the ledger: what orders it, without the transfer itself. */
export type LedgerTransferKey = { timestamp: number; seq: number }

/**
 * How many transfers a ledger window holds, and the newest `limit` of them as keys: a deep page
 * needs every transfer newer than it to be placed, but shows only its own (`records`).
 */
export type TransferLedgerPage = { total: number; transfers: LedgerTransferKey[] }

/**
 * The ledger's order of transfers: newest first, a deposit before a withdrawal of the same
 * millisecond, then the later recorded first (as the core's lists were merged before the archive).
 */
export function compareLedgerTransfers(a: Transfer, b: Transfer): number {
  if (a.timestamp !== b.timestamp) return b.timestamp - a.timestamp
  if (a.kind !== b.kind) return a.kind === 'deposit' ? -1 : 1
  return b.seq - a.seq
}

/** A listing's filters: a time window (inclusive), a kind and an asset, at most `limit`. */
export type TransferQuery = {
  kind?: Transfer['kind']
  asset?: string
  startMs: number
  endMs: number
  limit: number
}

type Row = { account_id: number | string; record: string }

const columns = 'account_id, seq, kind, asset, timestamp_ms, record'
/** A row written again (a status changed, or a transfer numbered anew) is replaced whole. */
const replaced = ['kind', 'asset', 'timestamp_ms', 'record']
  .map((column) => `${column} = excluded.${column}`)
  .join(', ')
/** The ledger's order in SQL (`compareLedgerTransfers`). */
const ledgerOrder = 'timestamp_ms desc, kind, seq desc'

function valuesOf(transfer: ArchivedTransfer): SqlParam[] {
  const { accountId, ...kept } = transfer
  return [accountId, kept.seq, kept.kind, kept.asset, kept.timestamp, JSON.stringify(kept)]
}

const transferOf = (row: Row): ArchivedTransfer => ({
  accountId: Number(row.account_id),
  ...(JSON.parse(row.record) as Transfer),
})

/**
 * The last state of each transfer in a batch (a withdrawal recorded and advanced within one
 * flush comes twice): one statement may not change a row twice.
 */
function lastOfEach(transfers: readonly ArchivedTransfer[]): ArchivedTransfer[] {
  const byKey = new Map<string, ArchivedTransfer>()
  for (const transfer of transfers) byKey.set(`${transfer.accountId} ${transfer.seq}`, transfer)
  return [...byKey.values()]
}

/** Transfers, partitioned by account, listed newest first. */
export abstract class TransferArchive extends ProjectionArchive<
  ArchivedTransfer,
  TransferPartition
> {
  constructor(options: { queueMax?: number } = {}) {
    super('transfer', options)
  }

  protected idOf(transfer: ArchivedTransfer): number {
    return transfer.seq
  }

  protected timeOf(transfer: ArchivedTransfer): number {
    return transfer.timestamp
  }

  protected isIn(transfer: ArchivedTransfer, partition: TransferPartition): boolean {
    return (
      transfer.accountId === partition.accountId &&
      (partition.kind === undefined || transfer.kind === partition.kind) &&
      (partition.asset === undefined || transfer.asset === partition.asset)
    )
  }

  /** An account's transfers are numbered without gaps: one past the archive's newest is next. */
  protected missesSome(
    known: number,
    _recent: readonly ArchivedTransfer[],
    firstMissing: ArchivedTransfer,
  ): boolean {
    return firstMissing.seq > known + 1
  }

  readonly #ledgerReads = new AccountReadLines()

  /**
   * For the ledger (`GET /account/history`): how many transfers the window holds and the keys
   * of the newest `limit`, in the ledger's order (`compareLedgerTransfers`), read down an index
   * by time. Every transfer added before the call is written first, so the count and the keys
   * see the same ones. An account's reads go one at a time, as the fill ledger's
   * (`LedgerBusyError` past `ledgerReadsPerAccountMax`).
   */
  ledger(
    accountId: number,
    window: TransferLedgerWindow,
    limit: number,
  ): Promise<TransferLedgerPage> {
    return this.#ledgerReads.run(accountId, async () => {
      await this.writtenThrough()
      return this.selectLedger(accountId, window, limit)
    })
  }

  /** An account's transfers of these numbers, written or still waiting (in no set order). */
  async records(accountId: number, seqs: readonly number[]): Promise<ArchivedTransfer[]> {
    if (seqs.length === 0) return []
    const wanted = new Set(seqs)
    const bySeq = new Map<number, ArchivedTransfer>()
    for (const transfer of await this.selectSeqs(accountId, seqs)) bySeq.set(transfer.seq, transfer)
    // Waiting, they are newer than what is written (a status since): the last of them wins.
    for (const transfer of this.waiting())
      if (transfer.accountId === accountId && wanted.has(transfer.seq))
        bySeq.set(transfer.seq, transfer)
    return [...bySeq.values()]
  }

  protected abstract selectLedger(
    accountId: number,
    window: TransferLedgerWindow,
    limit: number,
  ): Promise<TransferLedgerPage>

  protected abstract selectSeqs(
    accountId: number,
    seqs: readonly number[],
  ): Promise<ArchivedTransfer[]>

  /** An account's transfers matching the query, newest first, written or still waiting. */
  list(accountId: number, query: TransferQuery): Promise<ArchivedTransfer[]> {
    const { kind, asset, startMs, endMs, limit } = query
    return this.listIn(
      {
        accountId,
        ...(kind === undefined ? {} : { kind }),
        ...(asset === undefined ? {} : { asset }),
      },
      { startMs, endMs, fromId: 0, toId: Number.MAX_SAFE_INTEGER, limit },
    )
  }
}

/** The archive in a SQLite file (or in memory when `path` is undefined). */
export class SqliteTransferArchive extends TransferArchive {
  readonly kind = 'sqlite'
  readonly #file: SqliteArchiveFile
  readonly #db: DatabaseSync
  readonly #select: StatementSync
  readonly #newest: StatementSync

  constructor(path: string | undefined) {
    super()
    this.#file = new SqliteArchiveFile(
      path,
      `create table if not exists account_transfers (
        account_id integer not null,
        seq integer not null,
        kind text not null,
        asset text not null,
        timestamp_ms integer not null,
        record text not null,
        primary key (account_id, seq)
      ) strict, without rowid;
      create index if not exists account_transfers_by_time
        on account_transfers (account_id, timestamp_ms, kind, seq);`,
    )
    this.#db = this.#file.db
    this.#select = this.#db.prepare(
      `select account_id, record from account_transfers
        where account_id = :accountId and seq between :fromId and :toId
          and timestamp_ms between :startMs and :endMs
          and (:kind is null or kind = :kind) and (:asset is null or asset = :asset)
        order by seq desc limit :limit`,
    )
    this.#newest = this.#db.prepare(
      'select max(seq) as seq from account_transfers where account_id = ?',
    )
  }

  protected async insert(transfers: readonly ArchivedTransfer[]): Promise<void> {
    await this.#file.insertAll(
      `insert into account_transfers (${columns}) values (?, ?, ?, ?, ?, ?)
        on conflict (account_id, seq) do update set ${replaced}`,
      lastOfEach(transfers).map(valuesOf) as (string | number | null)[][],
    )
  }

  protected async select(
    partition: TransferPartition,
    window: ArchiveWindow,
  ): Promise<ArchivedTransfer[]> {
    const rows = this.#select.all({
      accountId: partition.accountId,
      kind: partition.kind ?? null,
      asset: partition.asset ?? null,
      fromId: window.fromId,
      toId: window.toId,
      startMs: window.startMs,
      endMs: window.endMs,
      limit: window.limit,
    }) as Row[]
    return rows.map(transferOf)
  }

  protected async selectLedger(
    accountId: number,
    window: TransferLedgerWindow,
    limit: number,
  ): Promise<TransferLedgerPage> {
    const where = `where account_id = ? and timestamp_ms between ? and ?${window.kind === undefined ? '' : ' and kind = ?'}`
    const params = [accountId, window.startMs, window.endMs, ...(window.kind ? [window.kind] : [])]
    // On the file's reading thread, both in one read (as the fill archive's ledger).
    const [counted, rows] = await this.#file.readTogether([
      { sql: `select count(*) as total from account_transfers ${where}`, params },
      {
        sql: `select timestamp_ms as timestamp, seq from account_transfers ${where}
          order by ${ledgerOrder} limit ?`,
        params: [...params, limit],
      },
    ])
    return {
      total: Number((counted as { total: number }[])[0]?.total ?? 0),
      transfers: rows as LedgerTransferKey[],
    }
  }

  protected async selectSeqs(
    accountId: number,
    seqs: readonly number[],
  ): Promise<ArchivedTransfer[]> {
    // A page's worth (at most 100 numbers): on the event loop, down the primary key.
    const rows = this.#db
      .prepare(
        `select account_id, record from account_transfers
          where account_id = ? and seq in (${seqs.map(() => '?').join(', ')})`,
      )
      .all(accountId, ...seqs) as Row[]
    return rows.map(transferOf)
  }

  protected async newestId(partition: TransferPartition): Promise<number> {
    const row = this.#newest.get(partition.accountId) as { seq: number | null }
    return Number(row.seq ?? 0)
  }

  protected closeStore(): Promise<void> {
    return this.#file.close()
  }
}

/** The archive in the `account_transfers` table of a SQL database (migration 9). */
export class SqlTransferArchive extends TransferArchive {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver, options: { queueMax?: number } = {}) {
    super(options)
    this.#driver = driver
  }

  protected insert(transfers: readonly ArchivedTransfer[]): Promise<void> {
    return insertRows(
      this.#driver,
      'account_transfers',
      columns,
      lastOfEach(transfers).map(valuesOf),
      `on conflict (account_id, seq) do update set ${replaced}`,
    )
  }

  protected async select(
    partition: TransferPartition,
    window: ArchiveWindow,
  ): Promise<ArchivedTransfer[]> {
    const rows = await this.#driver.query<Row>(
      `select account_id, record from account_transfers
        where account_id = $1 and seq between $2 and $3 and timestamp_ms between $4 and $5
          and ($6::text is null or kind = $6) and ($7::text is null or asset = $7)
        order by seq desc limit $8`,
      [
        partition.accountId,
        window.fromId,
        window.toId,
        window.startMs,
        window.endMs,
        partition.kind ?? null,
        partition.asset ?? null,
        window.limit,
      ],
    )
    return rows.map(transferOf)
  }

  protected async selectLedger(
    accountId: number,
    window: TransferLedgerWindow,
    limit: number,
  ): Promise<TransferLedgerPage> {
    const where = `where account_id = $1 and timestamp_ms between $2 and $3
      and ($4::text is null or kind = $4)`
    // One statement, so that the count and the page see the same rows (a page past the end is
    // one row of nulls beside the count).
    const rows = await this.#driver.query<{
      total: string | number
      timestamp_ms: string | number | null
      seq: string | number | null
    }>(
      `select counted.total, page.timestamp_ms, page.seq
         from (select count(*) as total from account_transfers ${where}) counted
         left join (select timestamp_ms, kind, seq from account_transfers
           ${where} order by ${ledgerOrder} limit $5) page on true
        order by page.timestamp_ms desc, page.kind, page.seq desc`,
      [accountId, window.startMs, window.endMs, window.kind ?? null, limit],
    )
    return {
      total: Number(rows[0]?.total ?? 0),
      transfers: rows
        .filter((row) => row.seq != null)
        .map((row) => ({ timestamp: Number(row.timestamp_ms), seq: Number(row.seq) })),
    }
  }

  protected async selectSeqs(
    accountId: number,
    seqs: readonly number[],
  ): Promise<ArchivedTransfer[]> {
    const rows = await this.#driver.query<Row>(
      'select account_id, record from account_transfers where account_id = $1 and seq = any($2::bigint[])',
      [accountId, `{${seqs.join(',')}}`],
    )
    return rows.map(transferOf)
  }

  /** One round trip for many accounts (a start asks for every account with kept transfers). */
  protected override async newestIds(partitions: readonly TransferPartition[]): Promise<number[]> {
    if (partitions.length === 0) return []
    const rows = await this.#driver.query<{ seq: string | number | null }>(
      `select (select seq from account_transfers where account_id = wanted.account_id
                order by seq desc limit 1) as seq
         from unnest($1::bigint[]) with ordinality as wanted(account_id, position)
        order by wanted.position`,
      [`{${partitions.map((partition) => partition.accountId).join(',')}}`],
    )
    return rows.map((row) => Number(row.seq ?? 0))
  }

  protected async newestId(partition: TransferPartition): Promise<number> {
    const [row] = await this.#driver.query<{ seq: string | number | null }>(
      'select max(seq) as seq from account_transfers where account_id = $1',
      [partition.accountId],
    )
    return Number(row?.seq ?? 0)
  }

  protected async closeStore(): Promise<void> {
    // The driver belongs to the caller.
  }
}

/** The transfer archive of a storage location: a SQLite file beside an embedded database. */
export function openTransferArchive(location: StorageLocation, driver: SqlDriver): TransferArchive {
  if (location.kind === 'postgres') return new SqlTransferArchive(driver)
  if (location.dataDir === undefined) return new SqliteTransferArchive(undefined)
  mkdirSync(location.dataDir, { recursive: true })
  return new SqliteTransferArchive(join(location.dataDir, 'transfers.sqlite'))
}
