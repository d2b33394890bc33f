// What the archives of durable events share (public trades: tradeArchive.ts; each account's
// fills: fillArchive.ts): a projection fed after each journal commit and written in batches,
// whose reads take the written rows and the ones still waiting, so that an event a client was
// told of is listed whether or not its write has succeeded yet.
//
// - An event is written within its archive's flush interval (100 ms by default), in one
//   transaction with the others that came meanwhile, at most its archive's rows per transaction
//   (10,000 by default) with the event loop running in between.
// - A failed write is reported and tried again a second later, its events still listed; past
//   `archiveQueueMax` waiting events the oldest tenth is dropped, and that is reported once.
// - A crash loses at most the unwritten batch (one flush interval of events): on start the server
//   writes them again from what the core holds in memory (`catchUp`), which its snapshot and the
//   journal replay rebuild, and which reaches back past that batch unless the core has trimmed
//   a partition's events since (the catch-up names such a partition).
//
// Events fall into partitions (a market's trades; an account's fills in one market), and within
// one their ids rise with time: a listing is a window of one partition, newest first.

import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { SqlDriver, SqlParam } from './sqlDriver.ts'
import { SqliteThread } from './sqliteThread.ts'
import type { SqliteStatement, SqliteValue } from './sqliteWorker.ts'

/** Inclusive bounds of a listing, newest first, at most `limit`. */
export type ArchiveWindow = {
  startMs: number
  endMs: number
  fromId: number
  toId: number
  limit: number
}

/** Waiting events are written this long after the first of them arrives, by default. */
const archiveFlushIntervalMs = 100
/** How long after a failed write it is tried again. */
const archiveRetryMs = 1_000
/** Events kept waiting while writes fail (some 40 s of the heaviest load). */
export const archiveQueueMax = 1_000_000
/** Events written in one transaction at most, by default. */
const archiveWriteRowsMax = 10_000
/** A catch-up writes what it has queued every this many events (a first start can bring many). */
export const catchUpFlushRows = 50_000
/** Partitions whose newest ids a catch-up asks for at once. */
export const catchUpPartitionsPerQuery = 1_000

function* chunksOf<Item>(items: Iterable<Item>, size: number): Generator<Item[]> {
  let chunk: Item[] = []
  for (const item of items) {
    chunk.push(item)
    if (chunk.length === size) {
      yield chunk
      chunk = []
    }
  }
  if (chunk.length > 0) yield chunk
}

export type ArchiveOptions = {
  /** Waiting events past which the oldest tenth is dropped. */
  queueMax?: number
  flushIntervalMs?: number
  /** Rows per transaction, the event loop running between them. */
  writeRowsMax?: number
}

/** A caller of `writtenThrough`, waiting until this many events are written or dropped. */
type SettledWaiter = { mark: number; resolve: () => void; reject: (error: Error) => void }

/**
 * The queue and batched writes an archive is made of: events added after their journal commit,
 * written within the flush interval, and listed from memory until written (`waiting`).
 */
export abstract class BatchedArchive<Event> {
  abstract readonly kind: 'sqlite' | 'sql'
  /** Added, not yet being written. */
  #pending: Event[] = []
  /** Being written now (listed from memory until the write is done). */
  #writingBatch: readonly Event[] = []
  #writing: Promise<void> = Promise.resolve()
  #timer: NodeJS.Timeout | undefined
  /** The last write failed: the next is tried `archiveRetryMs` later, not at every event. */
  #failing = false
  /** Events dropped since the queue last overflowed (reported once per overflow). */
  #droppedReported = false
  #closed = false
  /**
   * Events are numbered as they are added (`#added` is the last number); the numbers of the first
   * event being written and of the first waiting tell which are written or dropped
   * (`#settledThrough`, for `writtenThrough`).
   */
  #added = 0
  #writingFirst = 0
  #pendingFirst = 1
  /** Those waiting in `writtenThrough` for every event up to their mark to be written. */
  #settledWaiters: SettledWaiter[] = []
  #onError: (error: Error) => void = () => {}
  readonly #queueMax: number
  readonly #flushIntervalMs: number
  readonly #writeRowsMax: number
  /** What the archive holds one of, for its messages ("trade", "fill"). */
  readonly #noun: string

