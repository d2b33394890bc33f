// A SQLite file on a thread of its own (node:sqlite), for an archive whose writes would cost the
// event loop too much: the order archive's rows are a kilobyte each with three indexes, some 20 to
// 30 µs a row on the thread that runs them (bench/exchange/archives.bench.ts); and the trade and
// fill archives' writes, whose first after a checkpoint makes SQLite sync the log's new header,
// tens to hundreds of milliseconds on a slow disk (projectionArchive.ts). Requests are
// answered one at a time in the order they came. A transaction's rows come in several `append`
// messages (each small to make and send for the server's thread) and end with `commit` or
// `rollback`; a failed append is reported, and the transaction then only rolls back.
// The file is in WAL mode and checkpointed here, off the server's event loop, every second (so
// that what is committed is on disk within a second, power loss included, as the other archives'
// files) and by SQLite itself every 10,000 pages (40 MB) in between.
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { yieldToEventLoop } from './backgroundThread.ts'
import type { WorkerReply as Reply } from './workerRequests.ts'

export type SqliteValue = string | number | null
/** A statement and its parameters. */
export type SqliteStatement = { sql: string; params: SqliteValue[] }
export type SqliteWorkerCommand =
  | { op: 'all'; sql: string; params: SqliteValue[] }
  /** Statements read in one transaction, so all see the same state of the file. */
  | { op: 'allTogether'; statements: SqliteStatement[] }
  | { op: 'run'; sql: string; params: SqliteValue[] }
  | { op: 'append'; sql: string; rows: SqliteValue[][] }
  | { op: 'commit' }
  | { op: 'rollback' }
  | { op: 'close' }
export type SqliteWorkerData = { path: string | undefined; schema: string }
type WorkerReply = Reply<{ rows: object[] }>

const port = parentPort
if (port === null) throw new Error('sqliteWorker.ts runs only as a worker thread')
yieldToEventLoop()
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

// A checkpoint waits for nothing and only copies what the WAL holds: cheap when it is small.
const checkpoints = setInterval(() => {
  try {
    db.exec('pragma wal_checkpoint(passive)')
  } catch {
    // busy or failing: the next one tries again, and SQLite's own every 10,000 pages
  }
}, 1_000)
checkpoints.unref()

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
  if (command.op === 'allTogether') {
    const own = !db.isTransaction
    if (own) db.exec('begin')
    try {
      return command.statements.map(({ sql, params }) =>
        prepared(sql).all(...(params as SQLInputValue[])),
      )
    } finally {
      if (own) db.exec('commit')
    }
  }
  if (command.op === 'run') {
    const result = prepared(command.sql).run(...(command.params as SQLInputValue[]))
    return [{ changes: Number(result.changes) }]
  }
  if (command.op === 'append') {
    const statement = prepared(command.sql)
    if (!db.isTransaction) db.exec('begin')
    for (const row of command.rows) statement.run(...(row as SQLInputValue[]))
    return []
  }
  if (command.op === 'commit') db.exec('commit')
  else if (db.isTransaction) db.exec('rollback') // a rollback, or a close amid a transaction
  if (command.op === 'close') {
    clearInterval(checkpoints)
    db.close()
  }
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
