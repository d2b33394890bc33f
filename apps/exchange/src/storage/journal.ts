// The command journal with group commit. Appends get their sequence number at once (the order
// in which the server applied them) and a promise that settles when the record is durable.
// While one batch is being written, new records queue; the next write takes them all in one
// transaction. A durable write per command would cap throughput near 1/fsync; batching keeps
// the engine the limit, and each caller still waits only for its own record's commit.
import type { SqlDriver, SqlParam } from './sqlDriver.ts'

export type JournalRecord = { kind: string; payload: unknown }
export type JournalEntry = JournalRecord & { seq: number; recordedAtMs: number }

export type JournalOptions = {
  nowMs?: () => number
  /** Most records one transaction writes; a longer queue is written in several. */
  batchRecordsMax?: number
}

type Pending = { entry: JournalEntry; resolve: () => void; reject: (error: Error) => void }

export class JournalFailedError extends Error {
  override name = 'JournalFailedError'
}

export class Journal {
  readonly #driver: SqlDriver
  readonly #nowMs: () => number
  readonly #batchRecordsMax: number
  #nextSeq: number
  #queue: Pending[] = []
  #writing: Promise<void> | undefined
  #failure: Error | undefined
  /** Transactions written so far: with group commit, far fewer than records. */
  batchesWritten = 0

  private constructor(driver: SqlDriver, lastSeq: number, options: JournalOptions) {
    this.#driver = driver
    this.#nowMs = options.nowMs ?? Date.now
    this.#batchRecordsMax = options.batchRecordsMax ?? 1000
    this.#nextSeq = lastSeq + 1
  }

  static async open(driver: SqlDriver, options: JournalOptions = {}): Promise<Journal> {
    // Snapshots count too: the records a snapshot covers may have been pruned from the journal,
    // and numbering must never restart below a snapshot.
    const [row] = await driver.query<{ last: string | number | null }>(
      `select greatest(coalesce((select max(seq) from journal), 0),
                       coalesce((select max(seq) from snapshots), 0)) as last`,
    )
    return new Journal(driver, Number(row?.last ?? 0), options)
  }

  /** The sequence number the next append will get. */
  get nextSeq(): number {
    return this.#nextSeq
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
    // Let the current turn of the event loop add its records to this batch.
    await Promise.resolve()
    while (this.#queue.length > 0) {
      const batch = this.#queue.splice(0, this.#batchRecordsMax)
      try {
        await this.#insert(batch.map((pending) => pending.entry))
        this.batchesWritten += 1
        for (const pending of batch) pending.resolve()
      } catch (error) {
        // Memory now holds commands the database does not: nothing may be acknowledged after
        // this. Fail every waiting record and every later append; the server must stop.
        this.#failure = error as Error
        const failed = new JournalFailedError('journal write failed', { cause: error })
        for (const pending of [...batch, ...this.#queue.splice(0)]) pending.reject(failed)
      }
    }
    this.#writing = undefined
  }

  async #insert(entries: readonly JournalEntry[]): Promise<void> {
    const params: SqlParam[] = []
    const rows: string[] = []
    for (const entry of entries) {
      const at = params.length
      rows.push(`($${at + 1}, $${at + 2}, $${at + 3}::jsonb, $${at + 4})`)
      params.push(entry.seq, entry.kind, JSON.stringify(entry.payload), entry.recordedAtMs)
    }
    await this.#driver.transaction((tx) =>
      tx.query(
        `insert into journal (seq, kind, payload, recorded_at_ms) values ${rows.join(', ')}`,
        params,
      ),
    )
  }

  /** Waits until everything appended so far is durable (or has failed). */
  async drain(): Promise<void> {
    while (this.#writing) await this.#writing
    if (this.#failure) throw new JournalFailedError('journal failed', { cause: this.#failure })
  }

  /** Entries with seq > afterSeq, in order, at most `limit` of them. */
  async read(afterSeq: number, limit: number): Promise<JournalEntry[]> {
    const rows = await this.#driver.query<{
      seq: string | number
      kind: string
      payload: unknown
      recorded_at_ms: string | number
    }>(
      'select seq, kind, payload, recorded_at_ms from journal where seq > $1 order by seq limit $2',
      [afterSeq, limit],
    )
    return rows.map((row) => ({
      seq: Number(row.seq),
      kind: row.kind,
      payload: typeof row.payload === 'string' ? JSON.parse(row.payload) : row.payload,
      recordedAtMs: Number(row.recorded_at_ms),
    }))
  }
}
