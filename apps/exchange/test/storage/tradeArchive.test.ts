// The public trade archive on each of its stores: the SQLite file of the embedded default, and
// the `public_trades` table of a SQL database (PGlite always, PostgreSQL when TEST_DATABASE_URL
// is set).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TradeEvent } from '@polder/engine'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import type { SqlDriver, SqlExecutor } from '../../src/storage/sqlDriver.ts'
import {
  SqliteTradeArchive,
  SqlTradeArchive,
  type TradeArchive,
  type TradeWindow,
  tradePruneRowsPerStep,
} from '../../src/storage/tradeArchive.ts'
import {
  removeEmptyEmbeddedDir,
  type StorageTarget,
  sharedDatabases,
  storageTargets,
} from './storageTargets.ts'

const databases = sharedDatabases()
afterAll(async () => {
  await databases.closeAll()
  await removeEmptyEmbeddedDir()
})

/** The target's database for this file, its trades deleted. */
async function emptyDatabase(target: StorageTarget): Promise<SqlDriver> {
  const driver = await databases.open(target)
  await driver.query('delete from public_trades')
  return driver
}

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
        const archive = new SqlTradeArchive(await emptyDatabase(target))
        cleanups.push(() => archive.close())
        return archive
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

/** The database itself, but its transactions refused while `refusing` (a full disk, say). */
function refusingWhenAsked(driver: SqlDriver): SqlDriver & { refusing: boolean } {
  const flaky = {
    refusing: false,
    kind: driver.kind,
    query: driver.query.bind(driver),
    transaction: <T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T> =>
      flaky.refusing ? Promise.reject(new Error('disk full')) : driver.transaction(work),
    close: () => driver.close(),
  }
  return flaky
}

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
    expect(await archive.prune(t0 - 24 * hourMs, 0, [])).toBe(0) // no market: nothing, at once
    expect(await archive.prune(t0 - 24 * hourMs, 0, ['BTC-EUR', 'ETH-EUR'])).toBe(old + 1)
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([
      old + 5,
      old + 4,
      old + 3,
      old + 2,
      old + 1,
    ])
    expect(await archive.list('ETH-EUR', everything)).toEqual([])
    expect(await archive.prune(t0 - 24 * hourMs, 0, ['BTC-EUR', 'ETH-EUR'])).toBe(0)
  })

  it("keeps each market's newest trades whatever their age", async () => {
    const archive = await store.open()
    for (let id = 1; id <= 5; id += 1) archive.add(trade('ETH-EUR', id, t0 - 48 * hourMs + id))
    for (let id = 1; id <= 3; id += 1) archive.add(trade('BTC-EUR', id, t0 - 48 * hourMs + id))
    for (let id = 4; id <= 6; id += 1) archive.add(trade('BTC-EUR', id, t0 + id))
    await archive.flush()
    expect(await archive.prune(t0 - 24 * hourMs, 2, ['BTC-EUR', 'ETH-EUR', 'SOL-EUR'])).toBe(3 + 3)
    expect(ids(await archive.list('ETH-EUR', everything))).toEqual([5, 4])
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([6, 5, 4])
  })

  it('counts the newest trades it keeps with the ones still waiting to be written', async () => {
    const archive = await store.open()
    for (let id = 1; id <= 5; id += 1) archive.add(trade('ETH-EUR', id, t0 - 48 * hourMs + id))
    await archive.flush()
    // Not yet written when the prune starts: the newest two are these, not 4 and 5.
    for (let id = 6; id <= 7; id += 1) archive.add(trade('ETH-EUR', id, t0 - 48 * hourMs + id))
    expect(await archive.prune(t0 - 24 * hourMs, 2, ['ETH-EUR'])).toBe(5)
    expect(ids(await archive.list('ETH-EUR', everything))).toEqual([7, 6])
  })

  it('finds a window by its times when several trades share a timestamp, and nothing between trades', async () => {
    const archive = await store.open()
    const times = [100, 100, 200, 200, 200, 300, 300, 400, 500, 500]
    for (const [index, at] of times.entries()) archive.add(trade('BTC-EUR', index + 1, t0 + at))
    await archive.flush()
    const window = (startAt: number, endAt: number, extra: Partial<TradeWindow> = {}) =>
      archive.list('BTC-EUR', { ...everything, startMs: t0 + startAt, endMs: t0 + endAt, ...extra })
    expect(ids(await window(200, 300))).toEqual([7, 6, 5, 4, 3])
    expect(ids(await window(200, 300, { fromId: 4, toId: 6 }))).toEqual([6, 5, 4])
    expect(ids(await window(200, 300, { fromId: 8 }))).toEqual([])
    expect(ids(await window(500, Number.MAX_SAFE_INTEGER - t0))).toEqual([10, 9])
    expect(ids(await window(-t0, 100))).toEqual([2, 1])
    expect(ids(await window(250, 260))).toEqual([])
    expect(ids(await window(-t0, 50))).toEqual([])
    expect(ids(await window(600, 700))).toEqual([])
    expect(ids(await window(300, 200))).toEqual([])
  })
})

