// One server per PostgreSQL database. Two servers on one database each hold the whole exchange
// in memory and would both acknowledge withdrawals of one balance, and write journal records of
// the same seqs. So a server holds a session-level advisory lock, the writer lock, on a
// connection of its own for as long as it runs, taken before it migrates (which also keeps two
// servers starting at once out of each other's migrations), and writes the journal through that
// same session only while it holds the lock (journalBackends.ts): a journal commit and the lock
// live and die together.
import { createHash } from 'node:crypto'
import postgres from 'postgres'
import type { SqlParam, WriterSession } from './sqlDriver.ts'

/** A second server refused at start: another holds the database's writer lock. */
export class DatabaseInUseError extends Error {
  override name = 'DatabaseInUseError'
  readonly code = 'DATABASE_IN_USE'
}

/** Another server took the writer lock while this one's session was down: this one must stop. */
export class WriterLockLostError extends Error {
  override name = 'WriterLockLostError'
  readonly code = 'WRITER_LOCK_LOST'
}

/**
 * How long a starting server waits for the writer lock before it is refused: the session of a
 * server that was just killed ends a moment after the process (PostgreSQL reads the closed
 * socket), and a supervisor's restart should not be refused for that moment.
 */
export const writerLockWaitMs = 2_000
const writerLockPollMs = 100

/**
 * Every statement of the writer session (the journal's commits) is ended by PostgreSQL after
 * this long (statement_timeout): a commit waiting on a lock of journal_batches or on a stalled
 * disk gives up instead of holding every command of the exchange without a limit.
 */
export const writerStatementTimeoutMs = 5_000

/**
 * TCP keepalives PostgreSQL sends on the writer session (seconds): when a server's host dies
 * without closing its connections, PostgreSQL ends the session, and frees the lock for a new
 * server, within about idle + interval * count = 25 s, not the two hours of Linux's defaults.
 * (Ignored on a Unix socket, where a dead peer is seen at once.)
 */
const writerKeepalives = { idleS: 10, intervalS: 5, count: 3 }

/** While the session is down, how long between attempts to take the lock again. */
const retakeBackoffMsMax = 1_000

/**
 * The lock's two keys: a constant naming the application ('Pold'), and the schema's name hashed,
 * so that servers (or test runs) in different schemas of one database do not exclude each other.
 */
export function writerLockKeys(schema: string | undefined): readonly [number, number] {
  const schemaKey = createHash('sha256')
    .update(schema ?? '')
    .digest()
    .readInt32BE(0)
  return [0x506f6c64, schemaKey & 0x7fffffff]
}

/**
 * Whether `error` says the connection failed rather than the statement: the statement may not
 * have reached PostgreSQL, or may have committed without its answer coming back. (Not
 * CONNECTION_ENDED: that is this process closing the database.)
 */
export function isConnectionError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code !== 'string') return false
  return (
    connectionErrorCodes.has(code) ||
    code.startsWith('08') || // SQLSTATE class 08: connection exception
    code === '57P01' || // admin_shutdown: pg_terminate_backend, a fast shutdown
    code === '57P02' || // crash_shutdown
    code === '57P03' || // cannot_connect_now: starting up, in recovery
    code === '53300' // too_many_connections, on reconnecting
  )
}
const connectionErrorCodes = new Set([
  'CONNECTION_CLOSED',
  'CONNECT_TIMEOUT',
  'ECONNRESET',
  'ECONNREFUSED',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
])

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref())

/** The session that holds a database's writer lock; `open` refuses when another server holds it. */
export class PostgresWriter implements WriterSession {
  readonly lockKeys: readonly [number, number]
  readonly lockCondition: string
  readonly #sql: postgres.Sql
  #lost: WriterLockLostError | undefined
  /** Set once the lock was first taken: only then is a closed connection a lock to take again. */
  #held = false
  #closing = false
  #retaking: Promise<void> | undefined
  readonly #lostListeners: ((error: Error) => void)[] = []

