import postgres from 'postgres'
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
  const sql = postgres(url, {
    max: options.connectionsMax ?? 4,
    onnotice: () => {},
    // Numbers of type numeric and int8 come back as strings, as in PGlite: no float rounding.
    types: {},
    ...(schema === undefined ? {} : { connection: { search_path: schema } }),
  })
  if (schema !== undefined) await sql.unsafe(`create schema if not exists ${schema}`)
  const root = executor(sql)
  return {
    kind: 'postgres',
    query: root.query,
    transaction: (work) =>
      sql.begin((tx) => work(executor(tx as unknown as PostgresLike))) as Promise<never>,
    close: () => sql.end({ timeout: 5 }),
  }
}
