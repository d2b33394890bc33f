// Candles older than the core keeps (its newest 1,440 per interval) come from the candle archive:
// archived as they close, caught up after a stop, pruned by age, and listed by
// `/{market}/candles` between the live candles and the simulated history.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TradeEvent } from '@polder/engine'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { type Candle, candlesPerIntervalMax, MarketStats } from '../src/core/marketStats.ts'
import { createExchangeServer } from '../src/server.ts'
import {
  candleIntervalsKept,
  readCandles,
  SqliteCandleArchive,
} from '../src/storage/candleArchive.ts'
import { TradeArchive } from '../src/storage/tradeArchive.ts'
import { tradeManyTimes } from './fixtures/manyTrades.ts'
import { testListing } from './fixtures/testListing.ts'

const minute = 60_000
const day = 86_400_000
/** Midnight three days ago: every interval's candles begin at t0. */
const t0 = Math.floor(Date.now() / day) * day - 3 * day

/** Trade number k (from 0) in minute k: price 100 + k, amount 1 + k. */
function trade(k: number, market = 'BTC-EUR'): TradeEvent {
  return {
    type: 'trade',
    market,
    tradeId: k + 1,
    timestamp: t0 + k * minute + 1_000,
    price: 100 + k,
    amount: 1 + k,
    side: 'buy',
  }
}

/** The 1m candle trade k makes, alone in its minute. */
const candleOf = (k: number): Candle => ({
  timestamp: t0 + k * minute,
  open: 100 + k,
  high: 100 + k,
  low: 100 + k,
  close: 100 + k,
  volume: 1 + k,
  volumeQuote: BigInt(1 + k),
})

/** `count` trades recorded by the core's statistics and, as each is durable, by the archive. */
async function recorded(count: number, archive: SqliteCandleArchive, stats = new MarketStats()) {
  await archive.follow(stats)
  for (let k = 0; k < count; k++) {
    stats.record(trade(k), 1 + k)
    archive.noteTrade(trade(k))
  }
  await archive.flush()
  return stats
}

/** Every 1m candle of BTC-EUR, newest first, paged as a client does (each page ends before the last). */
async function allPages(stats: MarketStats, archive: SqliteCandleArchive): Promise<Candle[]> {
  const all: Candle[] = []
  let end = Number.MAX_SAFE_INTEGER
  for (;;) {
    const page = await readCandles(stats, archive, 'BTC-EUR', '1m', 0, end, candlesPerIntervalMax)
    all.push(...page)
    if (page.length < candlesPerIntervalMax) return all
    end = page.at(-1)!.timestamp - 1
  }
}

describe('the candle archive', () => {
  it('archives each candle as it closes and lists it once the core has let it go', async () => {
    const archive = new SqliteCandleArchive(undefined)
    const count = candlesPerIntervalMax + 60
    const stats = await recorded(count, archive)
    // The core keeps its newest 1,441 1m candles (a rolling day counts 1,441 minutes when it
    // ends on a whole one); the 59 before them are in the archive only.
    expect(stats.oldestLiveMs('BTC-EUR', '1m')).toBe(t0 + 59 * minute)
    expect(stats.liveCandles('BTC-EUR', '1m', 0, t0, 10)).toEqual([])
    const expected = Array.from({ length: count }, (_, k) => candleOf(count - 1 - k))
    expect(await allPages(stats, archive)).toEqual(expected)
    // A window wholly older than the core's candles, and one across the boundary.
    expect(
      await readCandles(stats, archive, 'BTC-EUR', '1m', t0 + 10 * minute, t0 + 12 * minute, 10),
    ).toEqual([candleOf(12), candleOf(11), candleOf(10)])
    expect(
      await readCandles(stats, archive, 'BTC-EUR', '1m', t0 + 58 * minute, t0 + 61 * minute, 10),
    ).toEqual([candleOf(61), candleOf(60), candleOf(59), candleOf(58)])
    // The limit counts the live and the archived candles together.
    expect(await readCandles(stats, archive, 'BTC-EUR', '1m', 0, t0 + 61 * minute, 3)).toEqual([
      candleOf(61),
      candleOf(60),
      candleOf(59),
    ])
    // The open candle (the last) is in memory only; every closed one is archived.
    const archived = await archive.list({ market: 'BTC-EUR', interval: '1m' }, 0, t0 * 2, 10_000)
    expect(archived).toHaveLength(count - 1)
    // 5m candles: 300 of them, all in memory, the archive not asked for more.
    const fiveMinutes = await readCandles(stats, archive, 'BTC-EUR', '5m', 0, t0 * 2, 1440)
    expect(fiveMinutes).toHaveLength(Math.ceil(count / 5))
    expect(fiveMinutes.at(-1)).toEqual({
      timestamp: t0,
      open: 100,
      high: 104,
      low: 100,
      close: 104,
      volume: 15,
      volumeQuote: 15n,
    })
    await archive.close()
  })

  it('catches up what a stop left unwritten, and names a series it can no longer fill', async () => {
    // The core's candles as a snapshot and a replay rebuild them, none of them archived.
    const stats = new MarketStats()
    for (let k = 0; k < 100; k++) stats.record(trade(k), 1 + k)
    const archive = new SqliteCandleArchive(undefined)
    const caughtUp = await archive.follow(stats)
    // 99 closed 1m candles, 19 closed 5m, 6 of 15m, 3 of 30m, 1 of 1h: the open ones wait.
    expect(caughtUp).toEqual({ written: 99 + 19 + 6 + 3 + 1, gaps: [] })
    const list = (interval: '1m' | '1h') =>
      archive.list({ market: 'BTC-EUR', interval }, 0, Number.MAX_SAFE_INTEGER, 1_000)
    expect(await list('1m')).toEqual(Array.from({ length: 99 }, (_, k) => candleOf(98 - k)))
    expect(await list('1h')).toHaveLength(1)
    // Trades after the start close the open candles as they come.
    stats.record(trade(100), 101)
    archive.noteTrade(trade(100))
    await archive.flush()
    expect((await list('1m'))[0]).toEqual(candleOf(99))
    // A second start finds everything written.
    expect(await archive.follow(stats)).toEqual({ written: 0, gaps: [] })
    await archive.close()

    // A core whose full series begins after the archive's newest candle: the ones between are
    // gone for good, and the catch-up says which series.
    const later = new MarketStats()
    for (let k = 0; k < candlesPerIntervalMax + 10; k++) later.record(trade(k), 1 + k)
    const early = new MarketStats()
    early.record(trade(0), 1)
    early.record(trade(1), 2)
    const first = new SqliteCandleArchive(undefined)
    await first.follow(early)
    expect(await first.list({ market: 'BTC-EUR', interval: '1m' }, 0, t0 * 2, 10)).toEqual([
      candleOf(0),
    ])
    const resumed = await first.follow(later)
    expect(resumed.gaps).toEqual([{ market: 'BTC-EUR', interval: '1m' }])
    await first.close()
  })

  it('keeps each series for its number of intervals, the newer ones whole', async () => {
    const archive = new SqliteCandleArchive(undefined)
    const stats = await recorded(200, archive)
    // A prune as if 10,080 minutes had passed since minute 50: minutes before 50 go.
    const nowMs = t0 + (candleIntervalsKept + 50) * minute
    const deleted = await archive.prune(nowMs, ['BTC-EUR'])
    expect(deleted).toBe(50)
    const left = await archive.list({ market: 'BTC-EUR', interval: '1m' }, 0, t0 * 2, 1_000)
    expect(left.at(-1)).toEqual(candleOf(50))
    expect(left).toHaveLength(199 - 50)
    // The 5m series keeps 35 days: none of its 39 closed candles is old enough.
    expect(
      await archive.list({ market: 'BTC-EUR', interval: '5m' }, 0, t0 * 2, 1_000),
    ).toHaveLength(39)
    expect(stats.liveCandles('BTC-EUR', '1m', 0, t0 * 2, 1_000)).toHaveLength(200)
    await archive.close()
  })
})

