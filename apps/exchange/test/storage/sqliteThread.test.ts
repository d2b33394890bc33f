// A SQLite file on its own thread (the order archive's): what is committed outlives the thread,
// a transaction is all or nothing, and a thread that dies is started again. It and the journal's
// checkpoints run at a lower priority than the event loop.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { backgroundThreadNice } from '../../src/storage/backgroundThread.ts'
import { startCheckpointer, stopCheckpointer } from '../../src/storage/journalBackends.ts'
import { SqliteThread } from '../../src/storage/sqliteThread.ts'

const schema = 'create table if not exists t (id integer primary key, name text not null);'
const dyingScript = new URL('../fixtures/dyingSqliteWorker.ts', import.meta.url)
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
})

function open(script?: URL): SqliteThread {
  const dir = mkdtempSync(join(tmpdir(), 'polder-sqlite-thread-'))
  const thread = new SqliteThread(join(dir, 'test.sqlite'), schema, script)
  cleanups.push(async () => {
    await thread.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return thread
}

const names = async (thread: SqliteThread) =>
  (await thread.all<{ name: string }>('select name from t order by id', [])).map((row) => row.name)
const insert = 'insert into t (id, name) values (?, ?)'

/** The names, asked until a thread answers: the next request after a death starts a new one. */
async function namesOnceRestarted(thread: SqliteThread): Promise<string[] | undefined> {
  for (let attempt = 0; attempt < 50; attempt += 1) {
    const found = await names(thread).catch(() => undefined)
    if (found !== undefined) return found
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return undefined
}

describe('SQLite on its own thread', () => {
  it('writes many rows in one transaction, sent a few hundred at a time, or none of them', async () => {
    const thread = open()
    const items = Array.from({ length: 1_000 }, (_, index) => index + 1)
    await thread.runMany(insert, items, (id) => [id, `n${id}`])
    expect(await names(thread)).toHaveLength(1_000)
    // The last row breaks the primary key: the 999 before it, in earlier messages, go too.
    const clash = [...Array.from({ length: 999 }, (_, index) => 2_001 + index), 1]
    await expect(thread.runMany(insert, clash, (id) => [id, `m${id}`])).rejects.toThrow(/UNIQUE/)
    expect(await names(thread)).toHaveLength(1_000)
  })

  it('starts a thread again when it dies, the file as it was committed', async () => {
    const thread = open(dyingScript)
    await thread.runMany(insert, [1, 2], (id) => [id, `n${id}`])
    await expect(thread.all("select 'die'", [])).rejects.toThrow()
    expect(await namesOnceRestarted(thread)).toEqual(['n1', 'n2'])
  })

  it('commits nothing of a transaction whose thread dies part way, on the new thread either', async () => {
    const thread = open(dyingScript)
    await thread.runMany(insert, [1, 2], (id) => [id, `n${id}`])
    // 1,000 rows, sent 250 a message. The first message kills the thread. Making the second
    // message's first row waits long enough for the thread to be gone, so that the server has
    // heard of its death before the third message: the third and fourth must not go to the
    // thread started in its place and be committed there.
    const pause = new Int32Array(new SharedArrayBuffer(4))
    const items = Array.from({ length: 1_000 }, (_, index) => 101 + index)
    const rowOf = (id: number) => {
      if (id === 351) Atomics.wait(pause, 0, 0, 300)
      return [id, id === 101 ? 'die' : `m${id}`]
    }
    await expect(thread.runMany(insert, items, rowOf)).rejects.toThrow(/exited/)
    expect(await namesOnceRestarted(thread)).toEqual(['n1', 'n2'])
  })
})

/** How many of this process's threads run at `nice` (Linux: /proc, field 19 of a task's stat). */
function threadsAtNice(nice: number): number {
  let count = 0
  for (const tid of readdirSync('/proc/self/task')) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]) === nice) count += 1
    } catch {
      // the thread ended meanwhile
    }
  }
  return count
}

async function untilThreadsAtNice(nice: number, count: number): Promise<number> {
  for (let attempt = 0; attempt < 100 && threadsAtNice(nice) < count; attempt += 1)
    await new Promise((resolve) => setTimeout(resolve, 20))
  return threadsAtNice(nice)
}

describe.skipIf(process.platform !== 'linux')('background threads', () => {
  it('write the order archive and checkpoint the journal at a lower priority than the event loop', async () => {
    expect(backgroundThreadNice).toBeGreaterThan(0)
    const own = () => {
      const stat = readFileSync('/proc/thread-self/stat', 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
    }
    const ownBefore = own()
    const before = threadsAtNice(backgroundThreadNice)
    const thread = open()
    await thread.all('select 1', [])
    expect(await untilThreadsAtNice(backgroundThreadNice, before + 1)).toBe(before + 1)
    const dir = mkdtempSync(join(tmpdir(), 'polder-checkpointer-'))
    const checkpointer = startCheckpointer(join(dir, 'journal.sqlite'), 1_000)
    cleanups.push(async () => {
      await stopCheckpointer(checkpointer)
      rmSync(dir, { recursive: true, force: true })
    })
    expect(await untilThreadsAtNice(backgroundThreadNice, before + 2)).toBe(before + 2)
    // The event loop's own thread stays where it was.
    expect(own()).toBe(ownBefore)
  })
})
