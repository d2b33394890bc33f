// The data directory holds the embedded database, whose files PGlite writes readable and
// writable by everyone (0666, whatever the umask), among them the accounts' password hashes and
// the sessions. The directory itself is therefore kept to its owner, as PostgreSQL keeps its own.
import { chmodSync, mkdirSync, statSync } from 'node:fs'

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
