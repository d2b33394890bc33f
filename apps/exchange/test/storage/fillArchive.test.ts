// The fill archive on each of its stores: the SQLite file of the embedded default, and the
// `account_fills` table of a SQL database (PGlite always, PostgreSQL when TEST_DATABASE_URL is
// set). The queue, retries and overflow it shares with the trade archive are tested there.
import type { FillEvent } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import { ledgerFillsOf } from '../../src/api/accountLedger.ts'
import {
  type FillArchive,
  type FillPartition,
  LedgerBusyError,
  ledgerReadsPerAccountMax,
  SqlFillArchive,
  SqliteFillArchive,
} from '../../src/storage/fillArchive.ts'
import type { ArchiveWindow } from '../../src/storage/projectionArchive.ts'
import { archiveStores } from './storageTargets.ts'

const stores = archiveStores<FillArchive>({
  file: 'fills.sqlite',
  table: 'account_fills',
  sqlite: (path) => new SqliteFillArchive(path),
  sql: (driver) => new SqlFillArchive(driver),
})

const t0 = Date.UTC(2026, 10, 20)

function fill(accountId: number, market: string, fillId: number, taker = fillId % 2 === 0) {
  return {
    type: 'fill',
    market,
    orderId: `00000000-0000-4000-8000-${String(fillId).padStart(12, '0')}`,
    clientOrderId: fillId % 3 === 0 ? `client-${fillId}` : null,
    accountId,
    fillId,
    timestamp: t0 + fillId * 1_000,
    side: taker ? 'buy' : 'sell',
    price: 50_000 + fillId,
    amount: 1_000 * fillId,
    quote: 7 * fillId,
    taker,
    fee: taker ? 25 : -3, // a maker rebate is negative
    feeCurrency: 'EUR',
  } satisfies FillEvent
}

const everything: ArchiveWindow = {
  startMs: 0,
  endMs: Number.MAX_SAFE_INTEGER,
  fromId: 0,
  toId: Number.MAX_SAFE_INTEGER,
  limit: 1000,
}
const ids = (fills: readonly FillEvent[]) => fills.map((one) => one.fillId)

/** A seeded generator of whole numbers below `below`. */
function numbers(seed: number) {
  return (below: number) => {
    seed = (seed * 48_271) % 2_147_483_647
    return seed % below
  }
}

