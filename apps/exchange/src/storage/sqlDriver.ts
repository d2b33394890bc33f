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

export type SqlDriver = SqlExecutor & {
  readonly kind: 'pglite' | 'postgres'
  /** Runs `work` in one transaction: all of it commits, or none of it. */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>
  close(): Promise<void>
}
