// Durable journal throughput with group commit on the embedded default (a SQLite file beside the
// PGlite database) or on PostgreSQL when DATABASE_URL is set. Prints records/s and commit latency percentiles.
// Run: npm exec -- node bench/exchange/journal.bench.ts [records]
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openJournal } from '../../apps/exchange/src/storage/journal.ts'
import { openStorage, type StorageLocation } from '../../apps/exchange/src/storage/openStorage.ts'

const records = Number(process.argv[2] ?? 100_000)
const inFlightMax = 2_000
const dir = mkdtempSync(join(tmpdir(), 'polder-journal-bench-'))
const databaseUrl = process.env.DATABASE_URL
const location: StorageLocation = databaseUrl
  ? { kind: 'postgres', url: databaseUrl, schema: `bench_${process.pid}` }
  : { kind: 'embedded', dataDir: dir }
const driver = await openStorage(location)
const journal = await openJournal(location, driver)
const payload = {
  market: 'BTC-EUR',
  side: 'buy',
  orderType: 'limit',
  amount: '0.01',
  price: '65000',
}
const latencyUs = new Float64Array(records)
const startedNs = process.hrtime.bigint()
let inFlight: Promise<void>[] = []
for (let index = 0; index < records; index += 1) {
  const appendedNs = process.hrtime.bigint()
  const { durable } = journal.append({ kind: 'createOrder', payload })
  inFlight.push(
    durable.then(() => {
      latencyUs[index] = Number(process.hrtime.bigint() - appendedNs) / 1000
    }),
  )
  if (inFlight.length >= inFlightMax) {
    await Promise.all(inFlight)
    inFlight = []
  }
}
await Promise.all(inFlight)
const seconds = Number(process.hrtime.bigint() - startedNs) / 1e9
const sorted = Array.from(latencyUs).sort((a, b) => a - b)
const at = (q: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(0)
console.log(
  `journal (${journal.backend.kind === 'sqlite' ? 'SQLite file beside the embedded database' : driver.kind}): ${records} records in ${seconds.toFixed(2)} s`,
)
console.log(
  `  ${(records / seconds).toFixed(0)} durable records/s, ${journal.batchesWritten} transactions`,
)
console.log(
  `  commit latency p50 ${at(0.5)} µs, p99 ${at(0.99)} µs (with up to ${inFlightMax} in flight)`,
)
if (databaseUrl) await driver.query(`drop schema bench_${process.pid} cascade`)
await driver.close()
rmSync(dir, { recursive: true, force: true })
