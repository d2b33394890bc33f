// The public trade archive on each of its stores: the SQLite file of the embedded default, and
// the `public_trades` table of a SQL database (PGlite always, PostgreSQL when TEST_DATABASE_URL
// is set).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TradeEvent } from '@polder/engine'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { openStorage } from '../../src/storage/openStorage.ts'
import {
  SqliteTradeArchive,
  SqlTradeArchive,
  type TradeArchive,
  type TradeWindow,
  tradePruneRowsPerStep,
} from '../../src/storage/tradeArchive.ts'
import { removeEmptyEmbeddedDir, storageTargets } from './storageTargets.ts'

afterAll(removeEmptyEmbeddedDir)

type Store = { name: string; open(): Promise<TradeArchive> }

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

/** Archives on one SQLite file in a fresh directory, all closed and removed after the test. */
function sqliteArchives(): { open(): SqliteTradeArchive } {
  const dir = mkdtempSync(join(tmpdir(), 'polder-trades-'))
  const opened: TradeArchive[] = []
  cleanups.push(async () => {
    for (const archive of opened) await archive.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    open() {
      const archive = new SqliteTradeArchive(join(dir, 'trades.sqlite'))
      opened.push(archive)
      return archive
    },
  }
}

const stores: Store[] = [
  {
    name: 'SQLite file (embedded default)',
    async open() {
      return sqliteArchives().open()
    },
  },
  ...storageTargets.map(
    (target): Store => ({
      name: `SQL table on ${target.name}`,
      async open() {
        const { location, cleanup } = await target.create()
        const driver = await openStorage(location)
        cleanups.push(async () => {
          await driver.close()
          await cleanup()
        })
        return new SqlTradeArchive(driver)
      },
    }),
  ),
]

const hourMs = 3_600_000
const t0 = Date.UTC(2026, 10, 20)

function trade(market: string, tradeId: number, timestamp = t0 + tradeId * 1_000): TradeEvent {
  return {
    type: 'trade',
    market,
    tradeId,
    timestamp,
    price: 50_000 + tradeId,
    amount: 1_000 * tradeId,
    side: tradeId % 2 === 0 ? 'buy' : 'sell',
  }
}

const everything: TradeWindow = {
  startMs: 0,
  endMs: Number.MAX_SAFE_INTEGER,
  fromId: 0,
  toId: Number.MAX_SAFE_INTEGER,
  limit: 1000,
}
const ids = (trades: readonly TradeEvent[]) => trades.map((one) => one.tradeId)

describe.each(stores)('trade archive: $name', (store) => {
  it('lists a market newest first, within the time window, the id range and the limit', async () => {
    const archive = await store.open()
    for (let id = 1; id <= 30; id += 1) archive.add(trade('BTC-EUR', id))
    archive.add(trade('ETH-EUR', 1))
    const all = await archive.list('BTC-EUR', everything)
    expect(ids(all)).toEqual(Array.from({ length: 30 }, (_, index) => 30 - index))
    expect(all[0]).toEqual(trade('BTC-EUR', 30)) // every field as it went in
    expect(
      ids(
        await archive.list('BTC-EUR', {
          ...everything,
          startMs: t0 + 10_000,
          endMs: t0 + 20_000,
        }),
      ),
    ).toEqual([20, 19, 18, 17, 16, 15, 14, 13, 12, 11, 10])
    expect(
      ids(await archive.list('BTC-EUR', { ...everything, fromId: 5, toId: 25, limit: 3 })),
    ).toEqual([25, 24, 23])
    expect(ids(await archive.list('ETH-EUR', everything))).toEqual([1])
    expect(await archive.list('SOL-EUR', everything)).toEqual([])
  })

  it('lists a trade on the next read, before its batch would have been written', async () => {
    const archive = await store.open()
    archive.add(trade('BTC-EUR', 1))
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([1])
  })

  it('catches up on the trades newer than its newest, ignores the rest, and names a gap', async () => {
    const archive = await store.open()
    for (let id = 1; id <= 5; id += 1) archive.add(trade('BTC-EUR', id))
    archive.add(trade('ETH-EUR', 1))
    await archive.flush()
    const recent = new Map<string, TradeEvent[]>([
      // What the core still holds after a crash: the last written ones and two more.
      ['BTC-EUR', [3, 4, 5, 6, 7].map((id) => trade('BTC-EUR', id))],
      // Its memory no longer reaches back to the archive's newest (1): 2 and 3 are gone.
      ['ETH-EUR', [4, 5].map((id) => trade('ETH-EUR', id))],
      // A market the archive has never seen.
      ['SOL-EUR', [1].map((id) => trade('SOL-EUR', id))],
    ])
    expect(await archive.catchUp(recent.entries())).toEqual({ written: 5, gaps: ['ETH-EUR'] })
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([7, 6, 5, 4, 3, 2, 1])
    expect(ids(await archive.list('ETH-EUR', everything))).toEqual([5, 4, 1])
    expect(ids(await archive.list('SOL-EUR', everything))).toEqual([1])
    expect(await archive.catchUp(recent.entries())).toEqual({ written: 0, gaps: [] })
  })

  it('keeps one row per trade when a trade is written twice', async () => {
    const archive = await store.open()
    archive.add(trade('BTC-EUR', 1))
    await archive.flush()
    archive.add(trade('BTC-EUR', 1))
    archive.add(trade('BTC-EUR', 2))
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([2, 1])
  })

  it('prunes the trades older than the retention, a step at a time, and keeps the rest', async () => {
    const archive = await store.open()
    const old = tradePruneRowsPerStep + 10
    for (let id = 1; id <= old; id += 1) archive.add(trade('BTC-EUR', id, t0 - 48 * hourMs + id))
    for (let id = old + 1; id <= old + 5; id += 1) archive.add(trade('BTC-EUR', id, t0 + id))
    archive.add(trade('ETH-EUR', 1, t0 - 48 * hourMs))
    await archive.flush()
    expect(await archive.prune(t0 - 24 * hourMs)).toBe(old + 1)
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([
      old + 5,
      old + 4,
      old + 3,
      old + 2,
      old + 1,
    ])
    expect(await archive.list('ETH-EUR', everything)).toEqual([])
    expect(await archive.prune(t0 - 24 * hourMs)).toBe(0)
  })
})

describe('trade archive: SQLite file', () => {
  it('keeps what it wrote across a close and a new open', async () => {
    const file = sqliteArchives()
    const archive = file.open()
    archive.add(trade('BTC-EUR', 1))
    await archive.close() // writes what is queued
    expect(ids(await file.open().list('BTC-EUR', everything))).toEqual([1])
  })
})