describe('/{market}/candles on a server', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'polder-candle-archive-'))
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }))
  const start = () =>
    createExchangeServer(
      { ...defaultConfig, port: 0, logLevel: 'silent', dataDir, simulator: false },
      testListing,
      { nowMs: () => Date.now() },
    )
  const count = candlesPerIntervalMax + 30
  const getCandles = async (baseUrl: string, query: string) => {
    const response = await fetch(`${baseUrl}/v2/BTC-EUR/candles?interval=1m&${query}`)
    expect(response.status).toBe(200)
    return (await response.json()) as [number, string, string, string, string, string][]
  }

  it('lists the candles the core no longer holds, and again after a restart', async () => {
    // One trade a minute (the fixture's buys), from a minute after the seller's ask.
    const server = await start()
    let baseUrl = await server.listen()
    await tradeManyTimes(server, { count, startMs: t0, spacingMs: minute })
    const oldestLive = server.service.core.stats.oldestLiveMs('BTC-EUR', '1m')!
    expect(oldestLive).toBe(t0 + 30 * minute)
    // ccxt's paging: `end` is where the last candle wanted ends.
    const older = await getCandles(baseUrl, `start=${t0}&end=${oldestLive}&limit=1440`)
    expect(older.map(([time]) => (time - t0) / minute)).toEqual(
      Array.from({ length: 29 }, (_, k) => 29 - k),
    )
    expect(older[0]!.slice(1)).toEqual(['60000', '60000', '60000', '60000', '0.00100000'])
    const newest = await getCandles(baseUrl, 'limit=1440')
    expect(newest).toHaveLength(1440)
    expect((newest.at(-1)![0] - t0) / minute).toBe(31)
    await server.close()

    // A clean stop writes what waited; the restart lists the same from the file.
    const restarted = await start()
    baseUrl = await restarted.listen()
    expect(await getCandles(baseUrl, `start=${t0}&end=${oldestLive}&limit=1440`)).toEqual(older)
    await restarted.close()
  })

  it('prunes the candles in a task of their own: a failing candle archive leaves the trades pruned', async () => {
    const server = await start()
    try {
      const candlePrune = vi
        .spyOn(SqliteCandleArchive.prototype, 'prune')
        .mockRejectedValue(new Error('database is locked'))
      const tradePrune = vi.spyOn(TradeArchive.prototype, 'prune')
      await server.tradePruning.run()
      expect(tradePrune).toHaveBeenCalledTimes(1)
      await expect(server.candlePruning.run()).rejects.toThrow('database is locked')
      expect(candlePrune).toHaveBeenCalledTimes(1)
    } finally {
      vi.restoreAllMocks()
      await server.close()
    }
  })
})
