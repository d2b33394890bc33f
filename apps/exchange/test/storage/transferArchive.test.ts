// The transfer archive on each of its stores: the SQLite file of the embedded default, and the
// `account_transfers` table of a SQL database (PGlite always, PostgreSQL when TEST_DATABASE_URL
// is set). The queue, retries and overflow it shares with the trade archive are tested there.
import { describe, expect, it } from 'vitest'
import {
  type ArchivedTransfer,
  SqliteTransferArchive,
  SqlTransferArchive,
  type TransferArchive,
  type TransferPartition,
  type TransferQuery,
} from '../../src/storage/transferArchive.ts'
import { archiveStores } from './storageTargets.ts'

const stores = archiveStores<TransferArchive>({
  file: 'transfers.sqlite',
  table: 'account_transfers',
  sqlite: (path) => new SqliteTransferArchive(path),
  sql: (driver) => new SqlTransferArchive(driver),
})

const t0 = Date.UTC(2026, 10, 20)

/** Odd seqs are EUR deposits, even ones BTC withdrawals (awaiting processing). */
function transfer(accountId: number, seq: number): ArchivedTransfer {
  const deposit = seq % 2 === 1
  return {
    accountId,
    seq,
    kind: deposit ? 'deposit' : 'withdraw',
    timestamp: t0 + seq * 1_000,
    asset: deposit ? 'EUR' : 'BTC',
    amount: `${seq}000000000000000000`,
    fee: deposit ? '0' : '1000',
    reference: `ref-${accountId}-${seq}`,
    ...(deposit
      ? { paymentId: `pay-${seq}`, method: 'ideal' }
      : { address: 'bc1qexample', status: 'awaiting_processing', valueEurCents: 125 }),
  }
}

const everything: TransferQuery = { startMs: 0, endMs: Number.MAX_SAFE_INTEGER, limit: 1_000 }
const seqs = (transfers: readonly { seq: number }[]) => transfers.map((one) => one.seq)

