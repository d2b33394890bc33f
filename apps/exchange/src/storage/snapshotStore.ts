// Snapshots of the exchange core, each valid at a journal sequence number: a restart loads the
// newest and replays only the journal records after it.
import type { SqlDriver } from './sqlDriver.ts'

/** Snapshots kept; older ones are deleted after a new one is saved. */
export const snapshotsKeptMax = 2

export type StoredSnapshot = { seq: number; state: unknown }

/**
 * Saves a snapshot and drops all but the newest `snapshotsKeptMax`. Returns the oldest kept
 * snapshot's seq: journal records up to it are never replayed again, so the caller prunes them
 * (a long-running exchange, the simulator journaling ~150 commands a second, keeps a bounded
 * journal; long-term history belongs in SQL projections, not in the recovery log). Pruning after
 * this commit is safe: a crash in between only leaves records that replay skips.
 */
export async function saveSnapshot(
  driver: SqlDriver,
  seq: number,
  stateJson: string,
  takenAtMs: number,
): Promise<number> {
  return driver.transaction(async (tx) => {
    await tx.query(
      'insert into snapshots (seq, state, taken_at_ms) values ($1, $2::jsonb, $3) on conflict (seq) do nothing',
      [seq, stateJson, takenAtMs],
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

/** The newest snapshot's seq, 0 when there is none. */
export async function latestSnapshotSeq(driver: SqlDriver): Promise<number> {
  const [row] = await driver.query<{ last: string | number | null }>(
    'select max(seq) as last from snapshots',
  )
  return Number(row?.last ?? 0)
}

export async function latestSnapshot(driver: SqlDriver): Promise<StoredSnapshot | undefined> {
  const [row] = await driver.query<{ seq: string | number; state: unknown }>(
    'select seq, state from snapshots order by seq desc limit 1',
  )
  if (!row) return undefined
  return {
    seq: Number(row.seq),
    state: typeof row.state === 'string' ? JSON.parse(row.state) : row.state,
  }
}
