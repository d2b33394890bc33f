import { join } from 'node:path'
import { migrate } from './migrations.ts'
import { openPgliteDriver } from './pgliteDriver.ts'
import { openPostgresDriver } from './postgresDriver.ts'
import type { SqlDriver } from './sqlDriver.ts'

export type StorageLocation =
  | { kind: 'embedded'; dataDir: string | undefined }
  | { kind: 'postgres'; url: string; schema?: string }

/** PostgreSQL when DATABASE_URL is set, else the embedded database under the data directory. */
export function storageLocation(dataDir: string, databaseUrl: string | undefined): StorageLocation {
  return databaseUrl
    ? { kind: 'postgres', url: databaseUrl }
    : { kind: 'embedded', dataDir: join(dataDir, 'db') }
}

/** Opens the database and brings its schema up to date. */
export async function openStorage(location: StorageLocation): Promise<SqlDriver> {
  const driver =
    location.kind === 'postgres'
      ? await openPostgresDriver(
          location.url,
          location.schema === undefined ? {} : { schema: location.schema },
        )
      : await openPgliteDriver(location.dataDir)
  try {
    await migrate(driver)
  } catch (error) {
    await driver.close()
    throw error
  }
  return driver
}
