// The data directory is its owner's alone: the embedded database's files inside it are written
// readable and writable by everyone (0666), password hashes and sessions among them.
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer } from '../src/server.ts'
import { hexSecretFile, keepDataDirPrivate } from '../src/storage/dataDir.ts'
import { testListing } from './fixtures/testListing.ts'

const root = mkdtempSync(join(tmpdir(), 'polder-data-dir-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const modeOf = (path: string) => statSync(path).mode & 0o777

describe.skipIf(process.platform === 'win32')('the data directory', () => {
  it('is made open to its owner only, and an open one is closed', () => {
    const made = join(root, 'made', 'data')
    expect(keepDataDirPrivate(made)).toBeUndefined()
    expect(modeOf(made)).toBe(0o700)

    const open = join(root, 'open')
    mkdirSync(open, { mode: 0o755 })
    expect(keepDataDirPrivate(open)).toBe(0o755)
    expect(modeOf(open)).toBe(0o700)
    expect(keepDataDirPrivate(open)).toBeUndefined()
  })

  it('is closed by the server as it starts, before the database writes into it', async () => {
    const dataDir = join(root, 'server')
    mkdirSync(dataDir, { mode: 0o777 })
    const server = await createExchangeServer(
      { ...defaultConfig, port: 0, logLevel: 'silent', dataDir },
      testListing,
    )
    try {
      expect(modeOf(dataDir)).toBe(0o700)
      // Its two tokens, each its owner's alone and each its own.
      expect(modeOf(join(dataDir, 'admin.token'))).toBe(0o600)
      expect(modeOf(join(dataDir, 'metrics.token'))).toBe(0o600)
      expect(readFileSync(join(dataDir, 'metrics.token'), 'utf8').trim()).toBe(server.metricsToken)
      expect(server.metricsToken).not.toBe(server.adminToken)
    } finally {
      await server.close()
    }
  })

  it('keeps a secret file whole: made once (0600), read by the next starter, refused when damaged', () => {
    const dir = join(root, 'secrets')
    const first = hexSecretFile(dir, 'admin.token')
    expect(first).toMatch(/^[0-9a-f]{64}$/)
    expect(modeOf(join(dir, 'admin.token'))).toBe(0o600)
    // A second starter finds it made and reads the same; nothing is left beside it.
    expect(hexSecretFile(dir, 'admin.token')).toBe(first)
    expect(readdirSync(dir)).toEqual(['admin.token'])
    // One left empty (by a crash of an older server mid-write, say) stops the start, in words.
    writeFileSync(join(dir, 'metrics.token'), '')
    expect(() => hexSecretFile(dir, 'metrics.token')).toThrow(
      /metrics\.token does not hold 64 hexadecimal characters: remove it/,
    )
  })
  it('refuses a start with a damaged token before it opens the database, which it leaves unmade', async () => {
    const dataDir = join(root, 'damaged-token')
    mkdirSync(dataDir, { mode: 0o700 })
    writeFileSync(join(dataDir, 'metrics.token'), 'not hexadecimal')
    await expect(
      createExchangeServer({ ...defaultConfig, port: 0, logLevel: 'silent', dataDir }, testListing),
    ).rejects.toThrow(/metrics\.token does not hold 64 hexadecimal characters/)
    // Refused in the time it takes to read a file, not after the database has opened (which
    // made the journal, the archives and the accounts' tables there first).
    expect(readdirSync(dataDir).sort()).toEqual(['admin.token', 'metrics.token', 'secret.key'])
  })
})

describe('the secret key', () => {
  it('is refused at start, in words, when it cannot open the API secrets already stored', async () => {
    const dataDir = join(root, 'secret-key')
    const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir }
    const first = await createExchangeServer(config, testListing)
    const account = await first.accounts.createAccount('keys@example.com', 'a long enough password')
    await first.accounts.createApiKey(account.id, ['view'])
    await first.close()
    // As a server on PostgreSQL started from a new data directory: a new secret.key, made
    // without a word, could open none of the stored secrets (every signed request a 500).
    const stored = readFileSync(join(dataDir, 'secret.key'), 'utf8').trim()
    rmSync(join(dataDir, 'secret.key'))
    await expect(createExchangeServer(config, testListing)).rejects.toThrow(
      /does not open the API secrets stored in the database/,
    )
    // With the key they were stored with, it starts.
    const again = await createExchangeServer({ ...config, secretKeyHex: stored }, testListing)
    await again.close()
  }, 120_000)
})
