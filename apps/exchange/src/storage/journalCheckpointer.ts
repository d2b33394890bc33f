// The SQLite journal's checkpoints, on their own thread. In WAL mode a commit appends to the
// write-ahead log; a checkpoint copies the log back into the database file and is the only step
// that waits for the disk (fsync). Left to SQLite's automatic checkpoints it runs inside
// whichever commit crosses the threshold, on the server's event loop: measured, 10-15 ms every
// few thousand commits, the journal's whole p99. Here a second connection checkpoints in
// PASSIVE mode (it never blocks the writer) every interval, so commits only append.

import { DatabaseSync } from 'node:sqlite'
import { parentPort, workerData } from 'node:worker_threads'
import { yieldToEventLoop } from './backgroundThread.ts'

export type CheckpointerData = { path: string; intervalMs: number }

const port = parentPort
if (port === null) throw new Error('journalCheckpointer.ts runs only as a worker thread')
yieldToEventLoop()
const { path, intervalMs } = workerData as CheckpointerData

const db = new DatabaseSync(path)
const checkpoint = db.prepare('pragma wal_checkpoint(passive)')
const timer = setInterval(() => {
  try {
    checkpoint.get()
  } catch {
    // Busy or interrupted: the log keeps growing until the next attempt; nothing is lost.
  }
}, intervalMs)

port.on('message', (message: 'stop') => {
  if (message !== 'stop') return
  clearInterval(timer)
  db.close()
  port.close()
})
