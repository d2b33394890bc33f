// Where the command journal's batches are stored. One group commit is one row: its records as one
// JSON array of [seq, kind, payload, recordedAtMs], keyed by the batch's last seq.
//
// - PostgreSQL (DATABASE_URL): the `journal_batches` table beside everything else.
// - Embedded default: a SQLite file (`journal.sqlite`, Node's built-in node:sqlite, WAL mode)
//   beside the embedded PGlite database, which keeps every other table. Measured on the load
//   benchmark, the journal is the only hot write path, and a PGlite commit there cost about a
//   third of the server's CPU on the event loop, and 8-15 ms per commit once moved to a worker
//   thread (round trips between threads on two busy cores); a SQLite commit of the same batch
//   takes 15-25 µs on the event loop. SQLite commits in WAL mode with synchronous=NORMAL: a
//   committed batch is in the operating system's hands before the call returns, so it survives
//   `kill -9` of the server (as PGlite's commits do); surviving power loss as well is what the
//   PostgreSQL deployment is for. Checkpoints (the only step that waits for the disk) run on a
//   thread of their own (journalCheckpointer.ts), never inside a commit.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import { Worker } from 'node:worker_threads'
import type { CheckpointerData } from './journalCheckpointer.ts'
import { isConnectionError } from './postgresWriter.ts'
import type { SqlDriver } from './sqlDriver.ts'

export type JournalBatch = {
  firstSeq: number
  lastSeq: number
  /** JSON array of [seq, kind, payload, recordedAtMs]. */
  records: string
  writtenAtMs: number
}

export interface JournalBackend {
  readonly kind: 'sqlite' | 'sql'
  /** The highest seq stored, 0 when empty. */
  lastSeq(): Promise<number>
  /** Writes one batch durably: all of it or, on failure, none of it. */
  write(batch: JournalBatch): Promise<void>
  /** The `records` of up to `limit` batches holding records after `afterSeq`, oldest first. */
  readBatches(afterSeq: number, limit: number): Promise<string[]>
  /** Drops the batches whose records all have seq <= throughSeq. */
  prune(throughSeq: number): Promise<void>
  close(): Promise<void>
}

/** A batch would hold a seq a stored batch holds: another server writes this database. */
export class JournalOverlapError extends Error {
  override name = 'JournalOverlapError'
  readonly code = 'JOURNAL_OVERLAP'
}

/** A PostgreSQL journal commit did not finish within `journalWriteMsMax`, retries included. */
export class JournalWriteTimeoutError extends Error {
  override name = 'JournalWriteTimeoutError'
  readonly code = 'JOURNAL_WRITE_TIMEOUT'
}

/**
 * Longest one batch's commit may take on PostgreSQL, retries on fresh connections included
 * (as long as the writer session's statement_timeout, postgresWriter.ts): enough to ride out a
 * dropped connection, a pooler's restart or a brief lock on the table; past it the journal
 * fails and the exchange halts, as a restart then does better than every command waiting.
 */
