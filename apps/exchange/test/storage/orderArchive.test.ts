// The order archive on each of its stores: the SQLite file of the embedded default, and the
// `account_orders` table of a SQL database (PGlite always, PostgreSQL when TEST_DATABASE_URL is
// set). The queue, retries and overflow it shares with the other archives are tested with the
// trade archive.
import { describe, expect, it } from 'vitest'
import {
  closedOrderKeptMs,
  compareOrderKeys,
  isInOrderWindow,
  type OrderRecord,
  type OrderWindow,
} from '../../src/core/orderHistory.ts'
import {
  type OrderArchive,
  SqliteOrderArchive,
  SqlOrderArchive,
} from '../../src/storage/orderArchive.ts'
import { closed, idOf, t0 } from '../fixtures/closedOrder.ts'
import { archiveStores } from './storageTargets.ts'

const stores = archiveStores<OrderArchive>({
  file: 'orders.sqlite',
  table: 'account_orders',
  sqlite: (path) => new SqliteOrderArchive(path),
  sql: (driver) => new SqlOrderArchive(driver),
})

const everything: OrderWindow = { startMs: 0, endMs: Number.MAX_SAFE_INTEGER, limit: 1000 }
const serials = (records: readonly OrderRecord[]) =>
  records.map((record) => Number(record.state.orderId.slice(-12)))

