// The SQLite journal forgets old batches a step at a time (so that a large prune never holds the
// event loop): every batch up to the given seq goes, however many steps that takes, and none
// after it.
import { describe, expect, it } from 'vitest'
import { pruneBatchesPerStep, SqliteJournalBackend } from '../../src/storage/journalBackends.ts'

describe('SqliteJournalBackend.prune', () => {
  it('deletes every batch through the seq over several steps, and keeps the rest', async () => {
    const backend = new SqliteJournalBackend(undefined)
    try {
      const batches = pruneBatchesPerStep * 2 + 7
      for (let seq = 1; seq <= batches; seq += 1)
        await backend.write({ firstSeq: seq, lastSeq: seq, records: `[${seq}]`, writtenAtMs: seq })
      const through = pruneBatchesPerStep * 2 + 3 // more than two whole steps
      // Event-loop turns taken while the prune runs: none if it were one synchronous statement.
      let loopTurns = 0
      let pruning = true
      const turn = () => {
        loopTurns += 1
        if (pruning) setImmediate(turn)
      }
      setImmediate(turn)
      await backend.prune(through)
      pruning = false
      const left = await backend.readBatches(0, batches)
      expect(left).toEqual(
        Array.from({ length: batches - through }, (_, index) => `[${through + 1 + index}]`),
      )
      expect(loopTurns).toBeGreaterThan(0) // the loop ran between steps
      await backend.prune(through) // nothing left to do: no error, nothing else goes
      expect(await backend.readBatches(0, batches)).toHaveLength(batches - through)
    } finally {
      await backend.close()
    }
  })
})
