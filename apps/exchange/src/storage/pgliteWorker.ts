// The embedded database's own thread: PGlite (PostgreSQL in WebAssembly) runs here, so its
// statement execution and commits never occupy the server's event loop. The server talks to it
// through pgliteDriver.ts with one message per statement; ordering and transactions are kept
// there, this side only executes what arrives, in arrival order.
import { parentPort, workerData } from 'node:worker_threads'
import { PGlite } from '@electric-sql/pglite'
import type { WorkerReply as Reply } from './workerRequests.ts'

export type WorkerCommand = { op: 'query'; text: string; params: unknown[] } | { op: 'close' }
export type WorkerRequest = WorkerCommand & { id: number }
type WorkerReply = Reply<{ rows: object[] }>

const port = parentPort
if (port === null) throw new Error('pgliteWorker.ts runs only as a worker thread')

const { dataDir } = workerData as { dataDir: string | undefined }

try {
  const db = await PGlite.create(dataDir === undefined ? {} : { dataDir })
  // Messages arrive in order; executing them one after another keeps that order, which the
  // driver's transaction lock relies on.
  let chain = Promise.resolve()
  port.on('message', (request: WorkerRequest) => {
    chain = chain.then(async () => {
      if (request.op === 'close') {
        await db.close()
        port.postMessage({ id: request.id, rows: [] } satisfies WorkerReply)
        port.close()
        return
      }
      try {
        const result = await db.query(request.text, request.params)
        port.postMessage({ id: request.id, rows: result.rows as object[] } satisfies WorkerReply)
      } catch (error) {
        const { message, code, detail, constraint } = error as Error &
          Record<string, string | undefined>
        port.postMessage({
          id: request.id,
          error: {
            message,
            ...(code === undefined ? {} : { code }),
            ...(detail === undefined ? {} : { detail }),
            ...(constraint === undefined ? {} : { constraint }),
          },
        } satisfies WorkerReply)
      }
    })
  })
  port.postMessage({ ready: true } satisfies WorkerReply)
} catch (error) {
  port.postMessage({ openError: (error as Error).message } satisfies WorkerReply)
}
