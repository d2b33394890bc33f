// The storage suite runs against the embedded database always, and against PostgreSQL when
// TEST_DATABASE_URL is set (each run in a fresh schema, dropped afterwards).
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import type { StorageLocation } from '../../src/storage/openStorage.ts'

export type StorageTarget = {
  name: string
  /** A fresh, empty location; `cleanup` removes it. */
  create(): { location: StorageLocation; cleanup(): Promise<void> }
}

const embedded: StorageTarget = {
  name: 'embedded (PGlite)',
  create() {
    const dir = mkdtempSync(join(tmpdir(), 'polder-storage-'))
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
    create() {
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
