// Snapshots of the exchange core, each valid at a journal sequence number: a restart loads the
// newest and replays only the journal records after it.
//
// - Embedded default: files in the data directory (`snapshots/<seq>.json`), written chunk by
//   chunk in the background (the operating system's threads) and renamed into place once
//   synced, so a crash leaves either the whole new file or none. Stored in the embedded
//   database instead, a snapshot of tens of megabytes cost its thread seconds of CPU (measured:
//   2.6 s for 66 MB), on cores the exchange needs.
// - PostgreSQL, and an in-memory embedded database (tests): the `snapshots` table.
import { mkdirSync } from 'node:fs'
import { open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { StorageLocation } from './openStorage.ts'
import type { SqlDriver } from './sqlDriver.ts'

/** Snapshots kept; older ones are deleted after a new one is saved. */
export const snapshotsKeptMax = 2

export type StoredSnapshot = { seq: number; state: unknown }

export interface SnapshotStore {
  /**
   * Saves the snapshot taken at `seq` (its JSON text, in chunks) and drops all but the newest
   * `snapshotsKeptMax`. Returns the oldest kept snapshot's seq: journal records up to it are
   * never replayed again, so the caller prunes them (a long-running exchange keeps a bounded
   * journal; long-term history belongs in SQL projections, not in the recovery log). Pruning
   * after this returns is safe: a crash in between only leaves records that replay skips.
   */
  save(seq: number, json: readonly string[], takenAtMs: number): Promise<number>
  /** The newest snapshot, or undefined when there is none. */
  latest(): Promise<StoredSnapshot | undefined>
  /** The newest snapshot's seq, 0 when there is none. */
  latestSeq(): Promise<number>
}

/** The snapshot store of a storage location (see above). */
export function openSnapshotStore(location: StorageLocation, driver: SqlDriver): SnapshotStore {
  const table = new SqlSnapshotStore(driver)
  if (location.kind === 'postgres' || location.dataDir === undefined) return table
  return new FileSnapshotStore(join(location.dataDir, 'snapshots'), table)
}

/** Snapshots in the `snapshots` table. */
export class SqlSnapshotStore implements SnapshotStore {
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver) {
    this.#driver = driver
  }

  save(seq: number, json: readonly string[], takenAtMs: number): Promise<number> {
    return this.#driver.transaction(async (tx) => {
      await tx.query(
        'insert into snapshots (seq, state, taken_at_ms) values ($1, $2, $3) on conflict (seq) do nothing',
        [seq, json.join(''), takenAtMs],
      )
      await tx.query(
        'delete from snapshots where seq not in (select seq from snapshots order by seq desc limit $1)',
        [snapshotsKeptMax],
      )
      const [row] = await tx.query<{ oldest: string | number }>(
        'select min(seq) as oldest from snapshots',
      )
      return Number(row?.oldest ?? seq)
    })
  }

  async latest(): Promise<StoredSnapshot | undefined> {
    const [row] = await this.#driver.query<{ seq: string | number; state: unknown }>(
      'select seq, state from snapshots order by seq desc limit 1',
    )
    if (!row) return undefined
    return { seq: Number(row.seq), state: parseSnapshotText(row.state) }
  }

  async latestSeq(): Promise<number> {
    const [row] = await this.#driver.query<{ last: string | number | null }>(
      'select max(seq) as last from snapshots',
    )
    return Number(row?.last ?? 0)
  }

  /** Forgets every snapshot (once a newer store holds them). */
  async clear(): Promise<void> {
    await this.#driver.query('delete from snapshots')
  }
}

/**
 * A stored state. Snapshots are objects; one saved as jsonb on PostgreSQL before migration 5 was
 * a JSON string holding the JSON (postgres.js encodes a text parameter cast to jsonb that way),
 * and reads as text as that string: it is parsed once more.
 */
function parseSnapshotText(stored: unknown): unknown {
  const state = typeof stored === 'string' ? JSON.parse(stored) : stored
  return typeof state === 'string' ? JSON.parse(state) : state
}

const snapshotFile = /^(\d+)\.json$/

/** Snapshots as files in a folder; `legacy` holds those saved before files were used. */
export class FileSnapshotStore implements SnapshotStore {
  readonly #dir: string
  readonly #legacy: SqlSnapshotStore

  constructor(dir: string, legacy: SqlSnapshotStore) {
    this.#dir = dir
    this.#legacy = legacy
    mkdirSync(dir, { recursive: true })
  }

  async save(seq: number, json: readonly string[], _takenAtMs: number): Promise<number> {
    const path = join(this.#dir, `${seq}.json`)
    const partial = `${path}.partial`
    const file = await open(partial, 'w')
    try {
      for (const chunk of json) await file.write(chunk)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(partial, path)
    await this.#syncDir()
    const seqs = await this.#seqs()
    for (const old of seqs.slice(snapshotsKeptMax))
      await rm(join(this.#dir, `${old}.json`), { force: true })
    // What a crash left half-written (only one snapshot is ever written at a time).
    for (const name of await readdir(this.#dir))
      if (name.endsWith('.partial')) await rm(join(this.#dir, name), { force: true })
    // Snapshots from before the files (a data directory of an older version) are superseded.
    await this.#legacy.clear()
    return seqs.slice(0, snapshotsKeptMax).at(-1) ?? seq
  }

  async latest(): Promise<StoredSnapshot | undefined> {
    const [newest] = await this.#seqs()
    if (newest === undefined) return this.#legacy.latest()
    const text = await readFile(join(this.#dir, `${newest}.json`), 'utf8')
    return { seq: newest, state: JSON.parse(text) }
  }

  async latestSeq(): Promise<number> {
    const [newest] = await this.#seqs()
    return newest ?? (await this.#legacy.latestSeq())
  }

  /** The seqs of the complete snapshot files, newest first. */
  async #seqs(): Promise<number[]> {
    const seqs: number[] = []
    for (const name of await readdir(this.#dir)) {
      const match = snapshotFile.exec(name)
      if (match) seqs.push(Number(match[1]))
    }
    return seqs.sort((a, b) => b - a)
  }

  /** Makes the rename durable: the directory entry, not only the file's data. */
  async #syncDir(): Promise<void> {
    const dir = await open(this.#dir, 'r')
    try {
      await dir.sync()
    } finally {
      await dir.close()
    }
  }
}
