// The public trade archive on the embedded default (trades.sqlite): what writing costs the event
// loop per trade, and how long `/{market}/trades` reads take at the newest end and far in the
// past of a market holding many trades. Prints µs per trade and ms per read (median of 50).
// Run: npm exec -- node bench/exchange/tradeArchive.bench.ts [trades in the market]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import {
  SqliteTradeArchive,
  type TradeWindow,
} from '../../apps/exchange/src/storage/tradeArchive.ts'

const tradeCount = Number(process.argv[2] ?? 300_000)
const batch = 500 // about 100 ms of trades at the load bench's 24,000 orders/s
const dir = mkdtempSync(join(tmpdir(), 'polder-trade-archive-bench-'))
const archive = new SqliteTradeArchive(join(dir, 'trades.sqlite'))
const startMs = Date.UTC(2026, 10, 1)
const stepMs = 100 // one trade every 100 ms: 300,000 trades are some 8 hours

const writeStarted = performance.now()
for (let id = 1; id <= tradeCount; id += 1) {
  archive.add({
    type: 'trade',
    market: 'BTC-EUR',
    tradeId: id,
    timestamp: startMs + id * stepMs,
    price: 60_000 + (id % 100),
    amount: 1_000 + id,
    side: id % 2 === 0 ? 'buy' : 'sell',
  })
  if (id % batch === 0) await archive.flush()
}
await archive.flush()
const writeUs = ((performance.now() - writeStarted) * 1000) / tradeCount

const all: TradeWindow = {
  startMs: 0,
  endMs: Number.MAX_SAFE_INTEGER,
  fromId: 0,
  toId: Number.MAX_SAFE_INTEGER,
  limit: 1000,
}
async function medianMs(window: TradeWindow): Promise<{ ms: number; rows: number }> {
  const times: number[] = []
  let rows = 0
  for (let run = 0; run < 50; run += 1) {
    const started = performance.now()
    rows = (await archive.list('BTC-EUR', window)).length
    times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  return { ms: times[25]!, rows }
}
const newest = await medianMs(all)
const oneHourAt = (fraction: number) => {
  const from = startMs + Math.floor(tradeCount * fraction) * stepMs
  return { ...all, startMs: from, endMs: from + 3_600_000 }
}
const deep = await medianMs(oneHourAt(0.1))
const middle = await medianMs(oneHourAt(0.5))
const endOnly = await medianMs({ ...all, endMs: startMs + Math.floor(tradeCount * 0.1) * stepMs })
await archive.close()
rmSync(dir, { recursive: true, force: true })

const read = (what: string, result: { ms: number; rows: number }) =>
  `  ${what}: ${result.ms.toFixed(2)} ms (${result.rows} trades)`
console.log(`trade archive, SQLite, ${tradeCount} trades in one market:`)
console.log(`  written in batches of ${batch}: ${writeUs.toFixed(2)} µs per trade`)
console.log(read('newest 1,000', newest))
console.log(read('an hour 10% of the way in, 1,000 at most', deep))
console.log(read('an hour half way', middle))
console.log(read('`end` alone, 10% of the way in', endOnly))
