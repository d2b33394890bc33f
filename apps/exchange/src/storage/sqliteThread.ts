// The server's side of a SQLite file on its own thread (sqliteWorker.ts).
import { Worker } from 'node:worker_threads'
import type {
  SqliteStatement,
  SqliteValue,
  SqliteWorkerCommand,
  SqliteWorkerData,
} from './sqliteWorker.ts'

import { type WorkerRequests, workerRequests } from './workerRequests.ts'

/** Rows per message: some 0.3 ms of this thread to make and send. */
const rowsPerMessage = 250

export class SqliteThread {
  readonly #path: string | undefined
  readonly #schema: string
  readonly #script: URL
  #requests: WorkerRequests<SqliteWorkerCommand, { rows: object[] }>
  #closing = false
  /** The write in progress: writes go one at a time, so none lands inside another's transaction. */
  #writing: Promise<unknown> = Promise.resolve()

  /**
   * Opens `path` (in memory when undefined) on a new thread and runs `schema` there. A thread
   * that dies (the requests it had fail) is started again at the next request. `script` is the
   * thread's code (a test passes one that can be made to die).
   */
  constructor(
    path: string | undefined,
    schema: string,
    script = new URL('./sqliteWorker.ts', import.meta.url),
  ) {
    this.#path = path
    this.#schema = schema
    this.#script = script
    this.#requests = this.#start()
  }

  #start(): WorkerRequests<SqliteWorkerCommand, { rows: object[] }> {
    const worker = new Worker(this.#script, {
      workerData: { path: this.#path, schema: this.#schema } satisfies SqliteWorkerData,
    })
    const requests = workerRequests<SqliteWorkerCommand, { rows: object[] }>(
      worker,
      `SQLite file ${this.#path ?? '(in memory)'}`,
      (error) => new Error(error.message),
    )
    worker.once('exit', () => {
      if (!this.#closing && this.#requests === requests) this.#dead = true
    })
    return requests
  }

  #dead = false

  /** The thread's requests, on a new thread if the last one died. */
  get #live(): WorkerRequests<SqliteWorkerCommand, { rows: object[] }> {
    if (this.#dead && !this.#closing) {
      this.#dead = false
      this.#requests = this.#start()
    }
    return this.#requests
  }

  /** The rows of one statement. */
  async all<Row extends object>(sql: string, params: readonly SqliteValue[]): Promise<Row[]> {
    return (await this.#live.send({ op: 'all', sql, params: [...params] })).rows as Row[]
  }

  /** The rows of each statement, read in one transaction: all see the same state of the file. */
  async allTogether(statements: readonly SqliteStatement[]): Promise<object[][]> {
    const reply = await this.#live.send({ op: 'allTogether', statements: [...statements] })
    return reply.rows as object[][]
  }

  /** Runs one statement that writes, after the writes before it; the number of rows it changed. */
  run(sql: string, params: readonly SqliteValue[]): Promise<number> {
    return this.#afterWrites(async () => {
      const [result] = (await this.#live.send({ op: 'run', sql, params: [...params] })).rows
      return (result as { changes: number }).changes
    })
  }

  #afterWrites<Result>(write: () => Promise<Result>): Promise<Result> {
    const done = this.#writing.then(write, write)
    this.#writing = done.catch(() => {})
    return done
  }

  /**
   * Runs one statement once per item's row, in one transaction: all the rows, or none of them.
   * Rows are made and sent `rowsPerMessage` at a time with the event loop running in between,
   * so a large transaction holds this thread a fraction of a millisecond at a time. The whole
   * transaction goes to one thread: if it dies part way, what is sent after fails too, and
   * nothing is committed on the thread started in its place.
   */
  runMany<Item>(
    sql: string,
    items: readonly Item[],
    rowOf: (item: Item) => SqliteValue[],
  ): Promise<void> {
    return this.#afterWrites(async () => {
      const thread = this.#live
      const appended: Promise<unknown>[] = []
      let failed = false
      for (let from = 0; from < items.length && !failed; from += rowsPerMessage) {
        if (from > 0) await new Promise<void>((resolve) => setImmediate(resolve))
        const rows = items.slice(from, from + rowsPerMessage).map(rowOf)
        const sent = thread.send({ op: 'append', sql, rows })
        // Handled at once: a message refused while later ones are still being made would
        // otherwise be an unhandled rejection until `Promise.all` below, which ends the
        // process. Nothing more is sent once one has failed.
        sent.catch(() => {
          failed = true
        })
        appended.push(sent)
      }
      try {
        await Promise.all(appended)
        await thread.send({ op: 'commit' })
      } catch (error) {
        await thread.send({ op: 'rollback' }).catch(() => {})
        throw error
      }
    })
  }

  async close(): Promise<void> {
    this.#closing = true
    await this.#requests.send({ op: 'close' }).catch(() => {}) // a dead thread is closed too
    await this.#requests.exited()
  }
}