describe.each(stores)('transfer archive: $name', (store) => {
  it('lists one account newest first, by kind, asset and time window, every field as it went in', async () => {
    const archive = await store.open()
    for (let seq = 1; seq <= 10; seq += 1) archive.add(transfer(1, seq))
    archive.add(transfer(2, 1))
    const waiting = await archive.list(1, everything)
    await archive.flush()
    const written = await archive.list(1, everything)
    for (const listed of [waiting, written]) {
      expect(seqs(listed)).toEqual([10, 9, 8, 7, 6, 5, 4, 3, 2, 1])
      expect(listed[0]).toEqual(transfer(1, 10))
      expect(listed[1]).toEqual(transfer(1, 9))
    }
    expect(seqs(await archive.list(1, { ...everything, kind: 'deposit' }))).toEqual([9, 7, 5, 3, 1])
    expect(seqs(await archive.list(1, { ...everything, asset: 'BTC' }))).toEqual([10, 8, 6, 4, 2])
    expect(seqs(await archive.list(1, { ...everything, kind: 'deposit', asset: 'BTC' }))).toEqual(
      [],
    )
    const window = { ...everything, startMs: t0 + 3_000, endMs: t0 + 6_000 }
    expect(seqs(await archive.list(1, window))).toEqual([6, 5, 4, 3])
    expect(seqs(await archive.list(1, { ...window, limit: 2 }))).toEqual([6, 5])
    expect(seqs(await archive.list(2, everything))).toEqual([1])
    // The ledger reads a window whole.
    expect(await archive.list(1, { ...everything, limit: Number.MAX_SAFE_INTEGER })).toHaveLength(
      10,
    )
    expect(await archive.list(3, everything)).toEqual([])
  })

  it('replaces a withdrawal as its status changes, written or still waiting, twice in one batch too', async () => {
    const archive = await store.open()
    archive.add(transfer(1, 2))
    await archive.flush()
    archive.add({ ...transfer(1, 2), status: 'sending' })
    expect((await archive.list(1, everything))[0]?.status).toBe('sending') // waiting wins
    await archive.flush()
    expect(await archive.list(1, everything)).toEqual([{ ...transfer(1, 2), status: 'sending' }])
    // Recorded and advanced twice before one write: one row, its last state.
    archive.add(transfer(1, 4))
    archive.add({ ...transfer(1, 4), status: 'sending' })
    archive.add({ ...transfer(1, 4), status: 'completed' })
    await archive.flush()
    expect((await archive.list(1, everything)).map((one) => [one.seq, one.status])).toEqual([
      [4, 'completed'],
      [2, 'sending'],
    ])
  })

  it("gives the ledger a window's count and its newest, deposits first within a millisecond, what waited written first", async () => {
    const archive = await store.open()
    for (let seq = 1; seq <= 10; seq += 1) archive.add(transfer(1, seq))
    // Recorded later, in the same millisecond as seq 10 (a withdrawal): listed after a deposit
    // of that millisecond, and a withdrawal of it recorded later before the earlier one.
    archive.add({ ...transfer(1, 11), timestamp: t0 + 10_000 })
    archive.add({ ...transfer(1, 12), timestamp: t0 + 10_000 })
    archive.add(transfer(2, 1))
    const page = await archive.ledger(1, { startMs: 0, endMs: Number.MAX_SAFE_INTEGER }, 4)
    expect(page.total).toBe(12)
    expect(seqs(page.transfers)).toEqual([11, 12, 10, 9])
    expect(page.transfers[0]).toEqual({ timestamp: t0 + 10_000, seq: 11 })
    // The page's own read whole, waiting or written; an unknown number is left out.
    const records = await archive.records(1, [11, 9, 99])
    expect(records.sort((a, b) => a.seq - b.seq)).toEqual([
      transfer(1, 9),
      { ...transfer(1, 11), timestamp: t0 + 10_000 },
    ])
    archive.add({ ...transfer(1, 12), timestamp: t0 + 10_000, status: 'sending' })
    expect(await archive.records(1, [12])).toMatchObject([{ seq: 12, status: 'sending' }])
    expect(await archive.records(2, [])).toEqual([])
    const deposits = await archive.ledger(
      1,
      { kind: 'deposit', startMs: t0 + 2_000, endMs: t0 + 9_000 },
      10,
    )
    expect(deposits).toMatchObject({ total: 4 })
    expect(seqs(deposits.transfers)).toEqual([9, 7, 5, 3])
    expect(await archive.ledger(1, { startMs: t0 + 100_000, endMs: t0 + 200_000 }, 10)).toEqual({
      total: 0,
      transfers: [],
    })
  })

  it('replaces a row whole when a number comes again (a transfer numbered anew)', async () => {
    const archive = await store.open()
    archive.add(transfer(1, 1)) // a EUR deposit
    await archive.flush()
    archive.add({ ...transfer(1, 2), seq: 1 }) // a BTC withdrawal under the same number
    await archive.flush()
    expect(await archive.list(1, { ...everything, kind: 'deposit' })).toEqual([])
    expect(await archive.list(1, { ...everything, asset: 'BTC' })).toEqual([
      { ...transfer(1, 2), seq: 1 },
    ])
    expect(
      await archive.ledger(1, { kind: 'withdraw', startMs: t0 + 2_000, endMs: t0 + 2_000 }, 5),
    ).toEqual({ total: 1, transfers: [{ timestamp: t0 + 2_000, seq: 1 }] })
  })

  it('catches up what the core holds beyond the newest written, and names an account with a gap', async () => {
    const archive = await store.open()
    for (const seq of [1, 2]) archive.add(transfer(1, seq))
    archive.add(transfer(2, 1))
    await archive.flush()
    const recent: [TransferPartition, ArchivedTransfer[]][] = [
      [{ accountId: 1 }, [1, 2, 3, 4].map((seq) => transfer(1, seq))],
      // The core's oldest (3) is two past the archive's newest (1): 2 is missing.
      [{ accountId: 2 }, [3, 4].map((seq) => transfer(2, seq))],
      [{ accountId: 3 }, [1].map((seq) => transfer(3, seq))],
    ]
    expect(await archive.catchUp(recent)).toEqual({ written: 5, gaps: [{ accountId: 2 }] })
    expect(seqs(await archive.list(1, everything))).toEqual([4, 3, 2, 1])
    expect(seqs(await archive.list(2, everything))).toEqual([4, 3, 1])
    expect(seqs(await archive.list(3, everything))).toEqual([1])
    expect(await archive.catchUp(recent)).toEqual({ written: 0, gaps: [] })
  })
})
