// The candle archive on each of its stores: the SQLite file of the embedded default, and the
// `archived_candles` table of a SQL database (PGlite always, PostgreSQL when TEST_DATABASE_URL
// is set).
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TradeEvent } from '@polder/engine'
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest'
import { MarketStats } from '../../src/core/marketStats.ts'
import {
  type CandleArchive,
  candleIntervalsKept,
  SqlCandleArchive,
  SqliteCandleArchive,
} from '../../src/storage/candleArchive.ts'
import type { SqlDriver } from '../../src/storage/sqlDriver.ts'
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
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

type Store = {
  name: string
  open(): Promise<CandleArchive>
  /** The SQL stores' driver, to count round trips. */
  driver?: SqlDriver
}

const stores: Store[] = [
  {
    name: 'SQLite file (embedded default)',
    async open() {
      const dir = mkdtempSync(join(tmpdir(), 'polder-candles-'))
      const archive = new SqliteCandleArchive(join(dir, 'candles.sqlite'))
      cleanups.push(async () => {
        await archive.close()
        rmSync(dir, { recursive: true, force: true })
      })
      return archive
    },
  },
  ...storageTargets.map(
    (target: StorageTarget): Store => ({
      name: `SQL table on ${target.name}`,
      driver: undefined,
      async open() {
        const driver = await databases.open(target)
        await driver.query('delete from archived_candles')
        this.driver = driver
        const archive = new SqlCandleArchive(driver)
        cleanups.push(() => archive.close())
        return archive
      },
    }),
  ),
]

const minute = 60_000
const t0 = Date.UTC(2026, 10, 20)
/** A quote volume past 64 bits: the store keeps it whole. */
const hugeQuote = 2n ** 70n + 7n

function trade(k: number, market: string): TradeEvent {
  return {
    type: 'trade',
    market,
    tradeId: k + 1,
    timestamp: t0 + k * minute,
    price: 1_000 + k,
    amount: 10 + k,
    side: 'sell',
  }
}

describe.each(stores)('candle archive: $name', (store) => {
  it('writes closed candles, lists a series by window, catches up, and prunes', async () => {
    const archive = await store.open()
    const stats = new MarketStats()
    // BTC-EUR's first 30 minutes before the archive follows the core; ETH-EUR's after.
    for (let k = 0; k < 30; k++) stats.record(trade(k, 'BTC-EUR'), k === 0 ? Number(hugeQuote) : k)
    expect((await archive.follow(stats)).written).toBe(29 + 5 + 1) // 1m, 5m, 15m closed
    for (let k = 30; k < 61; k++)
      for (const market of ['BTC-EUR', 'ETH-EUR']) {
        stats.record(trade(k, market), k)
        archive.noteTrade(trade(k, market))
      }
    await archive.flush()
    const oneMinute = await archive.list({ market: 'BTC-EUR', interval: '1m' }, 0, t0 * 2, 100)
    expect(oneMinute.map((candle) => (candle.timestamp - t0) / minute)).toEqual(
      Array.from({ length: 60 }, (_, k) => 59 - k),
    )
    expect(oneMinute.at(-1)).toEqual({
      timestamp: t0,
      open: 1_000,
      high: 1_000,
      low: 1_000,
      close: 1_000,
      volume: 10,
      volumeQuote: BigInt(Number(hugeQuote)),
    })
    // ETH-EUR's first trade opened its candles: the minutes after it closed are archived.
    expect(await archive.list({ market: 'ETH-EUR', interval: '1m' }, 0, t0 * 2, 100)).toHaveLength(
      30,
    )
    // A window, newest first, its limit counted.
    const window = await archive.list(
      { market: 'BTC-EUR', interval: '5m' },
      t0 + 10 * minute,
      t0 + 30 * minute,
      2,
    )
    expect(window.map((candle) => (candle.timestamp - t0) / minute)).toEqual([30, 25])
    // Minute 60 began the second hour: the first is closed, and archived.
    const hours = await archive.list({ market: 'BTC-EUR', interval: '1h' }, 0, t0 * 2, 10)
    expect(hours).toEqual(
      [{ ...oneMinute.at(-1)!, high: 1_059, close: 1_059, volume: 60 * 10 + (59 * 60) / 2 }].map(
        (candle) => ({ ...candle, volumeQuote: BigInt(Number(hugeQuote)) + BigInt((59 * 60) / 2) }),
      ),
    )
    // Everything written: a start finds nothing to catch up.
    expect(await archive.follow(stats)).toEqual({ written: 0, gaps: [] })
    // A prune 10,080 minutes after minute 20: BTC-EUR's minutes 0-19 go, ETH-EUR's none.
    expect(
      await archive.prune(t0 + (candleIntervalsKept + 20) * minute, ['BTC-EUR', 'ETH-EUR']),
    ).toBe(20)
    const left = await archive.list({ market: 'BTC-EUR', interval: '1m' }, 0, t0 * 2, 100)
    expect(left).toHaveLength(40)
    expect(left.at(-1)!.timestamp).toBe(t0 + 20 * minute)
  })

  it('asks for the newest candle of every series at once when it starts', async () => {
    const archive = await store.open()
    const stats = new MarketStats()
    for (const market of ['BTC-EUR', 'ETH-EUR', 'SOL-EUR'])
      for (let k = 0; k < 5; k++) stats.record(trade(k, market), k)
    const query = store.driver === undefined ? undefined : vi.spyOn(store.driver, 'query')
    // Three markets, ten intervals each: thirty series, the 1m ones with four closed candles.
    expect(await archive.follow(stats)).toEqual({ written: 12, gaps: [] })
    // A database over a network is asked once, not once a series (2,000 with the listing).
    if (query !== undefined) {
      const asked = query.mock.calls.filter(([sql]) => String(sql).includes('start_ms desc'))
      expect(asked).toHaveLength(1)
      query.mockRestore()
    }
  })
})
