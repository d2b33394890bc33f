// An archive's SQLite file is written on a thread of its own and read on the event loop (long
// reads, `readTogether`, on a reading thread of its own): the event loop's connection never
// writes a row, so it never starts the log over (and never waits for SQLite's sync of the new
// log header). In memory, one connection does both.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { SqliteArchiveFile } from '../../src/storage/projectionArchive.ts'

const schema =
  'create table if not exists items (id integer primary key, name text not null) strict;'
const insert = 'insert or ignore into items (id, name) values (?, ?)'

let dir: string | undefined
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true })
  dir = undefined
})

/** Rows this connection has changed since it opened (SQLite's total_changes()). */
const changedBy = (file: SqliteArchiveFile) =>
  (file.db.prepare('select total_changes() as changed').get() as { changed: number }).changed

describe('an archive file', () => {
  it('writes on its own thread and reads on the event loop, when it is a file', async () => {
    dir = mkdtempSync(join(tmpdir(), 'polder-archive-file-'))
    const file = new SqliteArchiveFile(join(dir, 'items.sqlite'), schema)
    try {
      await file.insertAll(insert, [
        [1, 'one'],
        [2, 'two'],
        [2, 'two again'],
      ])
      expect(await file.run('delete from items where id = ?1', [1])).toBe(1)
      expect(file.db.prepare('select id, name from items').all()).toEqual([{ id: 2, name: 'two' }])
      expect(changedBy(file)).toBe(0)
    } finally {
      await file.close()
    }
  })

  it('does both on the event loop in memory', async () => {
    const file = new SqliteArchiveFile(undefined, schema)
    try {
      await file.insertAll(insert, [[1, 'one']])
      expect(await file.run('delete from items where id = ?1', [1])).toBe(1)
      expect(changedBy(file)).toBe(2)
    } finally {
      await file.close()
    }
  })

  it('writes all the rows of an insert or none', async () => {
    dir = mkdtempSync(join(tmpdir(), 'polder-archive-file-'))
    const file = new SqliteArchiveFile(join(dir, 'items.sqlite'), schema)
    try {
      // The second row repeats the first one's key: the first is rolled back with it.
      await expect(
        file.insertAll('insert into items (id, name) values (?, ?)', [
          [1, 'one'],
          [1, 'one again'],
        ]),
      ).rejects.toThrow(/UNIQUE/)
      expect(file.db.prepare('select count(*) as n from items').get()).toEqual({ n: 0 })
      await file.insertAll(insert, [[4, 'four']])
      expect(file.db.prepare('select id from items').all()).toEqual([{ id: 4 }])
    } finally {
      await file.close()
    }
  })

  it('reads statements together on a reading thread of its own, and none once closed', async () => {
    dir = mkdtempSync(join(tmpdir(), 'polder-archive-file-'))
    const file = new SqliteArchiveFile(join(dir, 'items.sqlite'), schema)
    await file.insertAll(insert, [
      [1, 'one'],
      [2, 'two'],
    ])
    const [counted, names] = await file.readTogether([
      { sql: 'select count(*) as n from items', params: [] },
      { sql: 'select name from items where id > ? order by id', params: [0] },
    ])
    expect(counted).toEqual([{ n: 2 }])
    expect(names).toEqual([{ name: 'one' }, { name: 'two' }])
    expect(changedBy(file)).toBe(0) // neither the event loop's connection
    await file.close()
    await expect(
      file.readTogether([{ sql: 'select count(*) from items', params: [] }]),
    ).rejects.toThrow('closed')
  })
})
