// The storage suite runs against the embedded database always, and against PostgreSQL when
// TEST_DATABASE_URL is set (each run in a fresh schema, dropped afterwards).
import { randomUUID } from 'node:crypto'
import { cpSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { afterAll, afterEach } from 'vitest'
import { openDriver, openStorage, type StorageLocation } from '../../src/storage/openStorage.ts'
import type { SqlDriver } from '../../src/storage/sqlDriver.ts'

export type StorageTarget = {
  name: string
  /** A fresh, empty location; `cleanup` removes it. */
  create(): Promise<{ location: StorageLocation; cleanup(): Promise<void> }>
}

let emptyEmbedded: Promise<string> | undefined
/**
 * A data directory holding a newly created embedded database, not migrated, made once per test
 * process: creating one (PostgreSQL's initdb, in WebAssembly) costs 5-7 s of CPU, copying it
 * about 1 s, and a copy is the same fresh database byte for byte.
 */
function emptyEmbeddedDir(): Promise<string> {
  emptyEmbedded ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'polder-storage-empty-'))
    await (await openDriver({ kind: 'embedded', dataDir: dir })).close()
    return dir
  })()
  return emptyEmbedded
}

/** Removes the empty database the suite copied (call once its tests are done). */
export async function removeEmptyEmbeddedDir(): Promise<void> {
  if (emptyEmbedded === undefined) return
  rmSync(await emptyEmbedded, { recursive: true, force: true })
  emptyEmbedded = undefined
}

const embedded: StorageTarget = {
  name: 'embedded (PGlite)',
  async create() {
    const empty = await emptyEmbeddedDir()
    const dir = mkdtempSync(join(tmpdir(), 'polder-storage-'))
    cpSync(empty, dir, { recursive: true })
    return {
      location: { kind: 'embedded', dataDir: dir },
      cleanup: async () => rmSync(dir, { recursive: true, force: true }),
    }
  },
}

const databaseUrl = process.env.TEST_DATABASE_URL

export const storageTargets: StorageTarget[] = [embedded]
if (databaseUrl) {
  storageTargets.push({
    name: 'PostgreSQL (TEST_DATABASE_URL)',
    async create() {
      const schema = `polder_test_${randomUUID().replaceAll('-', '')}`
      return {
        location: { kind: 'postgres', url: databaseUrl, schema },
        async cleanup() {
          const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} })
          await sql.unsafe(`drop schema if exists ${schema} cascade`)
          await sql.end()
        },
      }
    },
  })
} else {
  console.log(
    'notice: TEST_DATABASE_URL is unset; the storage suite runs on the embedded database only.',
  )
}

/**
 * One migrated database per target for a whole test file, for tests that empty the tables they
 * use: a new embedded one per test is seconds of CPU, and a process that had opened several
 * (PostgreSQL in WebAssembly each) once died of a SIGSEGV in CI. `closeAll` after the file.
 */
export function sharedDatabases(): {
  open(target: StorageTarget): Promise<SqlDriver>
  closeAll(): Promise<void>
} {
  const opened = new Map<StorageTarget, Promise<{ driver: SqlDriver; cleanup(): Promise<void> }>>()
  return {
    async open(target) {
      let database = opened.get(target)
      if (database === undefined) {
        database = (async () => {
          const { location, cleanup } = await target.create()
          return { driver: await openStorage(location), cleanup }
        })()
        opened.set(target, database)
      }
      return (await database).driver
    },
    async closeAll() {
      for (const database of opened.values()) {
        const { driver, cleanup } = await database
        await driver.close()
        await cleanup()
      }
      opened.clear()
    },
  }
}

/**
 * An archive on each of its stores, for a test file's `describe.each`: a SQLite file in a fresh
 * directory (the embedded default), and `table` in each target's database, shared by the file's
 * tests and emptied for each. Archives are closed after their test, databases after the file.
 */
export function archiveStores<Archive extends { close(): Promise<void> }>(options: {
  /** The SQLite file's name, as in a data directory. */
  file: string
  table: string
  sqlite(path: string): Archive
  sql(driver: SqlDriver): Archive
}): { name: string; open(): Promise<Archive> }[] {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  const databases = sharedDatabases()
  afterAll(async () => {
    await databases.closeAll()
    await removeEmptyEmbeddedDir()
  })
  return [
    {
      name: 'SQLite file (embedded default)',
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'polder-archive-'))
        const archive = options.sqlite(join(dir, options.file))
        cleanups.push(async () => {
          await archive.close()
          rmSync(dir, { recursive: true, force: true })
        })
        return archive
      },
    },
    ...storageTargets.map((target) => ({
      name: `SQL table on ${target.name}`,
      async open() {
        const driver = await databases.open(target)
        await driver.query(`delete from ${options.table}`)
        const archive = options.sql(driver)
        cleanups.push(() => archive.close())
        return archive
      },
    })),
  ]
}
