// The PostgreSQL deployment (DATABASE_URL) where it differs from the embedded default: one
// server per database (the writer lock), journal batches that never share a seq, journal
// commits that ride out a dropped connection and are bounded in time, /health while commits
// wait, synchronous commits. Each test makes a database of its own on TEST_DATABASE_URL's
// server, ends its backends and drops it afterwards; skipped with a notice when it is unset.
import { execFileSync } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import postgres from 'postgres'
import { afterEach, describe, expect, it } from 'vitest'
import { defaultConfig } from '../../src/config.ts'
import type { CoreCommand } from '../../src/core/exchangeCore.ts'
import { ExchangeHaltedError } from '../../src/core/exchangeService.ts'
import { createExchangeServer, type ExchangeServer } from '../../src/server.ts'
import { JournalFailedError, openJournal } from '../../src/storage/journal.ts'
import { JournalOverlapError } from '../../src/storage/journalBackends.ts'
import { migrate, migrations } from '../../src/storage/migrations.ts'
import { openDriver, openStorage } from '../../src/storage/openStorage.ts'
import {
  DatabaseInUseError,
  WriterLockLostError,
  writerLockKeys,
} from '../../src/storage/postgresWriter.ts'
import type { SqlDriver } from '../../src/storage/sqlDriver.ts'
import { signedRequest } from '../fixtures/signedRequest.ts'
import { testListing } from '../fixtures/testListing.ts'
import { createTrader, type Trader } from '../fixtures/trader.ts'

const databaseUrl = process.env.TEST_DATABASE_URL
if (!databaseUrl)
  console.log('notice: TEST_DATABASE_URL is unset; the PostgreSQL deployment tests are skipped.')

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {})
})

const adminSql = () => postgres(databaseUrl!, { max: 1, onnotice: () => {} })

