// One small SQL interface, two implementations: embedded PGlite (PostgreSQL compiled to
// WebAssembly, the default) and a PostgreSQL server through postgres.js (when DATABASE_URL is
// set). Both speak the same dialect, so one migration set and one set of queries serve both.

export type SqlParam = string | number | boolean | null | bigint

/** `texts` as a PostgreSQL array literal, each quoted: the parameter of `$n::text[]`. */
export function toTextArray(texts: readonly string[]): string {
  return `{${texts.map((text) => `"${text.replaceAll('\\', '\\\\').replaceAll('"', '\\"')}"`).join(',')}}`
}

export type SqlExecutor = {
  /** Runs one parameterised statement ($1, $2, ...) and returns its rows. */
  query<Row extends object>(text: string, params?: readonly SqlParam[]): Promise<Row[]>
}

/**
 * The one session of a PostgreSQL database that holds its writer lock (postgresWriter.ts): a
 * server's driver has one, and its journal commits through it.
 */
export type WriterSession = SqlExecutor & {
  /**
   * An SQL condition, true while this session holds the writer lock (taking it again when the
   * connection was new and no other server has it): a journal insert made on it commits only
   * while this server is the database's one writer.
   */
  readonly lockCondition: string
  /** Records that another server holds the lock (the condition was false), and returns why. */
  lockTakenOver(): Error
  /** Called once if another server takes the lock over. */
  onLost(listener: (error: Error) => void): void
}

export type SqlDriver = SqlExecutor & {
  readonly kind: 'pglite' | 'postgres'
  /** PostgreSQL opened by `openStorage`: the session that holds the writer lock. */
  readonly writer?: WriterSession
  /** Runs `work` in one transaction: all of it commits, or none of it. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>
  close(): Promise<void>
}
