// The command journal with group commit. Appends get their sequence number at once (the order
// in which the server applied them) and a promise that settles when the record is durable.
// While one batch is being written, new records queue; the next write takes them all in one
// transaction. A durable write per command would cap throughput near 1/fsync; batching keeps
// the engine the limit, and each caller still waits only for its own record's commit.
import { type JournalBackend, openJournalBackend } from './journalBackends.ts'
import type { StorageLocation } from './openStorage.ts'
import { openSnapshotStore } from './snapshotStore.ts'
import type { SqlDriver } from './sqlDriver.ts'

export type JournalRecord = { kind: string; payload: unknown }
export type JournalEntry = JournalRecord & { seq: number; recordedAtMs: number }

export type JournalOptions = {
  nowMs?: () => number
  /** Most records one transaction writes; a longer queue is written in several. */
  batchRecordsMax?: number
  /**
   * The newest snapshot's seq: the records a snapshot covers may have been pruned from the
   * journal, and numbering must never restart below a snapshot.
   */
  floorSeq?: number
}

type Pending = { entry: JournalEntry; resolve: () => void; reject: (error: Error) => void }

export class JournalFailedError extends Error {
  override name = 'JournalFailedError'
}

export class Journal {
  readonly backend: JournalBackend
  readonly #nowMs: () => number
  readonly #batchRecordsMax: number
  #nextSeq: number
  #queue: Pending[] = []
  /** The batch being written, its records not yet durable. */
  #batch: Pending[] = []
  #writing: Promise<void> | undefined
  #failure: Error | undefined
  /** Transactions written so far: with group commit, far fewer than records. */
  batchesWritten = 0
  /** Records written so far (records per transaction is what group commit gains). */
  recordsWritten = 0

  private constructor(backend: JournalBackend, lastSeq: number, options: JournalOptions) {
    this.backend = backend
    this.#nowMs = options.nowMs ?? Date.now
    this.#batchRecordsMax = options.batchRecordsMax ?? 1000
    this.#nextSeq = lastSeq + 1
  }

  static async open(backend: JournalBackend, options: JournalOptions = {}): Promise<Journal> {
    const last = Math.max(await backend.lastSeq(), options.floorSeq ?? 0)
    return new Journal(backend, last, options)
  }

  /** The sequence number the next append will get. */
  get nextSeq(): number {
    return this.#nextSeq
  }

  /**
   * When the oldest record not yet durable was appended (`nowMs`), undefined when every record
   * is: how long the exchange's oldest waiting command has waited for its commit (/health).
   */
  get uncommittedSinceMs(): number | undefined {
    return (this.#batch[0] ?? this.#queue[0])?.entry.recordedAtMs
  }

  /** Whether a write has failed: nothing more will be durable (the exchange halts). */
  get failed(): boolean {
    return this.#failure !== undefined
  }

  append(record: JournalRecord): { seq: number; durable: Promise<void> } {
    if (this.#failure)
      throw new JournalFailedError('journal failed earlier', { cause: this.#failure })
    const entry: JournalEntry = { ...record, seq: this.#nextSeq++, recordedAtMs: this.#nowMs() }
    const durable = new Promise<void>((resolve, reject) => {
      this.#queue.push({ entry, resolve, reject })
    })
    this.#writing ??= this.#writeQueued()
    return { seq: entry.seq, durable }
  }

  async #writeQueued(): Promise<void> {
    // Let the whole event-loop turn add its records: every message read from every socket in
    // this turn's poll phase goes into one commit, written in the check phase that follows.
    // Each commit writes at least a page of the journal, and the replies it releases leave as a
    // burst of their own: on a virtual machine whose system calls and wake-ups are dear, at
    // 5,000 orders/s from 20 sockets, a commit per task (per socket read) held 1.06 records, one
    // per turn holds 4.3, and the server's main thread went from 61-78% of a core to 42-55% with
    // the acknowledgement p99 no worse (bench/exchange/load.bench.ts prints records per commit).
    // An earlier machine had measured the opposite, when a commit cost less there.
    await new Promise<void>((resolve) => setImmediate(resolve))
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchRecordsMax)
      this.#batch = batch
      try {
        await this.#insert(batch.map((pending) => pending.entry))
        this.batchesWritten += 1
        this.recordsWritten += batch.length
        for (const pending of batch) pending.resolve()
      } catch (error) {
        // Memory now holds commands the database does not: nothing may be acknowledged after
        // this. Fail every waiting record and every later append; the server must stop.
        this.#failure = error as Error
        const failed = new JournalFailedError('journal write failed', { cause: error })
        for (const pending of [...batch, ...this.#queue.splice(0)]) pending.reject(failed)
      }
      this.#batch = []
    }
    this.#writing = undefined
  }

  async #insert(entries: readonly JournalEntry[]): Promise<void> {
    const records = entries.map((entry) => [
      entry.seq,
      entry.kind,
      entry.payload,
      entry.recordedAtMs,
    ])
    await this.backend.write({
      firstSeq: entries[0]!.seq,
      lastSeq: entries.at(-1)!.seq,
      records: JSON.stringify(records),
      writtenAtMs: this.#nowMs(),
    })
  }

  /** Drops what no recovery will read again: the batches wholly at or below `throughSeq`. */
  prune(throughSeq: number): Promise<void> {
    return this.backend.prune(throughSeq)
  }

  /** Closes the journal's store (after `drain`, for a clean stop). */
  close(): Promise<void> {
    return this.backend.close()
  }

  /** Waits until everything appended so far is durable (or has failed). */
  async drain(): Promise<void> {
    while (this.#writing) await this.#writing
    if (this.#failure) throw new JournalFailedError('journal failed', { cause: this.#failure })
  }

  /** Entries with seq > afterSeq, in order, at most `limit` of them. */
  async read(afterSeq: number, limit: number): Promise<JournalEntry[]> {
    // Every batch holds at least one record after afterSeq (only the first may straddle it),
    // so `limit` batches hold at least `limit` wanted records, or all that remain.
    const batches = await this.backend.readBatches(afterSeq, limit)
    const entries: JournalEntry[] = []
    for (const records of batches) {
      for (const [seq, kind, payload, recordedAtMs] of JSON.parse(records) as [
        number,
        string,
        unknown,
        number,
      ][]) {
        if (seq > afterSeq && entries.length < limit)
          entries.push({ seq, kind, payload, recordedAtMs })
      }
    }
    return entries
  }
}

/** The journal of a storage location (see journalBackends.ts), numbering above its newest snapshot. */
export async function openJournal(
  location: StorageLocation,
  driver: SqlDriver,
  options: Omit<JournalOptions, 'floorSeq'> = {},
): Promise<Journal> {
  return Journal.open(await openJournalBackend(location, driver), {
    ...options,
    floorSeq: await openSnapshotStore(location, driver).latestSeq(),
  })
}