describe.each(stores)('order archive: $name', (store) => {
  it('lists one account in one market, newest first, in the window, every field as it went in', async () => {
    const archive = await store.open()
    // Closed in another order than placed: an order rests, later ones come and go before it.
    for (let serial = 20; serial >= 1; serial -= 1) archive.add(closed(1, 'BTC-EUR', serial))
    archive.add(closed(2, 'BTC-EUR', 21))
    archive.add(closed(1, 'ETH-EUR', 1))
    const waiting = await archive.list(1, 'BTC-EUR', everything)
    await archive.flush()
    const written = await archive.list(1, 'BTC-EUR', everything)
    for (const listed of [waiting, written]) {
      expect(serials(listed)).toEqual(Array.from({ length: 20 }, (_, index) => 20 - index))
      expect(listed[0]).toEqual(closed(1, 'BTC-EUR', 20)) // filled, with its fill
      expect(listed[1]).toEqual(closed(1, 'BTC-EUR', 19)) // canceled, with its reason
      expect(listed[2]).toEqual(closed(1, 'BTC-EUR', 18)) // a client order id
    }
    const window = (part: Partial<OrderWindow>) =>
      archive.list(1, 'BTC-EUR', { ...everything, ...part })
    expect(serials(await window({ startMs: t0 + 5_000, endMs: t0 + 8_000 }))).toEqual([8, 7, 6, 5])
    const key = (serial: number) => closed(1, 'BTC-EUR', serial).state
    expect(serials(await window({ to: key(10), limit: 3 }))).toEqual([10, 9, 8])
    expect(serials(await window({ from: key(17) }))).toEqual([20, 19, 18, 17])
    expect(serials(await window({ from: key(3), to: key(5), startMs: t0 + 4_000 }))).toEqual([5, 4])
    expect(serials(await archive.list(2, 'BTC-EUR', everything))).toEqual([21])
    expect(serials(await archive.list(1, 'ETH-EUR', everything))).toEqual([1])
    expect(await archive.list(3, 'BTC-EUR', everything)).toEqual([])
  })

  it('answers any window as a filter over all the orders would, orders sharing milliseconds', async () => {
    const archive = await store.open()
    const mine: OrderRecord[] = []
    let time = t0
    let random = 7
    const next = () => {
      random = (random * 48_271) % 2_147_483_647
      return random
    }
    for (let serial = 1; serial <= 300; serial += 1) {
      time += next() % 3 // several orders in one millisecond now and then
      const record = closed(serial % 4 === 0 ? 2 : 1, 'BTC-EUR', serial, time)
      if (record.state.accountId === 1) mine.push(record)
      archive.add(record)
    }
    await archive.flush()
    // The last few are still waiting: the listing joins them with the written ones.
    for (let serial = 301; serial <= 310; serial += 1) {
      time += 1
      const record = closed(1, 'BTC-EUR', serial, time)
      mine.push(record)
      archive.add(record)
    }
    const newestFirst = [...mine].sort((a, b) => compareOrderKeys(b.state, a.state))
    const pick = () => mine[next() % mine.length]!.state
    for (let round = 0; round < 60; round += 1) {
      const window: OrderWindow = { ...everything, limit: 1 + (next() % 40) }
      if (round % 2 === 0) window.startMs = pick().created
      if (round % 3 === 0) window.endMs = pick().created
      if (round % 4 === 1) window.from = pick()
      if (round % 5 === 1) window.to = pick()
      const expected = newestFirst
        .filter((record) => isInOrderWindow(record.state, window))
        .slice(0, window.limit)
      expect(serials(await archive.list(1, 'BTC-EUR', window)), JSON.stringify(window)).toEqual(
        serials(expected),
      )
    }
  })

  it('finds an order by id or by client order id (the newest), written or waiting', async () => {
    const archive = await store.open()
    archive.add(closed(1, 'BTC-EUR', 3)) // client-3
    const again = closed(1, 'BTC-EUR', 4)
    // A later order reusing the client order id once the first had closed.
    archive.add({ ...again, state: { ...again.state, clientOrderId: 'client-3' } })
    expect((await archive.find(1, 'BTC-EUR', idOf(3)))?.state.orderId).toBe(idOf(3))
    expect((await archive.findByClientId(1, 'BTC-EUR', 'client-3'))?.state.orderId).toBe(idOf(4))
    await archive.flush()
    archive.add(closed(1, 'BTC-EUR', 6)) // client-6, waiting
    expect(await archive.find(1, 'BTC-EUR', idOf(3))).toEqual(closed(1, 'BTC-EUR', 3))
    expect((await archive.findByClientId(1, 'BTC-EUR', 'client-3'))?.state.orderId).toBe(idOf(4))
    expect((await archive.findByClientId(1, 'BTC-EUR', 'client-6'))?.state.orderId).toBe(idOf(6))
    // Only the account's own, in that market.
    expect(await archive.find(2, 'BTC-EUR', idOf(3))).toBeUndefined()
    expect(await archive.find(1, 'ETH-EUR', idOf(3))).toBeUndefined()
    expect(await archive.findByClientId(2, 'BTC-EUR', 'client-3')).toBeUndefined()
    expect(await archive.find(1, 'BTC-EUR', idOf(99))).toBeUndefined()
  })

  it('keeps the count of the fills an order had before those it holds, written or waiting', async () => {
    const archive = await store.open()
    const many = { ...closed(1, 'BTC-EUR', 2), earlierFills: 4_321 }
    archive.add(many)
    archive.add(closed(1, 'BTC-EUR', 4))
    const read = async () => ({
      found: await archive.find(1, 'BTC-EUR', idOf(2)),
      listed: await archive.list(1, 'BTC-EUR', everything),
    })
    for (const { found, listed } of [await read(), await archive.flush().then(read)]) {
      expect(found).toEqual(many)
      expect(listed).toEqual([closed(1, 'BTC-EUR', 4), many])
    }
  })

  it('catches up from 10 s before its newest order, keeping what it has as it is', async () => {
    const archive = await store.open()
    const held = Array.from({ length: 100 }, (_, index) => closed(1, 'BTC-EUR', index + 1))
    const asked: number[] = []
    const closedSince = (sinceMs: number) => {
      asked.push(sinceMs)
      return held.filter((record) => record.state.updated >= sinceMs)
    }
    // Empty: everything the core holds.
    expect(await archive.catchUp(closedSince, undefined)).toBe(100)
    expect(asked).toEqual([0])
    // Then from 10 s before the newest archived close, written again and ignored.
    const newestClose = held.at(-1)!.state.updated
    const changed = { ...held[99]!, state: { ...held[99]!.state, operatorId: 42 } }
    held[99] = changed
    held.push(closed(1, 'BTC-EUR', 101))
    const coreNewest = held.at(-1)!.state.updated
    expect(await archive.catchUp(closedSince, coreNewest)).toBe(12) // 10 s of them, and the new
    expect(asked[1]).toBe(newestClose - closedOrderKeptMs)
    const listed = await archive.list(1, 'BTC-EUR', everything)
    expect(serials(listed)).toEqual(Array.from({ length: 101 }, (_, index) => 101 - index))
    expect(listed[1]!.state.operatorId).toBe(0) // the first write stands
    // An archived close in the future (a clock once set ahead): from the core's newest instead.
    archive.add(closed(1, 'BTC-EUR', 500))
    await archive.flush()
    await archive.catchUp(closedSince, coreNewest)
    expect(asked[2]).toBe(coreNewest - closedOrderKeptMs)
  })
})