  private constructor(url: string, schema: string | undefined) {
    this.lockKeys = writerLockKeys(schema)
    // Re-entrant: a no-op for the session that holds the lock, and takes it again on a fresh
    // connection when no other server has it.
    this.lockCondition = `pg_try_advisory_lock(${this.lockKeys[0]}, ${this.lockKeys[1]})`
    this.#sql = postgres(url, {
      max: 1,
      // The lock lasts as long as the connection: never closed for age (nor for idleness, by
      // default).
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      types: {},
      onclose: () => {
        if (this.#held && !this.#closing) this.#retakeSoon()
      },
      connection: {
        application_name: 'polder exchange writer',
        synchronous_commit: 'on',
        statement_timeout: writerStatementTimeoutMs,
        tcp_keepalives_idle: writerKeepalives.idleS,
        tcp_keepalives_interval: writerKeepalives.intervalS,
        tcp_keepalives_count: writerKeepalives.count,
        ...(schema === undefined ? {} : { search_path: schema }),
      },
    })
  }

  /** Connects and takes the writer lock, waiting `writerLockWaitMs` at most. */
  static async open(url: string, schema: string | undefined): Promise<PostgresWriter> {
    const writer = new PostgresWriter(url, schema)
    try {
      const waitUntilMs = performance.now() + writerLockWaitMs
      while (!(await writer.#tryLock())) {
        if (performance.now() >= waitUntilMs) {
          const holder = await writer.#holder()
          throw new DatabaseInUseError(
            `another Polder server is running on this database (its writer lock is held by ${holder.text}); ` +
              'two servers on one database would both acknowledge the same balances. Stop the ' +
              'other server first; if its host is gone, PostgreSQL ends its session within ' +
              `about 25 s, or end it yourself: select pg_terminate_backend(${holder.pid ?? '<its pid>'})`,
          )
        }
        await sleep(writerLockPollMs)
      }
    } catch (error) {
      await writer.close()
      throw error
    }
    writer.#held = true
    return writer
  }

  async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
    if (this.#lost) throw this.#lost
    const values = params.map((value) => (typeof value === 'bigint' ? value.toString() : value))
    return (await this.#sql.unsafe(text, values)) as unknown as Row[]
  }

  onLost(listener: (error: Error) => void): void {
    this.#lostListeners.push(listener)
  }

  lockTakenOver(): Error {
    if (!this.#lost) {
      this.#lost = new WriterLockLostError(
        'another server took this database over (its writer lock) while this server was ' +
          "disconnected: this server's state is no longer the exchange's",
      )
      for (const listener of this.#lostListeners) listener(this.#lost)
    }
    return this.#lost
  }

  async close(): Promise<void> {
    this.#closing = true
    // Ending the session releases the lock.
    await this.#sql.end({ timeout: 5 })
  }

  async #tryLock(): Promise<boolean> {
    const [row] = await this.#sql.unsafe<{ held: boolean }[]>(
      `select ${this.lockCondition} as held`,
    )
    return row?.held === true
  }

  /** Who holds the lock, for the refusal's text. */
  async #holder(): Promise<{ text: string; pid?: number }> {
    const [row] = await this.#sql.unsafe<
      { pid: number; client: string | null; application: string; since: string }[]
    >(
      `select a.pid, host(a.client_addr) as client, a.application_name as application,
              date_trunc('second', a.backend_start)::text as since
         from pg_locks l join pg_stat_activity a on a.pid = l.pid
        where l.locktype = 'advisory' and l.granted and l.objsubid = 2
          and l.database = (select oid from pg_database where datname = current_database())
          and l.classid = $1::oid and l.objid = $2::oid`,
      [String(this.lockKeys[0]), String(this.lockKeys[1])],
    )
    if (row === undefined) return { text: 'another session' }
    const from = row.client === null ? '' : ` from ${row.client}`
    return {
      text: `PostgreSQL session ${row.pid}${from} ("${row.application}", connected since ${row.since})`,
      pid: row.pid,
    }
  }

  /**
   * The session's connection closed (PostgreSQL restarted, a pooler or an operator ended it):
   * the lock went with it. Take it again at once, so that no other server takes the database
   * over while this one is idle; if another already has, this server must stop.
   */
  #retakeSoon(): void {
    this.#retaking ??= (async () => {
      let backoffMs = 50
      while (!this.#closing && !this.#lost) {
        try {
          if (!(await this.#tryLock())) this.lockTakenOver()
          break
        } catch {
          // PostgreSQL unreachable for now: the journal's commits fail too, and halt the
          // exchange past their deadline; keep trying until then.
          await sleep(backoffMs)
          backoffMs = Math.min(backoffMs * 2, retakeBackoffMsMax)
        }
      }
    })().finally(() => {
      this.#retaking = undefined
    })
  }
}
