import { join } from 'node:path'
import { migrate } from './migrations.ts'
import { openPgliteDriver } from './pgliteDriver.ts'
import { openPostgresDriver } from './postgresDriver.ts'
import type { SqlDriver } from './sqlDriver.ts'

export type StorageLocation =
  /** The embedded database in `dataDir/db` and the journal in `dataDir/journal.sqlite`; in memory when undefined. */
  | { kind: 'embedded'; dataDir: string | undefined }
  | { kind: 'postgres'; url: string; schema?: string }

/** PostgreSQL when DATABASE_URL is set, else the embedded database under the data directory. */
export function storageLocation(dataDir: string, databaseUrl: string | undefined): StorageLocation {
  return databaseUrl ? { kind: 'postgres', url: databaseUrl } : { kind: 'embedded', dataDir }
}

/**
 * Opens the database for a server and brings its schema up to date. On PostgreSQL the server's
 * writer lock is taken first, and held until `close`: a second server is refused
 * (DatabaseInUseError, postgresWriter.ts).
 */
export async function openStorage(location: StorageLocation): Promise<SqlDriver> {
  const driver = await openDriver(location, { writer: true })
  try {
    await migrate(driver)
  } catch (error) {
    await driver.close()
    throw error
  }
  return driver
}

/** Opens the database as it is, without migrating it (nor, unless asked, locking it). */
export function openDriver(
  location: StorageLocation,
  options: { writer?: boolean } = {},
): Promise<SqlDriver> {
  return location.kind === 'postgres'
    ? openPostgresDriver(location.url, {
        ...(location.schema === undefined ? {} : { schema: location.schema }),
        writer: options.writer ?? false,
      })
    : openPgliteDriver(location.dataDir === undefined ? undefined : join(location.dataDir, 'db'))
}
