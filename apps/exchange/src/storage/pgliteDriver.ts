import { mkdirSync } from 'node:fs'
import { Worker } from 'node:worker_threads'
import type { WorkerCommand, WorkerReply } from './pgliteWorker.ts'
import type { SqlDriver, SqlExecutor, SqlParam } from './sqlDriver.ts'

/** A statement the embedded database refused; carries PostgreSQL's SQLSTATE like pg errors do. */
export class EmbeddedSqlError extends Error {
  override name = 'EmbeddedSqlError'
  code: string | undefined
  detail: string | undefined
  constraint: string | undefined
  constructor(reply: { message: string; code?: string; detail?: string; constraint?: string }) {
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
  const waiting = new Map<
    number,
    { resolve: (rows: object[]) => void; reject: (error: Error) => void }
  >()
  let nextId = 1
  let broken: Error | undefined

  await new Promise<void>((resolve, reject) => {
    const onReady = (reply: WorkerReply): void => {
      if ('ready' in reply) resolve()
      else if ('openError' in reply)
        reject(new Error(`embedded database did not open: ${reply.openError}`))
      else return
      worker.off('message', onReady)
    }
    worker.on('message', onReady)
    worker.once('error', reject)
  })

  const failAll = (error: Error): void => {
    broken ??= error
    for (const pending of waiting.values()) pending.reject(error)
    waiting.clear()
  }
  worker.on('message', (reply: WorkerReply) => {
    if (!('id' in reply)) return
    const pending = waiting.get(reply.id)
    if (pending === undefined) return
    waiting.delete(reply.id)
    if ('error' in reply) pending.reject(new EmbeddedSqlError(reply.error))
    else pending.resolve(reply.rows)
  })
  worker.on('error', (error) => failAll(error))
  worker.on('exit', (code) => failAll(new Error(`embedded database thread exited (${code})`)))

  const send = (request: WorkerCommand): Promise<object[]> => {
    if (broken !== undefined) return Promise.reject(broken)
    const id = nextId++
    return new Promise((resolve, reject) => {
      waiting.set(id, { resolve, reject })
      worker.postMessage({ ...request, id })
    })
  }

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
          if (broken === undefined) await run('rollback').catch(() => {})
          throw error
        }
      }),
    close: async () => {
      await exclusive(() => send({ op: 'close' }))
      await new Promise<void>((resolve) => {
        if (worker.threadId === -1) resolve()
        else worker.once('exit', () => resolve())
      })
    },
  }
}