export const journalWriteMsMax = 5_000
/** Longest pause between two attempts of one batch's commit. */
const journalRetryPauseMsMax = 500

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The journal in the `journal_batches` table of a SQL database (migration 4). */
export class SqlJournalBackend implements JournalBackend {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver) {
    this.#driver = driver
  }

  async lastSeq(): Promise<number> {
    const [row] = await this.#driver.query<{ last: string | number | null }>(
      'select max(last_seq) as last from journal_batches',
    )
    return Number(row?.last ?? 0)
  }

  /**
   * Commits `batch`, on a connection that failed trying again on a fresh one until
   * `journalWriteMsMax` has passed (safe with one writer per database: no one else writes these
   * seqs). After a failed connection the batch may have committed with its answer lost: the
   * row is read back first, and its records compared.
   */
  async write(batch: JournalBatch): Promise<void> {
    const startedMs = performance.now()
    let inDoubt = false
    let pauseMs = 25
    for (;;) {
      const leftMs = journalWriteMsMax - (performance.now() - startedMs)
      try {
        await this.#attemptWithin(batch, inDoubt, leftMs)
        return
      } catch (error) {
        if (!isConnectionError(error) || performance.now() - startedMs >= journalWriteMsMax)
          throw error
        inDoubt = true
        await sleep(Math.min(pauseMs, Math.max(0, leftMs)))
        pauseMs = Math.min(pauseMs * 2, journalRetryPauseMsMax)
      }
    }
  }

  /** One attempt, abandoned (as a timeout) once `leftMs` is gone: a partition never answers. */
  async #attemptWithin(batch: JournalBatch, inDoubt: boolean, leftMs: number): Promise<void> {
    const attempt = this.#attempt(batch, inDoubt)
    let timer: ReturnType<typeof setTimeout> | undefined
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new JournalWriteTimeoutError(
              `journal batch of seqs ${batch.firstSeq}-${batch.lastSeq} did not commit within ` +
                `${journalWriteMsMax} ms`,
            ),
          ),
        Math.max(0, leftMs),
      )
    })
    try {
      await Promise.race([attempt, timeout])
    } finally {
      clearTimeout(timer)
      attempt.catch(() => {}) // an abandoned attempt's end is no longer anyone's concern
    }
  }

  async #attempt(batch: JournalBatch, inDoubt: boolean): Promise<void> {
    if (inDoubt && (await this.#storedAlready(batch))) return
    const writer = this.#driver.writer
    try {
      // One statement is its own transaction, in one round trip. On a server's storage it
      // commits only while this server holds the writer lock (taken again on a new connection).
      const rows = await (writer ?? this.#driver).query(
        `insert into journal_batches (last_seq, first_seq, records, written_at_ms)
           select $1, $2, $3, $4${writer === undefined ? '' : ` where ${writer.lockCondition}`}
           returning last_seq`,
        [batch.lastSeq, batch.firstSeq, batch.records, batch.writtenAtMs],
      )
      if (rows.length === 0 && writer !== undefined) throw writer.lockTakenOver()
    } catch (error) {
      const code = (error as { code?: unknown }).code
      // exclusion_violation (migration 10) or unique_violation (the key): a batch holds some of
      // these seqs. An earlier attempt of this one may have committed late, after its
      // connection was seen to fail.
      if (code !== '23P01' && code !== '23505') throw error
      if (inDoubt && (await this.#storedAlready(batch))) return
      throw new JournalOverlapError(
        `journal batch of seqs ${batch.firstSeq}-${batch.lastSeq} overlaps a stored batch: ` +
          'another server writes this database',
        { cause: error },
      )
    }
  }

  /** Whether `batch` is stored (an attempt whose answer was lost committed it). */
  async #storedAlready(batch: JournalBatch): Promise<boolean> {
    const [stored] = await (this.#driver.writer ?? this.#driver).query<{ records: string }>(
      'select records from journal_batches where last_seq = $1',
      [batch.lastSeq],
    )
    if (stored === undefined) return false
    if (stored.records === batch.records) return true
    throw new JournalOverlapError(
      `journal batch of seqs ${batch.firstSeq}-${batch.lastSeq} was stored with other records: ` +
        'another server writes this database',
    )
  }

  async readBatches(afterSeq: number, limit: number): Promise<string[]> {
    const rows = await this.#driver.query<{ records: string }>(
      'select records from journal_batches where last_seq > $1 order by last_seq limit $2',
      [afterSeq, limit],
    )
    return rows.map((row) => row.records)
  }

  async prune(throughSeq: number): Promise<void> {
    await this.#driver.query('delete from journal_batches where last_seq <= $1', [throughSeq])
  }

  async close(): Promise<void> {
    // The driver belongs to the caller.
  }
}

/**
 * Starts the thread that checkpoints the SQLite file at `path` every `intervalMs`
 * (journalCheckpointer.ts). It does not keep the process alive, and says nothing unless it
 * breaks, when checkpoints stop: commits still append to the log, which the next open
 * checkpoints.
 */
export function startCheckpointer(path: string, intervalMs: number): Worker {
  const checkpointer = new Worker(new URL('./journalCheckpointer.ts', import.meta.url), {
    workerData: { path, intervalMs } satisfies CheckpointerData,
  })
  checkpointer.unref()
  checkpointer.on('error', () => {})
  return checkpointer
}

/** Stops a checkpointer thread and waits until it has closed its connection. */
export async function stopCheckpointer(checkpointer: Worker | undefined): Promise<void> {
  if (checkpointer === undefined || checkpointer.threadId === -1) return
  checkpointer.ref()
  const exited = new Promise((resolve) => checkpointer.once('exit', resolve))
  checkpointer.postMessage('stop')
  await exited
}

/**
 * Batches deleted in one step of a prune: a snapshot a minute at 5,000 orders/s leaves some
 * 60,000 batches to forget, which deleted in one statement held the event loop 40 ms.
 */
export const pruneBatchesPerStep = 2_000

/** Journal bytes after which the writer checkpoints once itself, so the log starts over. */
const walRestartBytes = 64 * 1024 * 1024

/** The journal in a SQLite file (or in memory when `path` is undefined). */
export class SqliteJournalBackend implements JournalBackend {
  readonly kind = 'sqlite'
  readonly #db: DatabaseSync
  readonly #insert: StatementSync
  readonly #select: StatementSync
  readonly #delete: StatementSync
  readonly #last: StatementSync