  constructor(noun: string, options: ArchiveOptions = {}) {
    this.#noun = noun
    this.#queueMax = options.queueMax ?? archiveQueueMax
    this.#flushIntervalMs = options.flushIntervalMs ?? archiveFlushIntervalMs
    this.#writeRowsMax = options.writeRowsMax ?? archiveWriteRowsMax
  }

  protected get closed(): boolean {
    return this.#closed
  }

  /** Told of a failed write (its events stay queued and are tried again a second later). */
  onError(listener: (error: Error) => void): void {
    this.#onError = listener
  }

  /** Queues a durable event; it is written within the flush interval. */
  add(event: Event): void {
    if (this.#closed) return
    this.#added += 1
    if (this.#pending.length === 0) this.#pendingFirst = this.#added
    this.#pending.push(event)
    if (this.#pending.length > this.#queueMax) {
      // Writes have been failing for a long while: the oldest tenth goes at once (only the
      // core's memory, at the next start, can bring them back).
      const dropped = this.#pending.splice(0, Math.ceil(this.#queueMax / 10)).length
      this.#pendingFirst += dropped
      this.#releaseSettled()
      if (!this.#droppedReported)
        this.#onError(
          new Error(
            `${this.#noun} archive queue full: ${dropped} ${this.#noun}s and more not archived`,
          ),
        )
      this.#droppedReported = true
    }
    this.#schedule(this.#failing ? archiveRetryMs : this.#flushIntervalMs)
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
   * the archive's rows per transaction with the event loop running in between (a backlog after an outage
   * does not hold it). A failure is reported through `onError` and retried a second later.
   */
  flush(): Promise<void> {
    clearTimeout(this.#timer)
    this.#timer = undefined
    const write = async (): Promise<void> => {
      while (this.#pending.length > 0) {
        const batch = this.#pending.splice(0, this.#writeRowsMax)
        this.#writingBatch = batch
        this.#writingFirst = this.#pendingFirst
        // Past a failed batch put back ahead of a queue that dropped some meanwhile, the numbers
        // run on with a gap: this then counts low, so a waiter waits longer, never less.
        this.#pendingFirst += batch.length
        try {
          await this.insert(batch)
        } catch (error) {
          // Kept for the next attempt, ahead of what arrived meanwhile.
          this.#pending = batch.concat(this.#pending)
          this.#pendingFirst = this.#writingFirst
          this.#failing = true
          for (const waiter of this.#settledWaiters.splice(0)) waiter.reject(error as Error)
          this.#onError(error as Error)
          clearTimeout(this.#timer)
          this.#timer = undefined
          this.#schedule(archiveRetryMs)
          throw error
        } finally {
          this.#writingBatch = []
        }
        this.#failing = false
        this.#droppedReported = false
        this.#releaseSettled()
        if (this.#pending.length > 0) await new Promise<void>((resolve) => setImmediate(resolve))
      }
    }
    const written = this.#writing.then(write)
    this.#writing = written.catch(() => {}) // a failed write does not stop later ones
    return written
  }

  /** The number of the last event up to which every event is written or dropped. */
  get #settledThrough(): number {
    if (this.#writingBatch.length > 0) return this.#writingFirst - 1
    if (this.#pending.length > 0) return this.#pendingFirst - 1
    return this.#added
  }

  /** Lets go of those waiting in `writtenThrough` whose events are all written or dropped. */
  #releaseSettled(): void {
    if (this.#settledWaiters.length === 0) return
    const through = this.#settledThrough
    const waiting: SettledWaiter[] = []
    for (const waiter of this.#settledWaiters)
      if (waiter.mark <= through) waiter.resolve()
      else waiting.push(waiter)
    this.#settledWaiters = waiting
  }

  /**
   * Resolves once every event added before the call is written (the write started now if none
   * is under way), however many arrive meanwhile; rejects at once while writes are failing, and
   * when the write fails.
   */
  writtenThrough(): Promise<void> {
    const mark = this.#added
    if (this.#settledThrough >= mark) return Promise.resolve()
    if (this.#failing) return Promise.reject(new Error(`${this.#noun} archive writes are failing`))
    const settled = new Promise<void>((resolve, reject) =>
      this.#settledWaiters.push({ mark, resolve, reject }),
    )
    this.flush().catch(() => {}) // its failure reaches the waiters above
    return settled
  }

  /** The events added and not yet written, oldest first (the batch being written first). */
  protected waiting(): readonly Event[] {
    return this.#writingBatch.length === 0
      ? this.#pending
      : this.#writingBatch.concat(this.#pending)
  }

  /** How many events wait to be written (not counting a batch being written). */
  protected get queued(): number {
    return this.#pending.length
  }

  /** How many events are not yet written, a batch being written included (for /metrics). */
  get waitingCount(): number {
    return this.#pending.length + this.#writingBatch.length
  }

  /** Writes what is queued and closes the store (`beforeClose` lets a subclass stop its work). */
  async close(): Promise<void> {
    await this.flush().catch(() => {})
    this.#closed = true
    clearTimeout(this.#timer)
    await this.beforeClose()
    await this.closeStore()
  }

  protected async beforeClose(): Promise<void> {}

  protected abstract insert(events: readonly Event[]): Promise<void>
  protected abstract closeStore(): Promise<void>
}

/**
 * An archive whose events fall into partitions with numeric ids that rise with time: listed by a
 * window of ids and times, and caught up after a crash from the partitions' newest ids.
 */
export abstract class ProjectionArchive<Event, Partition> extends BatchedArchive<Event> {
  /** A partition's events in the window, newest first: those written, and those still waiting. */
  protected async listIn(partition: Partition, window: ArchiveWindow): Promise<Event[]> {
    const waiting: Event[] = []
    const take = (events: readonly Event[]) => {
      for (const event of events) {
        const time = this.timeOf(event)
        const id = this.idOf(event)
        if (
          this.isIn(event, partition) &&
          time >= window.startMs &&
          time <= window.endMs &&
          id >= window.fromId &&
          id <= window.toId
        )
          waiting.push(event)
      }
    }
    take(this.waiting())
    const written = await this.select(partition, window)
    if (waiting.length === 0) return written
    const byId = new Map<number, Event>()
    for (const event of written) byId.set(this.idOf(event), event)
    for (const event of waiting) byId.set(this.idOf(event), event)
    return [...byId.values()].sort((a, b) => this.idOf(b) - this.idOf(a)).slice(0, window.limit)
  }

  /**
   * Writes the events of `recent` (per partition, oldest first, as the core keeps them) newer
   * than the archive's newest of that partition, however old: what a crash kept from being
   * written (the core keeps no more of a partition than its archive keeps whatever the age, as a
   * market's newest trades). Returns how many were written, and the partitions whose recent
   * events no longer reach back to the archive's newest (a gap the core's memory cannot fill).
   */
  async catchUp(
    recent: Iterable<[partition: Partition, events: readonly Event[]]>,
  ): Promise<{ written: number; gaps: Partition[] }> {
    let written = 0
    const gaps: Partition[] = []
    for (const chunk of chunksOf(recent, catchUpPartitionsPerQuery)) {
      const knowns = await this.newestIds(chunk.map(([partition]) => partition))
      written += await this.#catchUpChunk(chunk, knowns, gaps)
    }
    // A store that refuses writes now does not keep the server from starting: the events wait
    // in the queue, and the write is retried.
    await this.flush().catch(() => {})
    return { written, gaps }
  }

  async #catchUpChunk(
    chunk: readonly [partition: Partition, events: readonly Event[]][],
    knowns: readonly number[],
    gaps: Partition[],
  ): Promise<number> {
    let written = 0
    for (const [index, [partition, events]] of chunk.entries()) {
      const known = knowns[index]!
      const missing = events.filter((event) => this.idOf(event) > known)
      if (missing.length === 0) continue
      if (known > 0 && this.missesSome(known, events, missing[0]!)) gaps.push(partition)
      for (const event of missing) this.add(event)
      written += missing.length
      // Written as it goes: a first start after an upgrade can bring more than the queue holds.
      if (this.queued >= catchUpFlushRows) await this.flush().catch(() => {})
    }
    return written
  }

  /**
   * Whether events may be missing between the archive's newest (`known`) and the first one the
   * core holds beyond it (`firstMissing`); `recent` is all the core holds of the partition.
   */
  protected abstract missesSome(
    known: number,
    recent: readonly Event[],
    firstMissing: Event,
  ): boolean

  protected abstract idOf(event: Event): number
  protected abstract timeOf(event: Event): number
  protected abstract isIn(event: Event, partition: Partition): boolean
  protected abstract select(partition: Partition, window: ArchiveWindow): Promise<Event[]>
  /** The newest archived id of a partition, 0 for none (one step down the primary key). */
  protected abstract newestId(partition: Partition): Promise<number>

  /** `newestId` of each partition; a store reached over a network asks for them at once. */
  protected async newestIds(partitions: readonly Partition[]): Promise<number[]> {
    const ids: number[] = []
    for (const partition of partitions) ids.push(await this.newestId(partition))
    return ids
  }
}

/**
 * An archive's SQLite file (in memory when `path` is undefined), in WAL mode. A file is read on
 * the event loop (the long reads, through `readTogether`, on a thread of their own) and written on a
 * thread of its own (`SqliteThread`), which checkpoints it too:
 * the first write after a checkpoint has caught up starts the log over, and SQLite then syncs the
 * log's new header, which on a slow disk held the event loop for 42-350 ms when the writes were
 * made here (`perf trace`, 2026-11-27; see the fourteenth machine in docs/figures-by-machine.md).
 * The event loop's connection only reads after it has made the schema, so it never starts the log
 * over. In memory the two must be one connection, on the event loop.
 */
export class SqliteArchiveFile {
  /** The event loop's connection: every read, and in memory every write. */
  readonly db: DatabaseSync
  readonly #writer: SqliteThread | undefined
  /** The long reads' thread (`readTogether`), once one is asked for. */
  #reader: SqliteThread | undefined
  readonly #path: string | undefined
  readonly #schema: string
  readonly #statements = new Map<string, StatementSync>()

  constructor(path: string | undefined, schema: string) {
    this.#path = path
    this.#schema = schema
    this.db = new DatabaseSync(path ?? ':memory:')
    this.db.exec(`
      pragma journal_mode = wal;
      pragma synchronous = normal;
      pragma wal_autocheckpoint = ${path === undefined ? 1000 : 0};
      ${schema}
    `)
    this.#writer = path === undefined ? undefined : new SqliteThread(path, schema)
  }

  /** Runs `sql` once per row, in one transaction: all the rows, or none of them. */
  async insertAll(sql: string, rows: readonly (readonly SqliteValue[])[]): Promise<void> {
    if (this.#writer !== undefined) return this.#writer.runMany(sql, rows, (row) => [...row])
    const insert = this.#prepared(sql)
    this.db.exec('begin')
    try {
      for (const row of rows) insert.run(...row)
      this.db.exec('commit')
    } catch (error) {
      if (this.db.isTransaction) this.db.exec('rollback')
      throw error
    }
  }

  /**
   * The rows of each statement, read in one transaction (all see the same state of the file),
   * for reads that take long: on a reading thread of the file's own (started at the first such
   * read; WAL lets it read while the writer writes), or in memory on the event loop.
   */
  async readTogether(statements: readonly SqliteStatement[]): Promise<object[][]> {
    if (!this.db.isOpen) throw new Error('the archive file is closed')
    if (this.#path === undefined)
      return statements.map(({ sql, params }) => this.#prepared(sql).all(...params))
    this.#reader ??= new SqliteThread(this.#path, this.#schema)
    return this.#reader.allTogether(statements)
  }

  /** Runs one statement that writes; the number of rows it changed. */
  async run(sql: string, params: readonly SqliteValue[]): Promise<number> {
    if (this.#writer !== undefined) return this.#writer.run(sql, params)
    return Number(this.#prepared(sql).run(...params).changes)
  }

  #prepared(sql: string): StatementSync {
    let statement = this.#statements.get(sql)
    if (statement === undefined) {
      statement = this.db.prepare(sql)
      this.#statements.set(sql, statement)
    }
    return statement
  }

  /** Closes the event loop's connection first: the last to close checkpoints, on its thread. */
  async close(): Promise<void> {
    if (this.db.isOpen) this.db.close()
    await this.#reader?.close()
    await this.#writer?.close()
  }
}

/** An account's ledger reads running or waiting, at most: a read past them is refused. */
export const ledgerReadsPerAccountMax = 3

/** A ledger read refused because the account already has `ledgerReadsPerAccountMax` under way. */
export class LedgerBusyError extends Error {
  override name = 'LedgerBusyError'
  constructor() {
    super(`an account may have ${ledgerReadsPerAccountMax} ledger reads under way at most`)
  }
}

/**
 * Each account's long reads in a line, one at a time: a caller asking again and again waits
 * behind itself, and one with `ledgerReadsPerAccountMax` running or waiting is refused
 * (`LedgerBusyError`), unless it must be answered (`waitWhenBusy`: the reply of a change
 * already applied), and then it waits its turn.
 */
export class AccountReadLines {
  /** Each account's line: its last read, and how many are running or waiting. */
  readonly #lines = new Map<number, { last: Promise<unknown>; count: number }>()

  run<Result>(
    accountId: number,
    read: () => Promise<Result>,
    waitWhenBusy = false,
  ): Promise<Result> {
    const line = this.#lines.get(accountId) ?? { last: Promise.resolve(), count: 0 }
    if (line.count >= ledgerReadsPerAccountMax && !waitWhenBusy)
      return Promise.reject(new LedgerBusyError())
    line.count += 1
    this.#lines.set(accountId, line)
    const result = line.last.then(read)
    const done = () => {
      line.count -= 1
      if (line.count === 0) this.#lines.delete(accountId)
    }
    line.last = result.then(done, done)
    return result
  }
}

/** PostgreSQL's limit on the parameters of one statement. */
const sqlParametersMax = 65_535

/**
 * Inserts rows in one transaction, as few statements as PostgreSQL's parameter limit allows; a
 * row already there (a catch-up after a crash) is the same event and is kept as it is.
 */
export function insertIgnoringDuplicates(
  driver: SqlDriver,
  table: string,
  columns: string,
  rows: readonly (readonly SqlParam[])[],
): Promise<void> {
  return insertRows(driver, table, columns, rows, 'on conflict do nothing')
}

/**
 * Inserts rows in one transaction, as few statements as PostgreSQL's parameter limit allows,
 * with `onConflict` (its clause) for a row already there.
 */
export async function insertRows(
  driver: SqlDriver,
  table: string,
  columns: string,
  rows: readonly (readonly SqlParam[])[],
  onConflict: string,
): Promise<void> {
  const width = columns.split(',').length
  const rowsPerStatement = Math.floor(sqlParametersMax / width)
  await driver.transaction(async (tx) => {
    for (let from = 0; from < rows.length; from += rowsPerStatement) {
      const chunk = rows.slice(from, from + rowsPerStatement)
      const values = chunk.map((_, index) => {
        const placeholders = Array.from({ length: width }, (_, at) => `$${index * width + at + 1}`)
        return `(${placeholders.join(', ')})`
      })
      await tx.query(
        `insert into ${table} (${columns}) values ${values.join(', ')} ${onConflict}`,
        chunk.flat(),
      )
    }
  })
}
