// Snapshots of the exchange core, each valid at a journal sequence number: a restart loads the
// newest and replays only the journal records after it.
import type { SqlDriver } from './sqlDriver.ts'

/** Snapshots kept; older ones are deleted after a new one is saved. */
export const snapshotsKeptMax = 2

export type StoredSnapshot = { seq: number; state: unknown }

export async function saveSnapshot(
  driver: SqlDriver,
  seq: number,
  stateJson: string,
  takenAtMs: number,
): Promise<void> {
  await driver.transaction(async (tx) => {
    await tx.query(
      'insert into snapshots (seq, state, taken_at_ms) values ($1, $2::jsonb, $3) on conflict (seq) do nothing',
      [seq, stateJson, takenAtMs],
    )
    await tx.query(
      'delete from snapshots where seq not in (select seq from snapshots order by seq desc limit $1)',
      [snapshotsKeptMax],
    )
    // Records covered by the oldest kept snapshot are never replayed again: drop them, so a
    // long-running exchange (the simulator journals ~150 commands a second) keeps a bounded
    // journal. Long-term history belongs in SQL projections, not in the recovery log.
    await tx.query('delete from journal where seq <= (select min(seq) from snapshots)')
  })
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
