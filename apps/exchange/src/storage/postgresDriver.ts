import postgres from 'postgres'
import { PostgresWriter } from './postgresWriter.ts'
import type { SqlDriver, SqlExecutor, SqlParam } from './sqlDriver.ts'

type PostgresLike = { unsafe(text: string, params?: unknown[]): Promise<unknown> }

function executor(target: PostgresLike): SqlExecutor {
  return {
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      const values = params.map((value) => (typeof value === 'bigint' ? value.toString() : value))
      return (await target.unsafe(text, values)) as Row[]
    },
  }
}

export type PostgresDriverOptions = {
  /** A schema to use (created when absent): lets tests share one database without collisions. */
  schema?: string
  connectionsMax?: number
  /**
   * Take the database's writer lock first (postgresWriter.ts), refusing when another server
   * holds it: a server's storage. Without it (tools, tests), nothing is locked.
   */
  writer?: boolean
}

/** Connects to a PostgreSQL server, e.g. `postgres://user@127.0.0.1:5432/db`. */
export async function openPostgresDriver(
  url: string,
  options: PostgresDriverOptions = {},
): Promise<SqlDriver> {
  const schema = options.schema
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema)) {
    throw new Error(`invalid schema name "${schema}"`)
  }
  // Before anything else, creating the schema included: two servers starting at once on a new
  // database would otherwise race each other's DDL (a duplicate pg_type or pg_namespace row).
  const writer = options.writer ? await PostgresWriter.open(url, schema) : undefined
  const sql = postgres(url, {
    max: options.connectionsMax ?? 4,
    onnotice: () => {},
    // Numbers of type numeric and int8 come back as strings, as in PGlite: no float rounding.
    types: {},
    // No start-up query for the array types (postgres.js does not wait for its answer, and its
    // failure went unhandled): arrays are sent as text literals cast in SQL (toTextArray), and
    // read as either form.
    fetch_types: false,
    connection: {
      application_name: 'polder exchange',
      // A commit is acknowledged only once its WAL is on disk, whatever the database's default
      // (synchronous_commit = off, a common throughput tuning, loses the last commits in a crash
      // of PostgreSQL; the journal's records are acknowledged to clients).
      synchronous_commit: 'on',
      ...(schema === undefined ? {} : { search_path: schema }),
    },
  })
  try {
    if (schema !== undefined) await sql.unsafe(`create schema if not exists ${schema}`)
  } catch (error) {
    await sql.end({ timeout: 5 })
    await writer?.close()
    throw error
  }
  const root = executor(sql)
  return {
    kind: 'postgres',
    query: root.query,
    transaction: (work) =>
      sql.begin((tx) => work(executor(tx as unknown as PostgresLike))) as Promise<never>,
    ...(writer === undefined ? {} : { writer }),
    close: async () => {
      await sql.end({ timeout: 5 })
      // Last: the lock outlives every statement of this server.
      await writer?.close()
    },
  }
}
