// The server's side of a SQLite file on its own thread (sqliteWorker.ts).
import { Worker } from 'node:worker_threads'
import type { SqliteValue, SqliteWorkerCommand, SqliteWorkerData } from './sqliteWorker.ts'
import { type WorkerRequests, workerRequests } from './workerRequests.ts'

export class SqliteThread {
  readonly #requests: WorkerRequests<SqliteWorkerCommand, { rows: object[] }>

  /** Opens `path` (in memory when undefined) on a new thread and runs `schema` there. */
  constructor(path: string | undefined, schema: string) {
    const worker = new Worker(new URL('./sqliteWorker.ts', import.meta.url), {
      workerData: { path, schema } satisfies SqliteWorkerData,
    })
    this.#requests = workerRequests(worker, `SQLite file ${path ?? '(in memory)'}`, (error) => {
      return new Error(error.message)
    })
  }

  /** The rows of one statement. */
  async all<Row extends object>(sql: string, params: readonly SqliteValue[]): Promise<Row[]> {
    return (await this.#requests.send({ op: 'all', sql, params: [...params] })).rows as Row[]
  }

  /** Runs one statement once per row, in one transaction: all the rows, or none of them. */
  async runMany(sql: string, rows: SqliteValue[][]): Promise<void> {
    await this.#requests.send({ op: 'runMany', sql, rows })
  }

  async close(): Promise<void> {
    await this.#requests.send({ op: 'close' }).catch(() => {}) // a dead thread is closed too
    await this.#requests.exited()
  }
}
