// A SQLite file on a thread of its own (node:sqlite), for an archive whose writes would cost the
// event loop too much: the order archive's rows are a kilobyte each with three indexes, some 20 to
// 30 µs a row on the thread that runs them (bench/exchange/archives.bench.ts). Requests are
// answered one at a time in the order they came; `runMany` runs its rows in one transaction.
// The file is in WAL mode and checkpointed here, by SQLite itself, off the server's event loop,
// every 10,000 pages (40 MB): a fifth less work a row than every 1,000.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import type { WorkerReply as Reply } from './workerRequests.ts'

export type SqliteValue = string | number | null
export type SqliteWorkerCommand =
  | { op: 'all'; sql: string; params: SqliteValue[] }
  | { op: 'runMany'; sql: string; rows: SqliteValue[][] }
  | { op: 'close' }
export type SqliteWorkerData = { path: string | undefined; schema: string }
type WorkerReply = Reply<{ rows: object[] }>

const port = parentPort
if (port === null) throw new Error('sqliteWorker.ts runs only as a worker thread')
const { path, schema } = workerData as SqliteWorkerData

let db: DatabaseSync
try {
  db = new DatabaseSync(path ?? ':memory:')
  db.exec(`
    pragma journal_mode = wal;
    pragma synchronous = normal;
    pragma wal_autocheckpoint = 10000;
    ${schema}
  `)
  port.postMessage({ ready: true } satisfies WorkerReply)
} catch (error) {
  port.postMessage({ openError: (error as Error).message } satisfies WorkerReply)
  port.close()
  throw error
}

const statements = new Map<string, StatementSync>()
const prepared = (sql: string): StatementSync => {
  let statement = statements.get(sql)
  if (statement === undefined) {
    statement = db.prepare(sql)
    statements.set(sql, statement)
  }
  return statement
}

function execute(command: SqliteWorkerCommand): object[] {
  if (command.op === 'all') return prepared(command.sql).all(...(command.params as SQLInputValue[]))
  if (command.op === 'runMany') {
    const statement = prepared(command.sql)
    db.exec('begin')
    try {
      for (const row of command.rows) statement.run(...(row as SQLInputValue[]))
      db.exec('commit')
    } catch (error) {
      if (db.isTransaction) db.exec('rollback')
      throw error
    }
    return []
  }
  db.close()
  return []
}

port.on('message', (request: SqliteWorkerCommand & { id: number }) => {
  try {
    port.postMessage({ id: request.id, rows: execute(request) } satisfies WorkerReply)
  } catch (error) {
    port.postMessage({
      id: request.id,
      error: { message: (error as Error).message },
    } satisfies WorkerReply)
  }
  if (request.op === 'close') port.close()
})
