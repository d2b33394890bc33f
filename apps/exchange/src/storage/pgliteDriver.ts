import { mkdirSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type { WorkerCommand } from './pgliteWorker.ts'
import type { SqlDriver, SqlExecutor, SqlParam } from './sqlDriver.ts'
import { type WorkerError, workerRequests } from './workerRequests.ts'

/** A statement the embedded database refused; carries PostgreSQL's SQLSTATE like pg errors do. */
export class EmbeddedSqlError extends Error {
  override name = 'EmbeddedSqlError'
  code: string | undefined
  detail: string | undefined
  constraint: string | undefined
  constructor(reply: WorkerError) {
    super(reply.message)
    this.code = reply.code
    this.detail = reply.detail
    this.constraint = reply.constraint
  }
}

/**
 * Opens (creating when absent) an embedded database in `dataDir`, or in memory when it is
 * undefined. PGlite runs on its own worker thread (pgliteWorker.ts): measured on the load bench,
 * executing it on the event loop took about a third of the server's time. Durability is not
 * relaxed: a statement's promise settles after PGlite has committed it, so a committed
 * transaction survives `kill -9`.
 */
export async function openPgliteDriver(dataDir: string | undefined): Promise<SqlDriver> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
  const worker = new Worker(new URL('./pgliteWorker.ts', import.meta.url), {
    workerData: { dataDir },
  })
  const requests = workerRequests<WorkerCommand, { rows: object[] }>(
    worker,
    'embedded database',
    (error) => new EmbeddedSqlError(error),
  )
  await requests.ready
  const send = async (request: WorkerCommand): Promise<object[]> =>
    (await requests.send(request)).rows

  const run = <Row extends object>(
    text: string,
    params: readonly SqlParam[] = [],
  ): Promise<Row[]> =>
    // bigint goes over as text; PostgreSQL casts it to the column's numeric type.
    send({
      op: 'query',
      text,
      params: params.map((value) => (typeof value === 'bigint' ? value.toString() : value)),
    }) as Promise<Row[]>

  // One connection: a transaction holds it from BEGIN to COMMIT, and statements outside it wait.
  let lock: Promise<unknown> = Promise.resolve()
  const exclusive = <T>(work: () => Promise<T>): Promise<T> => {
    const result = lock.then(work)
    lock = result.catch(() => {})
    return result
  }

  const inTransaction: SqlExecutor = { query: run }
  return {
    kind: 'pglite',
    query: (text, params) => exclusive(() => run(text, params)),
    transaction: (work) =>
      exclusive(async () => {
        await run('begin')
        try {
          const result = await work(inTransaction)
          await run('commit')
          return result
        } catch (error) {
          await run('rollback').catch(() => {}) // fails at once when the thread is gone
          throw error
        }
      }),
    close: async () => {
      await exclusive(() => send({ op: 'close' }))
      await requests.exited()
    },
  }
}