  readonly #checkpointer: Worker | undefined
  #bytesSinceCheckpoint = 0

  constructor(path: string | undefined, options: { checkpointIntervalMs?: number } = {}) {
    this.#db = new DatabaseSync(path ?? ':memory:')
    this.#db.exec(`
      pragma journal_mode = wal;
      pragma synchronous = normal;
      pragma wal_autocheckpoint = ${path === undefined ? 1000 : 0};
      pragma journal_size_limit = ${walRestartBytes};
      create table if not exists journal_batches (
        last_seq integer primary key,
        first_seq integer not null,
        records text not null,
        written_at_ms integer not null
      ) strict;
    `)
    this.#insert = this.#db.prepare(
      'insert into journal_batches (last_seq, first_seq, records, written_at_ms) values (?, ?, ?, ?)',
    )
    this.#select = this.#db.prepare(
      'select records from journal_batches where last_seq > ? order by last_seq limit ?',
    )
    this.#delete = this.#db.prepare(
      `delete from journal_batches where last_seq in
         (select last_seq from journal_batches where last_seq <= ? order by last_seq limit ?)`,
    )
    this.#last = this.#db.prepare('select max(last_seq) as last from journal_batches')
    if (path !== undefined) {
      this.#checkpointer = startCheckpointer(path, options.checkpointIntervalMs ?? 200)
    }
  }

  async lastSeq(): Promise<number> {
    return Number((this.#last.get() as { last: number | null } | undefined)?.last ?? 0)
  }

  async write(batch: JournalBatch): Promise<void> {
    this.#insert.run(batch.lastSeq, batch.firstSeq, batch.records, batch.writtenAtMs)
    if (this.#checkpointer === undefined) return
    // The log starts over only at a commit that finds it wholly checkpointed, which a writer
    // that never pauses never does: every so many bytes, this connection checkpoints the little
    // the background thread has not yet copied, and the next commit starts the log again.
    this.#bytesSinceCheckpoint += batch.records.length
    if (this.#bytesSinceCheckpoint >= walRestartBytes) {
      this.#bytesSinceCheckpoint = 0
      try {
        this.#db.exec('pragma wal_checkpoint(passive)')
      } catch {
        // Busy: the batch is committed all the same; the log starts over a little later.
      }
    }
  }

  async readBatches(afterSeq: number, limit: number): Promise<string[]> {
    return (this.#select.all(afterSeq, limit) as { records: string }[]).map((row) => row.records)
  }

  async prune(throughSeq: number): Promise<void> {
    // A step at a time, the loop running in between; a crash part way leaves old batches that
    // replay never reads (they are older than the snapshot) and the next prune deletes.
    while (
      Number(this.#delete.run(throughSeq, pruneBatchesPerStep).changes) === pruneBatchesPerStep
    )
      await new Promise<void>((resolve) => setImmediate(resolve))
  }

  async close(): Promise<void> {
    await stopCheckpointer(this.#checkpointer)
    // The last connection to close checkpoints what is left of the log.
    if (this.#db.isOpen) this.#db.close()
  }
}

/**
 * The journal's store for a storage location: SQLite beside an embedded database (taking over,
 * once, any batches an older version wrote into its `journal_batches` table), the database
 * itself for PostgreSQL.
 */
export async function openJournalBackend(
  location: { kind: 'embedded'; dataDir: string | undefined } | { kind: 'postgres' },
  driver: SqlDriver,
): Promise<JournalBackend> {
  if (location.kind === 'postgres') return new SqlJournalBackend(driver)
  if (location.dataDir !== undefined) mkdirSync(location.dataDir, { recursive: true })
  const backend = new SqliteJournalBackend(
    location.dataDir === undefined ? undefined : join(location.dataDir, 'journal.sqlite'),
  )
  try {
    await adoptEmbeddedBatches(driver, backend)
  } catch (error) {
    await backend.close()
    throw error
  }
  return backend
}

async function adoptEmbeddedBatches(driver: SqlDriver, backend: JournalBackend): Promise<void> {
  const rows = await driver.query<{
    last_seq: string | number
    first_seq: string | number
    records: string
    written_at_ms: string | number
  }>('select last_seq, first_seq, records, written_at_ms from journal_batches order by last_seq')
  if (rows.length === 0) return
  const stored = await backend.lastSeq()
  for (const row of rows) {
    if (Number(row.last_seq) <= stored) continue // copied before a crash that kept the rows
    await backend.write({
      firstSeq: Number(row.first_seq),
      lastSeq: Number(row.last_seq),
      records: row.records,
      writtenAtMs: Number(row.written_at_ms),
    })
  }
  await driver.query('delete from journal_batches')
}
