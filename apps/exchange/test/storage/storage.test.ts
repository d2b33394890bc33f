import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { AccountStore, feeTierIdleMs, tokenHash } from '../../src/accounts/accountStore.ts'
import { createSecretBox } from '../../src/accounts/secretBox.ts'
import { type Journal, JournalFailedError, openJournal } from '../../src/storage/journal.ts'
import { migrate, migrations } from '../../src/storage/migrations.ts'
import { openDriver, openStorage, type StorageLocation } from '../../src/storage/openStorage.ts'
import { openSnapshotStore, SqlSnapshotStore } from '../../src/storage/snapshotStore.ts'
import type { SqlDriver } from '../../src/storage/sqlDriver.ts'
import { removeEmptyEmbeddedDir, storageTargets } from './storageTargets.ts'

afterAll(removeEmptyEmbeddedDir)

/**
 * A driver whose reads of the accounts table are answered only when let go, as over a slow
 * network: `hold(n)` holds the next n of them, each until `letGo`.
 */
function slowAccountReads(driver: SqlDriver) {
  let release: () => void = () => {}
  let holding = 0
  const slow: SqlDriver = Object.assign(Object.create(driver) as SqlDriver, {
    query: async (sql: string, params?: readonly unknown[]) => {
      const rows = await driver.query(sql, params as never)
      if (holding > 0 && sql.startsWith('select id,')) {
        holding -= 1
        await new Promise<void>((go) => (release = go))
      }
      return rows
    },
  })
  return { slow, hold: (reads: number) => (holding = reads), letGo: () => release() }
}
describe.each(storageTargets)('storage on $name', (target) => {
  const cleanups: (() => Promise<void>)[] = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
  })
  /** A journal that the test's cleanup closes before its files are removed. */
  async function journalOf(...args: Parameters<typeof openJournal>): Promise<Journal> {
    const journal = await openJournal(...args)
    cleanups.push(() => journal.close())
    return journal
  }

  async function open(): Promise<{
    driver: SqlDriver
    location: StorageLocation
    reopen(): Promise<SqlDriver>
  }> {
    const { location, cleanup } = await target.create()
    cleanups.push(cleanup)
    const opened: SqlDriver[] = []
    cleanups.push(async () => {
      for (const driver of opened) await driver.close().catch(() => {})
    })
    const reopen = async () => {
      const driver = await openStorage(location)
      opened.push(driver)
      return driver
    }
    return { driver: await reopen(), location, reopen }
  }

  it('applies every migration once, and opening again applies nothing', async () => {
    const { driver, reopen } = await open()
    const rows = await driver.query<{ version: number }>(
      'select version from schema_migrations order by version',
    )
    expect(rows.map((row) => Number(row.version))).toEqual(migrations.map((m) => m.version))
    await driver.close()
    const again = await reopen()
    const count = await again.query<{ n: string | number }>(
      'select count(*) as n from schema_migrations',
    )
    expect(Number(count[0]!.n)).toBe(migrations.length)
  })

  it('accounts: a cached API key revoked or deleted in the database directly is found by the sweep', async () => {
    const { driver } = await open()
    const accounts = new AccountStore(driver, createSecretBox(randomBytes(32)))
    const account = await accounts.createAccount('sweep@example.com', 'a long password')
    const keys = await Promise.all([1, 2, 3].map(() => accounts.createApiKey(account.id, ['view'])))
    for (const { key } of keys) expect((await accounts.findApiKey(key))?.revoked).toBe(false)
    const told: string[] = []
    accounts.onRevoked((credential) => {
      if (credential.kind === 'key') told.push(credential.key)
    })
    await driver.query('update api_keys set revoked_at_ms = 1 where key = $1', [keys[1]!.key])
    expect(await accounts.sweepRevokedKeys()).toBe(1)
    expect(told).toEqual([keys[1]!.key])
    expect((await accounts.findApiKey(keys[1]!.key))?.revoked).toBe(true)
    expect((await accounts.findApiKey(keys[0]!.key))?.revoked).toBe(false)
    expect(await accounts.sweepRevokedKeys()).toBe(0)
    // A key deleted outright goes the same way.
    await driver.query('delete from api_keys where key = $1', [keys[2]!.key])
    expect(await accounts.sweepRevokedKeys()).toBe(1)
    expect(told).toEqual([keys[1]!.key, keys[2]!.key])
    expect(await accounts.findApiKey(keys[2]!.key)).toBeUndefined()
  })

  it('accounts: sessions revoked, deleted or expired behind the store are found by the sweep', async () => {
    const { driver } = await open()
    let nowMs = 1_000_000
    const accounts = new AccountStore(driver, createSecretBox(randomBytes(32)), () => nowMs)
    const account = await accounts.createAccount('sessions@example.com', 'a long password')
    const [live, revoked, deleted] = await Promise.all(
      [1, 2, 3].map(() => accounts.createSession(account.id, 60_000)),
    )
    const expiring = await accounts.createSession(account.id, 1_000)
    const hashes = [live!, revoked!, deleted!, expiring].map(({ token }) => tokenHash(token))
    const told: string[] = []
    accounts.onRevoked((credential) => {
      if (credential.kind === 'session') told.push(credential.tokenHash)
    })
    expect(await accounts.sweepEndedSessions(hashes)).toBe(0)
    await driver.query('update sessions set revoked_at_ms = 1 where token_hash = $1', [hashes[1]!])
    await driver.query('delete from sessions where token_hash = $1', [hashes[2]!])
    nowMs += 1_000
    expect(await accounts.sweepEndedSessions(hashes)).toBe(3)
    expect(told).toEqual(hashes.slice(1))
    expect(await accounts.sweepEndedSessions([hashes[0]!])).toBe(0)
  })

  it('accounts: a fee tier is stored, kept, and read again by the sweep after a change in the database', async () => {
    const { driver } = await open()
    const accounts = new AccountStore(driver, createSecretBox(randomBytes(32)))
    const [one, two] = await Promise.all(
      ['tier-1@example.com', 'tier-2@example.com'].map((email) =>
        accounts.createAccount(email, 'a long password'),
      ),
    )
    expect(accounts.cachedFeeTier(one!.id)).toBeUndefined()
    expect(await accounts.loadFeeTier(one!.id)).toBe(0)
    expect(await accounts.setFeeTier(two!.id, 4)).toBe(true)
    expect(await accounts.setFeeTier(987_654, 4)).toBe(false)
    expect([accounts.cachedFeeTier(one!.id), accounts.cachedFeeTier(two!.id)]).toEqual([0, 4])
    expect((await accounts.findAccount(two!.id))?.feeTier).toBe(4)
    await driver.query('update accounts set fee_tier = 6 where id = $1', [one!.id])
    expect(accounts.cachedFeeTier(one!.id)).toBe(0)
    expect(await accounts.refreshFeeTiers()).toBe(1)
    expect([accounts.cachedFeeTier(one!.id), accounts.cachedFeeTier(two!.id)]).toEqual([6, 4])
    expect(await accounts.refreshFeeTiers()).toBe(0)
  })

  it('accounts: a read of the fee tiers that a set overtakes keeps the set tier; a tier no tier has counts as 0', async () => {
    const { driver } = await open()
    const { slow, hold, letGo } = slowAccountReads(driver)
    const accounts = new AccountStore(slow, createSecretBox(randomBytes(32)))
    const account = await accounts.createAccount('race@example.com', 'a long password')
    hold(Number.POSITIVE_INFINITY)
    const loading = accounts.loadFeeTier(account.id) // reads 0, answered late
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await accounts.setFeeTier(account.id, 5)).toBe(true)
    letGo()
    await loading
    expect(accounts.cachedFeeTier(account.id)).toBe(5)
    const refreshing = accounts.refreshFeeTiers() // reads 5, answered late
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await accounts.setFeeTier(account.id, 7)).toBe(true)
    letGo()
    expect(await refreshing).toBe(0)
    expect(accounts.cachedFeeTier(account.id)).toBe(7)
    hold(0)
    await driver.query('update accounts set fee_tier = 42 where id = $1', [account.id])
    expect(await accounts.refreshFeeTiers()).toBe(1)
    expect(accounts.cachedFeeTier(account.id)).toBe(0)
  })

  it('accounts: a fee tier let go while a read that a set overtook was under way is read again, not put back as it was', async () => {
    const { driver } = await open()
    const { slow, hold, letGo } = slowAccountReads(driver)
    let nowMs = 1_000_000
    const accounts = new AccountStore(slow, createSecretBox(randomBytes(32)), () => nowMs)
    const account = await accounts.createAccount('idle-race@example.com', 'a long password')
    expect(await accounts.loadFeeTier(account.id)).toBe(0)
    hold(1) // the read after this one is answered at once
    const loading = accounts.loadFeeTier(account.id) // reads 0, answered late
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(await accounts.setFeeTier(account.id, 3)).toBe(true)
    nowMs += feeTierIdleMs + 1
    expect(accounts.forgetIdleFeeTiers()).toBe(1)
    letGo()
    expect(await loading).toBe(3)
    expect(accounts.cachedFeeTier(account.id)).toBe(3)
    // Asked for by an order, a tier stays; idle, it goes, and is read anew.
    nowMs += feeTierIdleMs - 1
    expect(accounts.forgetIdleFeeTiers()).toBe(0)
    nowMs += feeTierIdleMs + 1
    expect(accounts.forgetIdleFeeTiers((id) => id === account.id)).toBe(0)
    expect(accounts.forgetIdleFeeTiers()).toBe(1)
    expect(accounts.cachedFeeTier(account.id)).toBeUndefined()
    expect(await accounts.refreshFeeTiers()).toBe(0)
    expect(accounts.cachedFeeTier(account.id)).toBeUndefined()
  })

  it('journal: appends get consecutive sequence numbers and read back in order, payload intact', async () => {
    const { driver, location } = await open()
    const journal = await journalOf(location, driver, { nowMs: () => 1_700_000_000_000 })
    const payloads = [{ a: '0.1' }, { b: [1, 2, 3] }, { c: null }]
    const appended = payloads.map((payload) => journal.append({ kind: 'k', payload }))
    expect(appended.map((record) => record.seq)).toEqual([1, 2, 3])
    await Promise.all(appended.map((record) => record.durable))
    const entries = await journal.read(0, 10)
    expect(entries).toEqual(
      payloads.map((payload, index) => ({
        seq: index + 1,
        kind: 'k',
        payload,
        recordedAtMs: 1_700_000_000_000,
      })),
    )
    expect(await journal.read(2, 10)).toHaveLength(1)
  })

  it('journal: group commit writes many concurrent appends in few transactions', async () => {
    const { driver, location } = await open()
    const journal = await journalOf(location, driver, { batchRecordsMax: 500 })
    const appended = Array.from({ length: 2000 }, (_, index) =>
      journal.append({ kind: 'k', payload: index }),
    )
    await Promise.all(appended.map((record) => record.durable))
    expect(journal.batchesWritten).toBeLessThanOrEqual(8)
    expect(journal.batchesWritten).toBeGreaterThanOrEqual(4) // 2000 / 500: the batch limit holds
    expect((await journal.read(0, 5000)).map((entry) => entry.payload)).toEqual(
      appended.map((_, index) => index),
    )
  })

  it('journal: appends from separate tasks of one event-loop turn share a commit', async () => {
    const { driver, location } = await open()
    const journal = await journalOf(location, driver)
    // Three callbacks of one check phase, as three sockets' reads are of one poll phase.
    const durable = await new Promise<Promise<void>[]>((resolve) => {
      const appended: Promise<void>[] = []
      for (const payload of [1, 2, 3])
        setImmediate(() => {
          appended.push(journal.append({ kind: 'k', payload }).durable)
          if (appended.length === 3) resolve(appended)
        })
    })
    await Promise.all(durable)
    expect(journal.batchesWritten).toBe(1)
    expect(journal.recordsWritten).toBe(3)
  })

  it('journal: reads from inside a group commit, at most the limit, in order', async () => {
    const { driver, location } = await open()
    const journal = await journalOf(location, driver)
    const appended = Array.from({ length: 10 }, (_, index) =>
      journal.append({ kind: 'k', payload: index }),
    )
    await Promise.all(appended.map((record) => record.durable))
    expect(journal.batchesWritten).toBe(1)
    expect((await journal.read(3, 4)).map((entry) => entry.seq)).toEqual([4, 5, 6, 7])
    expect((await journal.read(8, 100)).map((entry) => entry.seq)).toEqual([9, 10])
    expect(await journal.read(10, 100)).toEqual([])
  })

  it('migration 4 moves a journal written one row per record into batches, unchanged', async () => {
    const { location, cleanup } = await target.create()
    cleanups.push(cleanup)
    const old = await openDriver(location)
    await migrate(
      old,
      migrations.filter((migration) => migration.version <= 3),
    )
    for (const seq of [1, 2, 3])
      await old.query(
        'insert into journal (seq, kind, payload, recorded_at_ms) values ($1, $2, $3::jsonb, $4)',
        [seq, 'placeOrder', JSON.stringify({ market: 'BTC-EUR', amount: `0.${seq}` }), 1_000 + seq],
      )
    await migrate(old)
    const journal = await journalOf(location, old)
    expect(await journal.read(1, 10)).toEqual(
      [2, 3].map((seq) => ({
        seq,
        kind: 'placeOrder',
        payload: { market: 'BTC-EUR', amount: `0.${seq}` },
        recordedAtMs: 1_000 + seq,
      })),
    )
    expect(journal.append({ kind: 'k', payload: 4 }).seq).toBe(4)
    await journal.drain()
    await old.close()
  })

  it('migration 5 keeps snapshots saved as jsonb readable, and new ones are stored as text', async () => {
    const { location, cleanup } = await target.create()
    cleanups.push(cleanup)
    const old = await openDriver(location)
    cleanups.push(() => old.close())
    await migrate(
      old,
      migrations.filter((migration) => migration.version <= 4),
    )
    const state = { version: 1, engine: { markets: [{ nonce: 7 }] }, note: 'ümlaut "quoted"' }
    // As the writer before migration 5 saved them.
    await old.query('insert into snapshots (seq, state, taken_at_ms) values ($1, $2::jsonb, $3)', [
      10,
      JSON.stringify(state),
      1,
    ])
    await migrate(old)
    const table = new SqlSnapshotStore(old)
    expect(await table.latest()).toEqual({ seq: 10, state })
    await table.save(20, [JSON.stringify({ ...state, note: 'new' })], 2)
    expect(await table.latest()).toEqual({ seq: 20, state: { ...state, note: 'new' } })
    const [row] = await old.query<{ type: string }>(
      `select data_type as type from information_schema.columns
        where table_schema = current_schema() and table_name = 'snapshots' and column_name = 'state'`,
    )
    expect(row?.type).toBe('text')
  })

  it('journal: sequence numbers continue after reopening', async () => {
    const { driver, location, reopen } = await open()
    const first = await journalOf(location, driver)
    await first.append({ kind: 'k', payload: 1 }).durable
    await first.append({ kind: 'k', payload: 2 }).durable
    await driver.close()
    const second = await journalOf(location, await reopen())
    expect(second.append({ kind: 'k', payload: 3 }).seq).toBe(3)
    await second.drain()
  })

  it('journal: after a failed write nothing more is acknowledged', async () => {
    const { driver, location } = await open()
    const journal = await journalOf(location, driver)
    await journal.append({ kind: 'k', payload: 1 }).durable
    // The journal's store fails from here on: its own file on the embedded default, the
    // database connection on PostgreSQL.
    await journal.backend.close()
    await driver.close()
    const failed = journal.append({ kind: 'k', payload: 2 })
    await expect(failed.durable).rejects.toBeInstanceOf(JournalFailedError)
    expect(() => journal.append({ kind: 'k', payload: 3 })).toThrow(JournalFailedError)
  })

  it('journal: every acknowledged record survives kill -9 of the writing process', async () => {
    const { location, cleanup } = await target.create()
    cleanups.push(cleanup)
    const child = spawn(
      process.execPath,
      [join(import.meta.dirname, 'journalWriter.ts'), JSON.stringify(location)],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    )
    let acked = 0
    let buffer = ''
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL') // never leave the writer running
        reject(new Error(`writer acknowledged only ${acked} records in 60 s`))
      }, 60_000)
      child.stdout.on('data', (chunk: Buffer) => {
        buffer += chunk.toString()
        const lines = buffer.split('\n')
        buffer = lines.pop() ?? ''
        for (const line of lines) {
          if (line.startsWith('acked ')) acked = Math.max(acked, Number(line.slice(6)))
        }
        if (acked >= 200) {
          clearTimeout(timer)
          child.kill('SIGKILL')
          resolve()
        }
      })
      child.once('exit', () => {
        clearTimeout(timer)
        resolve()
      })
    })
    await new Promise((resolve) =>
      child.exitCode === null && child.signalCode === null
        ? child.once('exit', resolve)
        : resolve(null),
    )
    expect(child.signalCode).toBe('SIGKILL')
    const driver = await openStorage(location)
    cleanups.push(() => driver.close())
    const journal = await journalOf(location, driver)
    const entries = await journal.read(0, 1_000_000)
    // Everything acknowledged is there, and there are no holes before the last record.
    expect(entries.length).toBeGreaterThanOrEqual(acked)
    expect(entries.map((entry) => entry.seq)).toEqual(entries.map((_, index) => index + 1))
  }, 90_000)
})