/** Ends every backend of `name` but the caller's (only ever this test's own database). */
async function endBackendsOf(name: string, where = 'true'): Promise<number> {
  const sql = adminSql()
  try {
    const rows = await sql.unsafe(
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = '${name}' and pid <> pg_backend_pid() and ${where}`,
    )
    return rows.length
  } finally {
    await sql.end()
  }
}

/**
 * `endBackendsOf`, done by a child process while this process's event loop waits for it (as a
 * busy server's loop is occupied when PostgreSQL drops its connections): the loop has not yet
 * read the connections' end when it goes on. Returns once the backends are gone.
 */
function endBackendsWhileBusy(name: string): number {
  const postgresPath = createRequire(import.meta.url).resolve('postgres')
  const script = `
    const postgres = require(${JSON.stringify(postgresPath)})
    const sql = postgres(process.env.ZZ_URL, { max: 1, onnotice: () => {} })
    ;(async () => {
      const ended = await sql.unsafe(
        "select pg_terminate_backend(pid) from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()")
      for (let tries = 0; tries < 200; tries += 1) {
        const [left] = await sql.unsafe(
          "select count(*)::int as n from pg_stat_activity where datname = '${name}' and pid <> pg_backend_pid()")
        if (left.n === 0) break
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
      await sql.end()
      process.stdout.write(String(ended.length))
    })()`
  return Number(
    execFileSync(process.execPath, ['-e', script], {
      env: { ...process.env, ZZ_URL: databaseUrl },
    }),
  )
}

/** A new database of this test's own, dropped after the test (its backends ended first). */
async function freshDatabase(): Promise<{ name: string; url: string }> {
  const name = `polder_review_${randomUUID().replaceAll('-', '').slice(0, 20)}`
  const sql = adminSql()
  await sql.unsafe(`create database ${name}`)
  await sql.end()
  cleanups.push(async () => {
    await endBackendsOf(name)
    const sql = adminSql()
    await sql.unsafe(`drop database if exists ${name}`)
    await sql.end()
  })
  const url = new URL(databaseUrl!)
  url.pathname = `/${name}`
  return { name, url: url.toString() }
}

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'polder-pg-deployment-'))
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** One secret key for every server of the file: servers on one database read each other's keys. */
const secretKeyHex = randomBytes(32).toString('hex')

/**
 * The real server on the PostgreSQL database at `url` (as `DATABASE_URL` gives it), in this
 * process, with a data directory of its own for its token files; a fatal error is recorded in
 * `fatal` instead of ending the process. Closed after the test.
 */
async function serverOn(url: string, fatal: Error[] = []): Promise<ExchangeServer> {
  const server = await createExchangeServer(
    {
      ...defaultConfig,
      port: 0,
      logLevel: 'silent',
      dataDir: tempDir(),
      databaseUrl: url,
      secretKeyHex,
    },
    testListing,
    undefined,
    { onFatal: (error) => fatal.push(error) },
  )
  // A server that halted stops closing at its journal: its database connections are ended then.
  cleanups.push(async () => {
    await server.close().catch(() => {})
    await server.storage.close()
  })
  return server
}

/** A connection of the test's own to `url`, ended after the test. */
function sqlOn(url: string): postgres.Sql {
  const sql = postgres(url, { max: 1, onnotice: () => {} })
  cleanups.push(() => sql.end({ timeout: 1 }))
  return sql
}

const eurUnits = (eur: number) => (BigInt(eur) * 10n ** 18n).toString()

function withdrawal(trader: Trader, eur: number, reference: string): CoreCommand {
  return {
    type: 'withdraw',
    timestamp: Date.now(),
    accountId: trader.accountId,
    asset: 'EUR',
    amount: eurUnits(eur),
    reference,
  }
}

function deposit(trader: Trader, eur: number, reference: string): CoreCommand {
  return {
    type: 'deposit',
    timestamp: Date.now(),
    accountId: trader.accountId,
    asset: 'EUR',
    amount: eurUnits(eur),
    reference,
  }
}

const buyOrder = {
  market: 'BTC-EUR',
  side: 'buy',
  orderType: 'limit',
  price: '50000',
  amount: '0.001',
}

const settledWithin = <T>(promise: Promise<T>, ms: number): Promise<'settled' | 'pending'> =>
  Promise.race([
    promise.then(
      () => 'settled' as const,
      () => 'settled' as const,
    ),
    new Promise<'pending'>((resolve) => setTimeout(() => resolve('pending'), ms)),
  ])

async function until(condition: () => boolean, ms: number): Promise<void> {
  const endMs = Date.now() + ms
  while (!condition() && Date.now() < endMs) await new Promise((r) => setTimeout(r, 20))
}

/** Holds `lock table journal_batches` (as VACUUM FULL, CLUSTER or an ALTER TABLE do) until the returned release. */
async function lockJournalTable(url: string): Promise<() => void> {
  let unlock = () => {}
  const sql = sqlOn(url)
  await new Promise<void>((resolve) => {
    const held = sql.begin(async (tx) => {
      await tx.unsafe('lock table journal_batches in share row exclusive mode')
      resolve()
      await new Promise<void>((release) => (unlock = release))
    })
    cleanups.push(async () => {
      unlock()
      await held.catch(() => {})
    })
  })
  return () => unlock()
}

describe.skipIf(!databaseUrl)('PostgreSQL deployment', () => {
  it('a second server started on the database another server runs on is refused in words, and the first goes on', async () => {
    const { url } = await freshDatabase()
    const first = await serverOn(url)
    const ada = await createTrader(first, 'ada@example.com', { EUR: '100' })

    // An operator starts a second server on the same DATABASE_URL by mistake (a second host, a
    // blue/green deploy, a supervisor that restarted a server it thought had died). Were it to
    // run, each would hold ada's 100 EUR in memory and acknowledge withdrawals of all of it.
    const second = await serverOn(url).catch((error: Error) => error)
    expect(second).toBeInstanceOf(DatabaseInUseError)
    expect((second as Error).message).toMatch(
      /^another Polder server is running on this database \(its writer lock is held by PostgreSQL session \d+ .*select pg_terminate_backend\(\d+\)$/,
    )
    const outcome = await first.service.submit(withdrawal(ada, 100, 'first-1'))
    expect(outcome.ok).toBe(true)
  }, 60_000)

  it('the journal refuses a batch holding a seq a stored batch holds, even from writers without the lock', async () => {
    const { url } = await freshDatabase()
    // Two writers that skip the lock (openDriver takes none), each numbering from the same
    // newest seq, as two servers started on one database would.
    const drivers: SqlDriver[] = []
    for (const _ of [1, 2]) {
      const driver = await openDriver({ kind: 'postgres', url })
      cleanups.push(() => driver.close())
      drivers.push(driver)
    }
    await migrate(drivers[0]!)
    const location = { kind: 'postgres' as const, url }
    const one = await openJournal(location, drivers[0]!)
    const other = await openJournal(location, drivers[1]!)
    // Batches of seqs 1-2 and 1-1: keyed by their last seq, their keys differ.
    const first = [one.append({ kind: 'k', payload: 'a' }), one.append({ kind: 'k', payload: 'b' })]
    await Promise.all(first.map((record) => record.durable))
    const overlapping = other.append({ kind: 'k', payload: 'c' })
    expect(overlapping.seq).toBe(1)
    const refused = await overlapping.durable.then(
      () => 'committed',
      (error: Error) => error,
    )
    expect(refused).toBeInstanceOf(JournalFailedError)
    expect((refused as Error).cause).toBeInstanceOf(JournalOverlapError)
    expect(((refused as Error).cause as Error).message).toBe(
      'journal batch of seqs 1-1 overlaps a stored batch: another server writes this database',
    )
    expect((await one.read(0, 10)).map((entry) => [entry.seq, entry.payload])).toEqual([
      [1, 'a'],
      [2, 'b'],
    ])
  }, 60_000)

  it('two servers starting at once on a new database: one migrates it and starts, the other is refused in words (no migration collides)', async () => {
    for (let round = 0; round < 3; round += 1) {
      const { url } = await freshDatabase()
      const opened = await Promise.allSettled([
        openStorage({ kind: 'postgres', url }),
        openStorage({ kind: 'postgres', url }),
      ])
      const outcomes: string[] = []
      for (const result of opened)
        if (result.status === 'fulfilled') {
          const [row] = await result.value.query<{ n: number }>(
            'select count(*)::int as n from schema_migrations',
          )
          outcomes.push(`started, ${row!.n} migrations`)
          await result.value.close()
        } else
          outcomes.push(
            result.reason instanceof DatabaseInUseError
              ? 'refused: another server is running'
              : `failed: ${result.reason}`,
          )
      expect(outcomes.sort()).toEqual([
        'refused: another server is running',
        `started, ${migrations.length} migrations`,
      ])
    }
  }, 60_000)

  it('a server whose writer session is ended, and whose lock another server takes meanwhile, halts', async () => {
    const { name, url } = await freshDatabase()
    const fatal: Error[] = []
    const server = await serverOn(url, fatal)
    const ada = await createTrader(server, 'ada@example.com', { EUR: '100' })

    // Another server waits for the lock (here: a session of the test's), and gets it the moment
    // the first server's session ends (an operator's pg_terminate_backend, a pooler's restart).
    const [classKey, schemaKey] = writerLockKeys(undefined)
    const other = sqlOn(url)
    const taken = other.unsafe(`select pg_advisory_lock(${classKey}, ${schemaKey})`).execute()
    const watcher = sqlOn(url)
    for (let waiting = 0, tries = 0; waiting === 0 && tries < 500; tries += 1) {
      const [row] = await watcher.unsafe<{ n: number }[]>(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and not granted",
      )
      waiting = row!.n
    }
    expect(await endBackendsOf(name, `application_name = 'polder exchange writer'`)).toBe(1)
    await taken
    await until(() => fatal.length > 0, 5_000)
    expect(fatal.map((error) => error.constructor)).toEqual([WriterLockLostError])
    // Nothing more is acknowledged: the other server now writes the journal.
    const next = await server.service.submit(withdrawal(ada, 100, 'after')).catch((e) => e)
    expect(next).toBeInstanceOf(ExchangeHaltedError)
    expect((next as Error).cause).toBeInstanceOf(JournalFailedError)
  }, 60_000)

  it('a writer session ended while the exchange is idle is taken again at once: a server started after it is refused', async () => {
    const { name, url } = await freshDatabase()
    const fatal: Error[] = []
    await serverOn(url, fatal)
    expect(await endBackendsOf(name, `application_name = 'polder exchange writer'`)).toBe(1)
    const watcher = sqlOn(url)
    let retaken = false
    for (let tries = 0; !retaken && tries < 250; tries += 1) {
      const [row] = await watcher.unsafe<{ n: number }[]>(
        "select count(*)::int as n from pg_locks where locktype = 'advisory' and granted",
      )
      retaken = row!.n === 1
      if (!retaken) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(retaken).toBe(true)
    await expect(serverOn(url)).rejects.toBeInstanceOf(DatabaseInUseError)
    expect(fatal).toEqual([])
  }, 60_000)

  it('connections the database ended while idle do not halt the exchange: the next command is acknowledged, and the lock is taken again', async () => {
    const { name, url } = await freshDatabase()
    const fatal: Error[] = []
    const server = await serverOn(url, fatal)
    const base = await server.listen()
    const ada = await createTrader(server, 'ada@example.com', { EUR: '1000' })
    const placed = await signedRequest(base, ada, 'POST', '/v2/order', { body: buyOrder })
    expect(placed.json.status).toBe('new')

    // What a restart or fail-over of PostgreSQL or of a pooler in front of it, idle_session_timeout
    // or an operator's pg_terminate_backend does to the server's idle connections (the writer
    // session's among them). The next command comes in the moment after.
    expect(endBackendsWhileBusy(name)).toBeGreaterThan(0)
    const next = await server.service.submit(deposit(ada, 1, 'after-the-drop')).then(
      (outcome) => (outcome.ok ? 'acknowledged' : `refused ${outcome.errorCode}`),
      (error: Error) => `${error.name}: ${error.message}`,
    )
    expect({
      next,
      fatal: fatal.map((error) => `${error.message}: ${(error.cause as Error)?.message}`),
    }).toEqual({ next: 'acknowledged', fatal: [] })
    const after = await signedRequest(base, ada, 'POST', '/v2/order', { body: buyOrder })
    expect(after.json.status).toBe('new')
    // The lock was taken again with the new session: a second server is still refused.
    await expect(serverOn(url)).rejects.toBeInstanceOf(DatabaseInUseError)
  }, 60_000)

  it('a journal commit whose answer a failed connection lost is found committed, not written twice', async () => {
    const { url } = await freshDatabase()
    const storage = await openStorage({ kind: 'postgres', url })
    cleanups.push(() => storage.close())
    // The writer session commits the batch, then its connection fails before the answer comes
    // back (as when PostgreSQL or the network drops it right after the commit).
    const writer = storage.writer!
    let lostAnswers = 1
    const failingWriter = Object.assign(Object.create(writer), {
      async query(text: string, params?: never[]) {
        const rows = await writer.query(text, params)
        if (text.startsWith('insert into journal_batches') && lostAnswers-- > 0)
          throw Object.assign(new Error('write CONNECTION_CLOSED'), { code: 'CONNECTION_CLOSED' })
        return rows
      },
    })
    const driver: SqlDriver = { ...storage, writer: failingWriter }
    const journal = await openJournal({ kind: 'postgres', url }, driver)
    await journal.append({ kind: 'k', payload: 'once' }).durable
    await journal.append({ kind: 'k', payload: 'next' }).durable
    expect(lostAnswers).toBe(-1)
    expect((await journal.read(0, 10)).map((entry) => [entry.seq, entry.payload])).toEqual([
      [1, 'once'],
      [2, 'next'],
    ])
  }, 60_000)

  it('/health answers 503 degraded while a command has waited over 2 s for its journal commit, ok again once it commits', async () => {
    const { url } = await freshDatabase()
    const server = await serverOn(url)
    const base = await server.listen()
    const ada = await createTrader(server, 'ada@example.com', { EUR: '1000' })

    // The journal's table is locked (VACUUM FULL, CLUSTER, an ALTER TABLE; a network partition
    // stalls the same way): the next commit waits.
    const unlock = await lockJournalTable(url)
    const order = signedRequest(base, ada, 'POST', '/v2/order', { body: buyOrder })
    expect(await settledWithin(order, 1_000)).toBe('pending')
    const early = await fetch(`${base}/health`)
    expect(early.status).toBe(200)
    expect(await settledWithin(order, 1_700)).toBe('pending')
    const stalled = await fetch(`${base}/health`)
    const stalledBody = (await stalled.json()) as { status: string; journalWaitMs: number }
    unlock()
    expect((await order).json.status).toBe('new')
    expect({ code: stalled.status, status: stalledBody.status }).toEqual({
      code: 503,
      status: 'degraded',
    })
    expect(stalledBody.journalWaitMs).toBeGreaterThan(2_000)
    const recovered = await fetch(`${base}/health`)
    expect(recovered.status).toBe(200)
    expect(((await recovered.json()) as { status: string }).status).toBe('ok')
  }, 60_000)

  it('a journal commit that cannot finish within 5 s halts the exchange, saying so', async () => {
    const { url } = await freshDatabase()
    const fatal: Error[] = []
    const server = await serverOn(url, fatal)
    const ada = await createTrader(server, 'ada@example.com', { EUR: '100' })
    await lockJournalTable(url) // released after the test
    const outcome = await Promise.race([
      server.service.submit(deposit(ada, 1, 'stuck')).catch((error: Error) => error),
      new Promise((resolve) => setTimeout(() => resolve('still waiting after 8 s'), 8_000)),
    ])
    expect(outcome).toBeInstanceOf(ExchangeHaltedError)
    expect(fatal.map((error) => (error.cause as Error).message)).toEqual([
      expect.stringMatching(
        /^journal batch of seqs \d+-\d+ did not commit within 5000 ms$|statement timeout/,
      ),
    ])
  }, 60_000)

  it('journal commits are durable even where the database defaults to synchronous_commit off', async () => {
    const { name, url } = await freshDatabase()
    // A common tuning of a managed PostgreSQL for throughput; with it, a commit is acknowledged
    // before its WAL reaches the disk, and a crash of PostgreSQL loses the last ~600 ms of them.
    const sql = adminSql()
    await sql.unsafe(`alter database ${name} set synchronous_commit = off`)
    await sql.end()
    const server = await serverOn(url)
    await createTrader(server, 'ada@example.com', { EUR: '10' }) // a commit acknowledged
    // What the server's connections (the pool's, and the writer session the journal commits on)
    // commit with.
    const settings = await Promise.all([
      ...[1, 2, 3, 4].map(() =>
        server.storage.query<{ synchronous_commit: string }>('show synchronous_commit'),
      ),
      server.storage.writer!.query<{ synchronous_commit: string }>('show synchronous_commit'),
    ])
    expect(settings.map(([row]) => row!.synchronous_commit)).toEqual(['on', 'on', 'on', 'on', 'on'])
  }, 60_000)
})
