import { mkdirSync } from 'node:fs'
import { PGlite, type Transaction } from '@electric-sql/pglite'
import type { SqlDriver, SqlExecutor, SqlParam } from './sqlDriver.ts'

function executor(target: PGlite | Transaction): SqlExecutor {
  return {
    async query<Row extends object>(text: string, params: readonly SqlParam[] = []) {
      // bigint goes over as text; PostgreSQL casts it to the column's numeric type.
      const values = params.map((value) => (typeof value === 'bigint' ? value.toString() : value))
      const result = await target.query<Row>(text, values)
      return result.rows
    },
  }
}

/**
 * Opens (creating when absent) an embedded database in `dataDir`, or in memory when it is
 * undefined. Durability is not relaxed: a committed transaction survives `kill -9`.
 */
export async function openPgliteDriver(dataDir: string | undefined): Promise<SqlDriver> {
  if (dataDir !== undefined) mkdirSync(dataDir, { recursive: true })
  const db = await PGlite.create(dataDir === undefined ? {} : { dataDir })
  const root = executor(db)
  return {
    kind: 'pglite',
    query: root.query,
    transaction: (work) => db.transaction((tx) => work(executor(tx))),
    close: () => db.close(),
  }
}
