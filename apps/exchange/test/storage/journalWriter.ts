// Child process of the kill -9 test: appends records as fast as group commit allows and prints
// `acked <seq>` for each one the journal reports durable. The parent kills it mid-stream.
import { openJournal } from '../../src/storage/journal.ts'
import { openStorage, type StorageLocation } from '../../src/storage/openStorage.ts'

const location = JSON.parse(process.argv[2]!) as StorageLocation
const driver = await openStorage(location)
const journal = await openJournal(location, driver)
process.stdout.write('ready\n')
for (;;) {
  const appended = Array.from({ length: 50 }, (_, index) =>
    journal.append({ kind: 'test', payload: { index } }),
  )
  for (const { seq, durable } of appended) {
    durable.then(() => process.stdout.write(`acked ${seq}\n`))
  }
  await Promise.all(appended.map((record) => record.durable))
  // A commit can settle within the same turn: give stdout its turn to carry the lines out.
  await new Promise((resolve) => setImmediate(resolve))
}