describe('trade archive: catch-up after a crash', () => {
  it("writes the recent trades newer than its newest, however old (a prune keeps each market's newest)", async () => {
    const archive = await stores[0]!.open()
    archive.add(trade('BTC-EUR', 1, t0 - 48 * hourMs + 1))
    await archive.flush()
    const recent = new Map([
      ['ETH-EUR', [1, 2, 3].map((id) => trade('ETH-EUR', id, t0 - 48 * hourMs + id))],
      ['BTC-EUR', [1, 2].map((id) => trade('BTC-EUR', id, t0 - 48 * hourMs + id))],
    ])
    recent.get('BTC-EUR')!.push(trade('BTC-EUR', 3, t0))
    expect(await archive.catchUp(recent.entries())).toEqual({ written: 5, gaps: [] })
    expect(ids(await archive.list('ETH-EUR', everything))).toEqual([3, 2, 1])
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([3, 2, 1])
    // The retention's prune (older than a day) keeps them: each market's newest 1,000.
    await archive.prune(t0 - 24 * hourMs, 1_000, ['ETH-EUR', 'BTC-EUR'])
    expect(ids(await archive.list('ETH-EUR', everything))).toEqual([3, 2, 1])
  })
})

describe('trade archive: when its store refuses writes', () => {
  it('lists the waiting trades, reports the failure, and writes them once the store is back', async () => {
    const driver = await emptyDatabase(storageTargets[0]!)
    const flaky = refusingWhenAsked(driver)
    flaky.refusing = true
    const archive = new SqlTradeArchive(flaky)
    const errors: string[] = []
    archive.onError((error) => errors.push(error.message))
    archive.add(trade('BTC-EUR', 1))
    await expect(archive.flush()).rejects.toThrow('disk full')
    expect(errors).toEqual(['disk full'])
    archive.add(trade('BTC-EUR', 2))
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([2, 1])
    const fresh = () => new SqlTradeArchive(driver).list('BTC-EUR', everything)
    expect(await fresh()).toEqual([])

    // No flush asked for: the archive tries again by itself.
    flaky.refusing = false
    const deadline = Date.now() + 5_000
    while ((await fresh()).length < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50))
    expect(ids(await fresh())).toEqual([2, 1])
    expect(ids(await archive.list('BTC-EUR', everything))).toEqual([2, 1])
  })

  it('drops the oldest waiting trades once its queue is full, and says so once', async () => {
    const driver = await emptyDatabase(storageTargets[0]!)
    const refusing: SqlDriver = {
      kind: driver.kind,
      query: (text, params) => driver.query(text, params),
      transaction: () => Promise.reject(new Error('disk full')),
      close: () => driver.close(),
    }
    const archive = new SqlTradeArchive(refusing, { queueMax: 100 })
    const errors: string[] = []
    archive.onError((error) => errors.push(error.message))
    for (let id = 1; id <= 150; id += 1) archive.add(trade('BTC-EUR', id))
    // 101 trades: the oldest 10 went; 50 more: still at most 100 and no second report.
    expect(errors.filter((message) => message.includes('queue full'))).toEqual([
      'trade archive queue full: 10 trades and more not archived',
    ])
    const listed = ids(await archive.list('BTC-EUR', everything))
    expect(listed.length).toBeLessThanOrEqual(100)
    expect(listed[0]).toBe(150)
    expect(listed).not.toContain(1)
    await archive.close()
  })

  it('lets a caller wait until what came before it is written while more keeps coming, and not while writes fail', async () => {
    const driver = await emptyDatabase(storageTargets[0]!)
    const flaky = refusingWhenAsked(driver)
    const archive = new SqlTradeArchive(flaky)
    archive.onError(() => {})
    let next = 1
    for (; next <= 200; next += 1) archive.add(trade('BTC-EUR', next))
    // Trades keep arriving, one each turn of the event loop, while the caller waits.
    let producing = true
    const produce = () => {
      if (!producing) return
      archive.add(trade('BTC-EUR', next++))
      setImmediate(produce)
    }
    produce()
    await archive.writtenThrough()
    const fresh = await new SqlTradeArchive(driver).list('BTC-EUR', { ...everything, toId: 200 })
    expect(fresh).toHaveLength(200)
    producing = false
    await archive.flush()

    flaky.refusing = true
    archive.add(trade('BTC-EUR', next++))
    await expect(archive.flush()).rejects.toThrow('disk full')
    archive.add(trade('BTC-EUR', next++))
    await expect(archive.writtenThrough()).rejects.toThrow('trade archive writes are failing')
    flaky.refusing = false
    await archive.flush()
    await archive.writtenThrough()
  })

  it('lets no caller go while a batch it waits for is still being written, whatever the queue drops meanwhile', async () => {
    const driver = await emptyDatabase(storageTargets[0]!)
    let letGo: () => void = () => {}
    const held = new Promise<void>((resolve) => (letGo = resolve))
    // Its transactions wait until let go: a write that hangs without failing.
    const stalled: SqlDriver = {
      kind: driver.kind,
      query: driver.query.bind(driver),
      transaction: async (work) => {
        await held
        return driver.transaction(work)
      },
      close: () => driver.close(),
    }
    const archive = new SqlTradeArchive(stalled, { queueMax: 20 })
    archive.onError(() => {})
    for (let id = 1; id <= 5; id += 1) archive.add(trade('BTC-EUR', id))
    const writing = archive.flush()
    await new Promise((resolve) => setImmediate(resolve)) // the write has begun, and hangs
    let released = false
    const waited = archive.writtenThrough().then(() => {
      released = true
    })
    // More than the queue holds arrives while the first five are being written: some go.
    for (let id = 6; id <= 40; id += 1) archive.add(trade('BTC-EUR', id))
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(released).toBe(false)
    letGo()
    await waited
    await writing
    const written = await new SqlTradeArchive(driver).list('BTC-EUR', { ...everything, toId: 5 })
    expect(ids(written)).toEqual([5, 4, 3, 2, 1])
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
