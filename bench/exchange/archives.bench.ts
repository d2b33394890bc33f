// The archives on the embedded default: public trades (trades.sqlite), each account's fills
// (fills.sqlite) and closed orders (orders.sqlite). What writing costs the event loop per row, and
// how long `/{market}/trades`, `GET /trades` and `GET /orders` reads take at the newest end and far
// in the past of a partition holding many rows (median of 50), and `GET /account/history`'s
// (median of 20). Prints µs per row and ms per read. Then the candle archive (candles.sqlite):
// how long a start's catch-up takes when the core's 200 markets hold all 1,440 candles of every
// archived interval, on the first start with the archive (every closed candle written) and on
// a later one (nothing to write).
// Run: npm exec -- node bench/exchange/archives.bench.ts [rows per archive]
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { MarketStats } from '../../apps/exchange/src/core/marketStats.ts'
import { newOrderId } from '../../apps/exchange/src/core/orderIds.ts'
import { SqliteCandleArchive } from '../../apps/exchange/src/storage/candleArchive.ts'
import { SqliteFillArchive } from '../../apps/exchange/src/storage/fillArchive.ts'
import { SqliteOrderArchive } from '../../apps/exchange/src/storage/orderArchive.ts'
import type { ArchiveWindow } from '../../apps/exchange/src/storage/projectionArchive.ts'
import { SqliteTradeArchive } from '../../apps/exchange/src/storage/tradeArchive.ts'
import { closed } from '../../apps/exchange/test/fixtures/closedOrder.ts'

const rowCount = Number(process.argv[2] ?? 300_000)
/** Trades are written every 100 ms: some 500 at the load bench's 24,000 orders/s. */
const tradeBatch = 500
const startMs = Date.UTC(2026, 10, 1)
const stepMs = 100 // one trade every 100 ms: 300,000 trades are some 8 hours
/** The fills' other accounts: every 10th fill is the measured account's, the rest 99 others'. */
const otherAccounts = 99

type Archive<Event> = {
  add(event: Event): void
  flush(): Promise<void>
  close(): Promise<void>
}

async function measure<Event>(
  name: string,
  archive: Archive<Event>,
  eventOf: (id: number) => Event,
  /** The newest 1,000 at most in a time window. */
  list: (time: { startMs: number; endMs: number }) => Promise<unknown[]>,
  /** The ids whose rows the measured partition holds. */
  measuredShare: number,
  batch: number,
): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve)) // the event loop measured is running
  const writeStarted = performance.now()
  const loopBefore = performance.eventLoopUtilization()
  for (let id = 1; id <= rowCount; id += 1) {
    archive.add(eventOf(id))
    if (id % batch === 0) await archive.flush()
  }
  await archive.flush()
  const writeUs = ((performance.now() - writeStarted) * 1000) / rowCount
  // What the event loop spent, making the rows included (an archive on its own thread writes
  // there): the cost to the server's own thread.
  const loopUs = (performance.eventLoopUtilization(loopBefore).active * 1000) / rowCount
  const all = { startMs: 0, endMs: Number.MAX_SAFE_INTEGER }
  const medianMs = async (window: { startMs: number; endMs: number }) => {
    const times: number[] = []
    let rows = 0
    for (let run = 0; run < 50; run += 1) {
      const started = performance.now()
      rows = (await list(window)).length
      times.push(performance.now() - started)
    }
    times.sort((a, b) => a - b)
    return `${times[25]!.toFixed(2)} ms (${rows} rows)`
  }
  const oneHourAt = (fraction: number) => {
    const from = startMs + Math.floor(rowCount * fraction) * stepMs
    return { ...all, startMs: from, endMs: from + 3_600_000 }
  }
  const endAt = startMs + Math.floor(rowCount * 0.1) * stepMs
  console.log(
    `${name}, SQLite, ${rowCount} rows, ${Math.round(rowCount * measuredShare)} in the partition read:`,
  )
  console.log(
    `  written in batches of ${batch}: ${writeUs.toFixed(2)} µs per row, of the event loop ${loopUs.toFixed(2)}`,
  )
  console.log(`  newest 1,000: ${await medianMs(all)}`)
  console.log(`  an hour 10% of the way in, 1,000 at most: ${await medianMs(oneHourAt(0.1))}`)
  console.log(`  an hour half way: ${await medianMs(oneHourAt(0.5))}`)
  console.log(`  \`end\` alone, 10% of the way in: ${await medianMs({ ...all, endMs: endAt })}`)
  await archive.close()
}

