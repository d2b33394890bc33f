// The data directory holds the embedded database, whose files PGlite writes readable and
// writable by everyone (0666, whatever the umask), among them the accounts' password hashes and
// the sessions. The directory itself is therefore kept to its owner, as PostgreSQL keeps its own.
import { randomBytes } from 'node:crypto'
import {
  chmodSync,
  linkSync,
  mkdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { join } from 'node:path'

export class DataDirFileError extends Error {
  override name = 'DataDirFileError'
}

/**
 * Creates `dataDir` open to its owner only (0700), or closes an existing one that others could
 * enter. Returns the permissions it had when it was closed here (for the log), else undefined.
 */
export function keepDataDirPrivate(dataDir: string): number | undefined {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const mode = statSync(dataDir).mode & 0o777
  if ((mode & 0o077) === 0) return undefined
  chmodSync(dataDir, mode & 0o700)
  return mode
}

/**
 * The 64 hex characters (32 random bytes) kept in `dataDir/fileName` (0600), made on first
 * start. The file appears whole or not at all (written beside it, then linked in under its
 * name), so two servers starting at once, or a crash while it is written, cannot leave it empty
 * or half-written; the second starter reads the first one's. A file that holds anything else
 * refuses the start, in words.
 */
export function hexSecretFile(dataDir: string, fileName: string): string {
  const path = join(dataDir, fileName)
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const pending = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.new`
  try {
    writeFileSync(pending, randomBytes(32).toString('hex'), { mode: 0o600, flag: 'wx' })
    linkSync(pending, path)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  } finally {
    rmSync(pending, { force: true })
  }
  const text = readFileSync(path, 'utf8').trim()
  if (!/^[0-9a-f]{64}$/i.test(text))
    throw new DataDirFileError(
      `${path} does not hold 64 hexadecimal characters: remove it to have a new one made`,
    )
  return text
}