describe.each(storageTargets)('snapshots on $name', (target) => {
  it('keeps the two newest snapshots and drops the journal records the older one covers', async () => {
    const { location, cleanup } = await target.create()
    const driver = await openStorage(location)
    let journal: Journal | undefined
    try {
      journal = await openJournal(location, driver)
      // One group commit each: the journal is pruned by whole batches.
      for (let index = 0; index < 30; index += 1)
        await journal.append({ kind: 'k', payload: index }).durable
      const snapshots = openSnapshotStore(location, driver)
      await snapshots.save(10, [JSON.stringify({ at: 10 })], 1)
      await snapshots.save(20, ['{"at":', '20}'], 2) // the text comes in chunks
      // The oldest kept snapshot bounds what any recovery reads again.
      await journal.prune(await snapshots.save(25, [JSON.stringify({ at: 25 })], 3))
      expect(await snapshots.latest()).toEqual({ seq: 25, state: { at: 25 } })
      expect(await snapshots.latestSeq()).toBe(25)
      const seqs = (await journal.read(0, 100)).map((entry) => entry.seq)
      expect(seqs[0]).toBe(21) // records up to the older kept snapshot (20) are gone
      expect(seqs.at(-1)).toBe(30)
      const kept =
        location.kind === 'embedded' && location.dataDir !== undefined
          ? readdirSync(join(location.dataDir, 'snapshots')).sort()
          : (
              await driver.query<{ seq: string | number }>('select seq from snapshots order by seq')
            ).map((row) => Number(row.seq))
      expect(kept).toEqual(location.kind === 'embedded' ? ['20.json', '25.json'] : [20, 25])
    } finally {
      await journal?.close()
      await driver.close()
      await cleanup()
    }
  })

  it('an embedded data directory from before snapshot files keeps its snapshot until the first file', async () => {
    const { location, cleanup } = await target.create()
    const driver = await openStorage(location)
    try {
      const table = new SqlSnapshotStore(driver)
      await table.save(7, [JSON.stringify({ at: 7 })], 1)
      const snapshots = openSnapshotStore(location, driver)
      expect(await snapshots.latest()).toEqual({ seq: 7, state: { at: 7 } })
      expect(await snapshots.latestSeq()).toBe(7)
      // The oldest kept: on PostgreSQL both are in the table; on the embedded default the file
      // supersedes the table's.
      expect(await snapshots.save(9, [JSON.stringify({ at: 9 })], 2)).toBe(
        location.kind === 'embedded' ? 9 : 7,
      )
      expect(await snapshots.latest()).toEqual({ seq: 9, state: { at: 9 } })
      if (location.kind === 'embedded') expect(await table.latest()).toBeUndefined()
    } finally {
      await driver.close()
      await cleanup()
    }
  })

  it('a snapshot file left half-written by a crash is ignored', async () => {
    const { location, cleanup } = await target.create()
    if (location.kind !== 'embedded' || location.dataDir === undefined) return cleanup()
    const driver = await openStorage(location)
    try {
      const snapshots = openSnapshotStore(location, driver)
      await snapshots.save(3, [JSON.stringify({ at: 3 })], 1)
      writeFileSync(join(location.dataDir, 'snapshots', '8.json.partial'), '{"at":')
      expect(await snapshots.latest()).toEqual({ seq: 3, state: { at: 3 } })
      await snapshots.save(9, [JSON.stringify({ at: 9 })], 2) // and the next save removes it
      expect(readdirSync(join(location.dataDir, 'snapshots')).sort()).toEqual(['3.json', '9.json'])
    } finally {
      await driver.close()
      await cleanup()
    }
  })

  it('a first snapshot at the last record empties the journal, and numbering still continues after it', async () => {
    const { location, cleanup } = await target.create()
    const driver = await openStorage(location)
    let journal: Journal | undefined
    try {
      const first = await openJournal(location, driver)
      journal = first
      const appended = Array.from({ length: 5 }, (_, index) =>
        first.append({ kind: 'k', payload: index }),
      )
      await Promise.all(appended.map((record) => record.durable))
      await journal.prune(
        await openSnapshotStore(location, driver).save(5, [JSON.stringify({ at: 5 })], 1),
      )
      expect(await journal.read(0, 100)).toEqual([])
      await journal.close()
      journal = await openJournal(location, driver)
      expect(journal.nextSeq).toBe(6)
    } finally {
      await journal?.close()
      await driver.close()
      await cleanup()
    }
  })
})