describe.each(stores)('fill archive: $name', (store) => {
  it('lists one account in one market, newest first, in the window, every field as it went in', async () => {
    const archive = await store.open()
    for (let id = 1; id <= 20; id += 1) archive.add(fill(1, 'BTC-EUR', id))
    archive.add(fill(2, 'BTC-EUR', 21)) // the other side of someone's trade
    archive.add(fill(1, 'ETH-EUR', 1))
    const waiting = await archive.list(1, 'BTC-EUR', everything)
    await archive.flush()
    const written = await archive.list(1, 'BTC-EUR', everything)
    for (const listed of [waiting, written]) {
      expect(ids(listed)).toEqual(Array.from({ length: 20 }, (_, index) => 20 - index))
      expect(listed[0]).toEqual(fill(1, 'BTC-EUR', 20))
      expect(listed[2]).toEqual(fill(1, 'BTC-EUR', 18)) // a client order id
      expect(listed[1]).toEqual(fill(1, 'BTC-EUR', 19)) // a maker, with its rebate
    }
    expect(
      ids(
        await archive.list(1, 'BTC-EUR', { ...everything, startMs: t0 + 5_000, endMs: t0 + 8_000 }),
      ),
    ).toEqual([8, 7, 6, 5])
    expect(ids(await archive.list(1, 'BTC-EUR', { ...everything, toId: 10, limit: 3 }))).toEqual([
      10, 9, 8,
    ])
    expect(ids(await archive.list(2, 'BTC-EUR', everything))).toEqual([21])
    expect(ids(await archive.list(1, 'ETH-EUR', everything))).toEqual([1])
    expect(await archive.list(3, 'BTC-EUR', everything)).toEqual([])
  })

  it('answers any window as a filter over all the fills would, another account in between', async () => {
    const archive = await store.open()
    // Account 1's fills are every third trade, at times that rise by 0 to 2 seconds.
    const mine: FillEvent[] = []
    let time = t0
    for (let id = 1; id <= 300; id += 1) {
      time += (id * 7919) % 3_000 < 1_000 ? 0 : 1_000 * ((id % 2) + 1)
      const own = { ...fill(id % 3 === 0 ? 1 : 2, 'BTC-EUR', id), timestamp: time }
      archive.add(own)
      if (own.accountId === 1) mine.push(own)
    }
    await archive.flush()
    const newestFirst = [...mine].reverse()
    let seed = 7
    const next = (below: number) => {
      seed = (seed * 48_271) % 2_147_483_647
      return seed % below
    }
    // A bound is often exactly some fill's time (several fills share one), else anywhere.
    const someTime = () =>
      next(2) === 0 ? mine[next(mine.length)]!.timestamp : time - next(700_000)
    for (let round = 0; round < 60; round += 1) {
      const window: ArchiveWindow = {
        startMs: next(4) === 0 ? 0 : someTime(),
        endMs: next(4) === 0 ? Number.MAX_SAFE_INTEGER : someTime(),
        fromId: next(3) === 0 ? 0 : next(320),
        toId: next(3) === 0 ? Number.MAX_SAFE_INTEGER : next(320),
        limit: 1 + next(120),
      }
      const expected = newestFirst
        .filter(
          (one) =>
            one.timestamp >= window.startMs &&
            one.timestamp <= window.endMs &&
            one.fillId >= window.fromId &&
            one.fillId <= window.toId,
        )
        .slice(0, window.limit)
      expect(ids(await archive.list(1, 'BTC-EUR', window)), JSON.stringify(window)).toEqual(
        ids(expected),
      )
    }
  })

  it("counts and pages an account's ledger across markets as sorting its fills in memory does, the queued ones too", async () => {
    const archive = await store.open()
    const mine: FillEvent[] = []
    const next = numbers(5)
    const markets = ['ADA-EUR', 'BTC-EUR', 'ETH-EUR', 'XRP-EUR']
    const ids = new Map<string, number>()
    // Fills of two accounts in four markets, often several in one millisecond; the last ones
    // are still queued when the ledger is read.
    for (let index = 0; index < 400; index += 1) {
      const market = markets[next(markets.length)]!
      const fillId = (ids.get(market) ?? 0) + 1 + next(3)
      ids.set(market, fillId)
      const one = { ...fill(next(3) === 0 ? 2 : 1, market, fillId), timestamp: t0 + next(120) }
      archive.add(one)
      if (one.accountId === 1) mine.push(one)
      if (index === 350) await archive.flush()
    }
    for (let round = 0; round < 30; round += 1) {
      const startMs = next(3) === 0 ? 0 : t0 + next(120)
      const endMs = next(3) === 0 ? Number.MAX_SAFE_INTEGER : startMs + next(120)
      const side = [undefined, 'buy', 'sell'][next(3)] as 'buy' | 'sell' | undefined
      const offset = next(300)
      const limit = 1 + next(100)
      const expected = await ledgerFillsOf(
        mine.filter(
          (one) =>
            one.timestamp >= startMs &&
            one.timestamp <= endMs &&
            (side === undefined || one.side === side),
        ),
      )(offset, limit)
      const page = await archive.ledger(1, { startMs, endMs, side }, offset, limit)
      const context = JSON.stringify({ round, startMs, endMs, side, offset, limit })
      expect(page.total, context).toBe(expected.total)
      expect(page.fills, context).toEqual(expected.fills)
    }
    expect(await archive.ledger(3, { startMs: 0, endMs: t0 * 2, side: undefined }, 0, 10)).toEqual({
      total: 0,
      fills: [],
    })
  })

  it("refuses an account a fourth ledger read under way, and answers another account's and its own later", async () => {
    const archive = await store.open()
    for (let id = 1; id <= 50; id += 1) archive.add(fill(1 + (id % 2), 'BTC-EUR', id))
    const all = { startMs: 0, endMs: Number.MAX_SAFE_INTEGER, side: undefined }
    const reads = Array.from({ length: ledgerReadsPerAccountMax }, (_, page) =>
      archive.ledger(1, all, page * 10, 10),
    )
    await expect(archive.ledger(1, all, 0, 10)).rejects.toBeInstanceOf(LedgerBusyError)
    expect((await archive.ledger(2, all, 0, 10)).total).toBe(25)
    const pages = await Promise.all(reads)
    expect(pages.map((page) => page.fills.map((one) => one.fillId))).toEqual([
      [50, 48, 46, 44, 42, 40, 38, 36, 34, 32],
      [30, 28, 26, 24, 22, 20, 18, 16, 14, 12],
      [10, 8, 6, 4, 2],
    ])
    expect((await archive.ledger(1, all, 0, 1)).total).toBe(25)
  })

  it('reads the fills of one order before one of them, oldest first, written or waiting, up to the count asked', async () => {
    const archive = await store.open()
    // Order A's fills 1-30 (every third fill of the account is another order's), one of order A
    // of another account, one in another market.
    const orderA = fill(1, 'BTC-EUR', 1).orderId
    for (let id = 1; id <= 40; id += 1)
      archive.add({ ...fill(1, 'BTC-EUR', id), orderId: id % 3 === 0 ? 'another' : orderA })
    archive.add({ ...fill(2, 'BTC-EUR', 41), orderId: orderA })
    archive.add({ ...fill(1, 'ETH-EUR', 2), orderId: orderA })
    await archive.flush()
    for (let id = 42; id <= 45; id += 1) archive.add({ ...fill(1, 'BTC-EUR', id), orderId: orderA })
    const ofA = (beforeFillId: number, count: number) =>
      archive.earlierOfOrder(1, 'BTC-EUR', orderA, beforeFillId, count).then(ids)
    expect(await ofA(11, 5)).toEqual([4, 5, 7, 8, 10])
    expect(await ofA(11, 100)).toEqual([1, 2, 4, 5, 7, 8, 10])
    // The newest, some still waiting to be written.
    expect(await ofA(45, 4)).toEqual([40, 42, 43, 44])
    expect(await ofA(1, 10)).toEqual([])
    expect(await archive.earlierOfOrder(1, 'BTC-EUR', 'none', 100, 10)).toEqual([])
    expect(await archive.earlierOfOrder(1, 'ETH-EUR', orderA, 100, 10)).toEqual([
      { ...fill(1, 'ETH-EUR', 2), orderId: orderA },
    ])
  })

  it('catches up per account and market on the fills newer than its newest, once', async () => {
    const archive = await store.open()
    for (let id = 1; id <= 3; id += 1) archive.add(fill(1, 'BTC-EUR', id))
    await archive.flush()
    const recent: [FillPartition, FillEvent[]][] = [
      [{ accountId: 1, market: 'BTC-EUR' }, [2, 3, 4, 5].map((id) => fill(1, 'BTC-EUR', id))],
      [{ accountId: 2, market: 'BTC-EUR' }, [4].map((id) => fill(2, 'BTC-EUR', id))],
    ]
    expect(await archive.catchUp(recent)).toEqual({ written: 3, gaps: [] })
    expect(ids(await archive.list(1, 'BTC-EUR', everything))).toEqual([5, 4, 3, 2, 1])
    expect(ids(await archive.list(2, 'BTC-EUR', everything))).toEqual([4])
    expect(await archive.catchUp(recent)).toEqual({ written: 0, gaps: [] })
  })

  it('catches up 1,200 partitions, each from its own newest (asked for a thousand at a time)', async () => {
    const archive = await store.open()
    const partitions = Array.from({ length: 1_200 }, (_, index) => ({
      accountId: 10 + index,
      market: index % 2 === 0 ? 'BTC-EUR' : 'ETH-EUR',
    }))
    // Partition i already holds fills up to id i % 3 (none when 0); the core holds ids 1 to 3.
    for (const [index, { accountId, market }] of partitions.entries())
      for (let id = 1; id <= index % 3; id += 1) archive.add(fill(accountId, market, id))
    await archive.flush()
    const recent = partitions.map(
      ({ accountId, market }) =>
        [{ accountId, market }, [1, 2, 3].map((id) => fill(accountId, market, id))] as [
          FillPartition,
          FillEvent[],
        ],
    )
    const written = partitions.reduce((sum, _, index) => sum + 3 - (index % 3), 0)
    expect(await archive.catchUp(recent)).toEqual({ written, gaps: [] })
    for (const index of [0, 1, 2, 999, 1_000, 1_199]) {
      const { accountId, market } = partitions[index]!
      expect(ids(await archive.list(accountId, market, everything))).toEqual([3, 2, 1])
    }
  })

  it('names a partition whose recent fills no longer reach back to its newest, and only that', async () => {
    const archive = await store.open()
    for (const id of [1, 5]) archive.add(fill(1, 'BTC-EUR', id))
    archive.add(fill(2, 'BTC-EUR', 3))
    await archive.flush()
    const recent: [FillPartition, FillEvent[]][] = [
      // An account's ids skip the others' trades: 5 then 9 is no gap, the core still holds 5.
      [{ accountId: 1, market: 'BTC-EUR' }, [1, 5, 9].map((id) => fill(1, 'BTC-EUR', id))],
      // The core's oldest (8) is newer than the archive's newest (3): 4 to 7 may be missing.
      [{ accountId: 2, market: 'BTC-EUR' }, [8, 10].map((id) => fill(2, 'BTC-EUR', id))],
    ]
    expect(await archive.catchUp(recent)).toEqual({
      written: 3,
      gaps: [{ accountId: 2, market: 'BTC-EUR' }],
    })
  })

  it('keeps one row per fill when a fill is written twice', async () => {
    const archive = await store.open()
    archive.add(fill(1, 'BTC-EUR', 1))
    await archive.flush()
    archive.add(fill(1, 'BTC-EUR', 1))
    await archive.flush()
    expect(ids(await archive.list(1, 'BTC-EUR', everything))).toEqual([1])
  })
})
