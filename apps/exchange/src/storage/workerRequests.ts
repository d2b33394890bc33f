// Requests to a storage thread and their replies, matched by id: the embedded PostgreSQL's
// (pgliteWorker.ts) and the SQLite archives' (sqliteWorker.ts). The thread answers every request
// in the order it came, first telling whether its store opened.

import type { Worker } from 'node:worker_threads'

/** A failed request, as the thread reports it (PostgreSQL's fields where it has them). */
export type WorkerError = { message: string; code?: string; detail?: string; constraint?: string }

/** What a storage thread posts: whether its store opened, then one reply per request. */
export type WorkerReply<Payload extends object> =
  | ({ id: number } & Payload)
  | { id: number; error: WorkerError }
  | { ready: true }
  | { openError: string }

export type WorkerRequests<Request extends object, Payload extends object> = {
  /** Settles once the store has opened (rejects when it could not). */
  ready: Promise<void>
  /** Posts a request (queued by the thread until its store is open); settles with its reply. */
  send(request: Request): Promise<Payload>
  /** Settles once the thread has exited. */
  exited(): Promise<void>
}

/**
 * Requests to `worker`, whose failures become `toError(error)`; `what` names the store in the
 * errors when the thread dies or its store does not open (every waiting request fails then).
 */
export function workerRequests<Request extends object, Payload extends object>(
  worker: Worker,
  what: string,
  toError: (error: WorkerError) => Error,
): WorkerRequests<Request, Payload> {
  const waiting = new Map<
    number,
    { resolve: (payload: Payload) => void; reject: (error: Error) => void }
  >()
  let nextId = 1
  let broken: Error | undefined
  const failAll = (error: Error): void => {
    broken ??= error
    for (const pending of waiting.values()) pending.reject(error)
    waiting.clear()
  }
  let exited = false
  const exit = new Promise<void>((resolve) => {
    worker.once('exit', (code) => {
      exited = true
      failAll(new Error(`${what} thread exited (${code})`))
      resolve()
    })
  })
  const ready = new Promise<void>((resolve, reject) => {
    worker.on('message', (reply: WorkerReply<Payload>) => {
      if ('ready' in reply) return resolve()
      if ('openError' in reply) {
        const error = new Error(`${what} did not open: ${reply.openError}`)
        failAll(error)
        return reject(error)
      }
      const pending = waiting.get(reply.id)
      if (pending === undefined) return
      waiting.delete(reply.id)
      if ('error' in reply) pending.reject(toError(reply.error))
      else pending.resolve(reply)
    })
    worker.on('error', (error) => {
      failAll(error)
      reject(error)
    })
  })
  ready.catch(() => {}) // reported to whoever waits for it, and to every request
  return {
    ready,
    send(request) {
      if (broken !== undefined) return Promise.reject(broken)
      const id = nextId++
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject })
        worker.postMessage({ ...request, id })
      })
    },
    exited: () => (exited ? Promise.resolve() : exit),
  }
}