const everyId: Omit<ArchiveWindow, 'startMs' | 'endMs'> = {
  fromId: 0,
  toId: Number.MAX_SAFE_INTEGER,
  limit: 1000,
}
/** One hour half way through the rows' times. */
function hourHalfWay() {
  const from = startMs + Math.floor(rowCount / 2) * stepMs
  return { startMs: from, endMs: from + 3_600_000 }
}
const dir = mkdtempSync(join(tmpdir(), 'polder-archives-bench-'))
const trades = new SqliteTradeArchive(join(dir, 'trades.sqlite'))
await measure(
  'trade archive',
  trades,
  (id) => ({
    type: 'trade' as const,
    market: 'BTC-EUR',
    tradeId: id,
    timestamp: startMs + id * stepMs,
    price: 60_000 + (id % 100),
    amount: 1_000 + id,
    side: id % 2 === 0 ? ('buy' as const) : ('sell' as const),
  }),
  (time) => trades.list('BTC-EUR', { ...everyId, ...time }),
  1,
  tradeBatch,
)
// Fills are written every second: from a few to thousands at once, as the load goes.
for (const batch of [500, 5_000]) {
  const fills = new SqliteFillArchive(join(dir, `fills-${batch}.sqlite`))
  await measure(
    'fill archive',
    fills,
    (id) => ({
      type: 'fill' as const,
      market: 'BTC-EUR',
      orderId: `00000000-0000-4000-8000-${String(id).padStart(12, '0')}`,
      clientOrderId: null,
      accountId: id % 10 === 0 ? 1 : 2 + (id % otherAccounts),
      fillId: id,
      timestamp: startMs + id * stepMs,
      side: id % 2 === 0 ? ('buy' as const) : ('sell' as const),
      price: 60_000 + (id % 100),
      amount: 1_000 + id,
      quote: (60_000 + (id % 100)) * (1_000 + id),
      taker: id % 2 === 0,
      fee: 25,
      feeCurrency: 'EUR',
    }),
    (time) => fills.list(1, 'BTC-EUR', { ...everyId, ...time }),
    0.1,
    batch,
  )
}
// The ledger (`GET /account/history`) of the measured account: its fills in every market, counted
// and paged by time, on the file's thread. What a read takes, and what of it is the event loop's.
{
  const fills = new SqliteFillArchive(join(dir, 'fills-500.sqlite'))
  const mine = rowCount / 10
  console.log(`fill archive, the ledger of an account with ${mine} fills (100 a page):`)
  for (const [label, window, offset] of [
    ['the newest page', { startMs: 0, endMs: Number.MAX_SAFE_INTEGER }, 0],
    ['a page half way down', { startMs: 0, endMs: Number.MAX_SAFE_INTEGER }, mine / 2],
    ['the newest page of one hour half way', hourHalfWay(), 0],
  ] as const) {
    const times: number[] = []
    const loopBefore = performance.eventLoopUtilization()
    let total = 0
    for (let run = 0; run < 20; run += 1) {
      const started = performance.now()
      total = (await fills.ledger(1, { ...window, side: undefined }, offset, 100)).total
      times.push(performance.now() - started)
    }
    const loopMs = performance.eventLoopUtilization(loopBefore).active / 20
    times.sort((a, b) => a - b)
    console.log(
      `  ${label}: ${times[10]!.toFixed(2)} ms a read (of ${total} fills), of the event loop ${loopMs.toFixed(2)} ms`,
    )
  }
  await fills.close()
}

// Closed orders, also every second; each with its one fill, a third with a client order id.
for (const batch of [500, 5_000]) {
  const orders = new SqliteOrderArchive(join(dir, `orders-${batch}.sqlite`))
  await measure(
    'order archive',
    orders,
    (id) => {
      const created = startMs + id * stepMs
      return closed(id % 10 === 0 ? 1 : 2 + (id % otherAccounts), 'BTC-EUR', id, created, {
        orderId: newOrderId(created),
        clientOrderId: id % 3 === 0 ? randomUUID() : null,
        filled: true,
      })
    },
    (time) => orders.list(1, 'BTC-EUR', { ...time, limit: 1000 }),
    0.1,
    batch,
  )
}

// Candles: 200 markets with a trade every 12 hours for 720 days, so that each of the ten archived
// intervals holds 1,440 candles in the core (2,878,000 closed ones in all).
{
  const stats = new MarketStats()
  const halfDayMs = 43_200_000
  for (let market = 0; market < 200; market += 1)
    for (let k = 0; k <= 1440; k += 1)
      stats.record(
        {
          type: 'trade',
          market: `M${market}-EUR`,
          tradeId: k + 1,
          timestamp: startMs - 730 * 86_400_000 + k * halfDayMs,
          price: 100 + k,
          amount: 1,
          side: 'buy',
        },
        100 + k,
      )
  const path = join(dir, 'candles.sqlite')
  console.log('candle archive, a start with 200 markets of full series (10 intervals each):')
  for (const label of ['first start (every closed candle written)', 'a later start']) {
    const heapBefore = process.memoryUsage().heapUsed
    const started = performance.now()
    const archive = new SqliteCandleArchive(path)
    const { written } = await archive.follow(stats)
    const tookMs = performance.now() - started
    const heapMiB = (process.memoryUsage().heapUsed - heapBefore) / 2 ** 20
    await archive.close()
    console.log(
      `  ${label}: ${written} written in ${(tookMs / 1000).toFixed(2)} s (heap ${heapMiB >= 0 ? '+' : ''}${heapMiB.toFixed(0)} MiB at its end; the file ${(statSync(path).size / 2 ** 20).toFixed(0)} MiB)`,
    )
  }
}

rmSync(dir, { recursive: true, force: true })
