// A periodic snapshot that fails to save (on PostgreSQL: a statement cut off by a fail-over, a
// timeout, an operator) ends neither the process nor the exchange: the journal holds every
// command, and the failure is told to the server, which logs it. And a snapshot asked for (a
// clean stop's) while a periodic one is being written waits for it: two at one journal position
// would write the same file.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExchangeService, snapshotEveryRecords } from '../src/core/exchangeService.ts'
import { openJournal } from '../src/storage/journal.ts'
import { openStorage } from '../src/storage/openStorage.ts'
import { openSnapshotStore } from '../src/storage/snapshotStore.ts'
import type { SqlDriver } from '../src/storage/sqlDriver.ts'

const location = { kind: 'embedded' as const, dataDir: undefined }
let storage: SqlDriver

beforeAll(async () => {
  storage = await openStorage(location)
})
afterAll(() => storage.close())

/** Submits `snapshotEveryRecords` deposits: the last one starts a periodic snapshot. */
async function depositsUntilSnapshot(service: ExchangeService): Promise<void> {
  const pending: Promise<unknown>[] = []
  for (let index = 0; index < snapshotEveryRecords; index += 1) {
    pending.push(
      service.submit({
        type: 'deposit',
        timestamp: Date.now(),
        accountId: 1 + (index % 100),
        asset: 'EUR',
        amount: '1000',
        reference: `d${index}`,
      }),
    )
    if (pending.length >= 5_000) await Promise.all(pending.splice(0))
  }
  await Promise.all(pending)
}

describe('a snapshot asked for while a periodic one is written', () => {
  it('waits for it: never two saves at once', async () => {
    const journal = await openJournal(location, storage)
    const snapshots = openSnapshotStore(location, storage)
    const save = snapshots.save.bind(snapshots)
    let saving = 0
    const overlaps: number[] = []
    const saved: number[] = []
    snapshots.save = async (seq, json, takenAtMs) => {
      saving += 1
      if (saving > 1) overlaps.push(seq)
      await new Promise((resolve) => setTimeout(resolve, 2_000)) // a slow disk
      try {
        return await save(seq, json, takenAtMs)
      } finally {
        saving -= 1
        saved.push(seq)
      }
    }
    const service = await ExchangeService.open(snapshots, journal, [], Date.now)
    try {
      await depositsUntilSnapshot(service)
      await expect.poll(() => saving, { timeout: 10_000 }).toBe(1) // the periodic one
      await service.snapshot() // as a clean stop asks for one
      expect(overlaps).toEqual([])
      expect(saved).toEqual([snapshotEveryRecords, snapshotEveryRecords])
    } finally {
      await journal.close()
    }
  }, 120_000)
})

describe('a periodic snapshot that fails', () => {
  it('is told to its listeners, with no unhandled rejection, no halt, and every command kept', async () => {
    const journal = await openJournal(location, storage)
    const snapshots = openSnapshotStore(location, storage)
    snapshots.save = async () => {
      throw new Error('write CONNECTION_CLOSED')
    }
    const fatal: Error[] = []
    const service = await ExchangeService.open(snapshots, journal, [], Date.now, (error) =>
      fatal.push(error),
    )
    const failed: unknown[] = []
    service.onSnapshotFailed((error) => failed.push(error))
    // Node ends the process on an unhandled rejection (the server installs no handler).
    const unhandled: unknown[] = []
    const onUnhandled = (reason: unknown) => unhandled.push(reason)
    process.on('unhandledRejection', onUnhandled)
    try {
      const firstSeq = journal.nextSeq
      await depositsUntilSnapshot(service)
      await expect.poll(() => failed.length, { timeout: 10_000 }).toBe(1)
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(String(failed[0])).toContain('CONNECTION_CLOSED')
      expect(unhandled).toEqual([])
      expect(fatal).toEqual([])
      // Still taking commands, and the journal holds them all.
      const after = await service.submit({
        type: 'deposit',
        timestamp: Date.now(),
        accountId: 1,
        asset: 'EUR',
        amount: '1000',
        reference: 'after',
      })
      expect(after.ok).toBe(true)
      expect(journal.nextSeq - firstSeq).toBe(snapshotEveryRecords + 1)
    } finally {
      process.off('unhandledRejection', onUnhandled)
      await journal.close()
    }
  }, 120_000)
})
