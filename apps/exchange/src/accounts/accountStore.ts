// Accounts, API keys and browser sessions. Passwords are hashed with scrypt; API secrets are
// kept encrypted; session tokens are kept only as SHA-256 hashes. API keys are cached in memory
// after the first look-up because every signed request needs one, and so are the fee tiers that
// operators store with accounts (every order needs its account's fees); a timer looks for cached
// keys revoked and tiers changed in the database directly (`sweepRevokedKeys`,
// `refreshFeeTiers`).
import { createHash, randomBytes, scrypt, timingSafeEqual } from 'node:crypto'
import { promisify } from 'node:util'
import { feeTiers } from '@polder/catalogue'
import type { Permission as ProtocolPermission } from '@polder/protocol'
import { type SqlDriver, toTextArray } from '../storage/sqlDriver.ts'
import { type SecretBox, SecretKeyError } from './secretBox.ts'

/**
 * Live browser sessions per account (each login makes one): past this the oldest is signed out.
 * Enough for every browser and device a customer uses; a loop of logins cannot grow the table.
 */
export const sessionsPerAccountMax = 100
/** How long an ended session's row stays: the account's sign-ins of the last day, for an operator. */
export const endedSessionKeptMs = 86_400_000

/** Cached keys (or accounts) asked about in one query of `sweepRevokedKeys` (`refreshFeeTiers`). */
const sweepBatch = 1_000
/** Keys `revokedLately` remembers. */
const revokedLatelyMax = 10_000

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>
const scryptParams = { N: 16_384, r: 8, p: 1, maxmem: 64 * 1024 * 1024 }
const scryptKeyBytes = 32

/** A key's permissions: the protocol's, less `none` (which marks public endpoints). */
export type Permission = Exclude<ProtocolPermission, 'none'>
export const permissions: readonly Permission[] = ['view', 'trade', 'withdraw']

/** `id` is a small integer: the engine identifies accounts by number. */
export type Account = { id: number; email: string; feeTier: number; createdAtMs: number }
export type ApiKeyRecord = {
  key: string
  accountId: number
  secret: string
  permissions: readonly Permission[]
  revoked: boolean
}
export type SessionRecord = { accountId: number; expiresAtMs: number; revoked: boolean }
/** A live browser session: whose, until when, and the hash that names it (never the token). */
export type LiveSession = { accountId: number; expiresAtMs: number; tokenHash: string }
/** A credential just revoked: what open connections authenticated with it must give up. */
export type RevokedCredential =
  | { kind: 'session'; tokenHash: string }
  | { kind: 'key'; key: string }

export class AccountExistsError extends Error {
  override name = 'AccountExistsError'
}

// No white space, no control characters (a NUL, which PostgreSQL cannot store in text, made a
// sign-up fail with a 500), one @.
const emailPattern = /^[^\s@\p{Cc}]{1,64}@[^\s@\p{Cc}]{1,255}\.[^\s@\p{Cc}]{2,}$/u
const apiKeyPattern = /^[0-9a-f]{64}$/
export const passwordCharsMin = 10
export const passwordCharsMax = 256

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const hash = await scryptAsync(password, salt, scryptKeyBytes, scryptParams)
  return `scrypt$${scryptParams.N}$${scryptParams.r}$${scryptParams.p}$${salt.toString('base64')}$${hash.toString('base64')}`
}

/**
 * A hash of no one's password, made once: a login for an unknown email compares against it, so
 * that it costs one scrypt as a wrong password for a known email does (hashing it anew there
 * made two, and the answer took twice as long: 75 against 36 ms, measured by a review).
 */
let timingEqualiser: Promise<string> | undefined
const timingEqualiserHash = (): Promise<string> =>
  (timingEqualiser ??= hashPassword('timing-equaliser'))

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const expected = Buffer.from(hash, 'base64')
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: scryptParams.maxmem,
  })
  return timingSafeEqual(actual, expected)
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** A stored fee tier as kept, and when an order last asked for it. */
type KeptFeeTier = { tier: number; usedAtMs: number }

/** A kept fee tier no order has asked for this long is let go (unless `forgetIdleFeeTiers` is told to keep it). */
export const feeTierIdleMs = 10 * 60_000

export class AccountStore {
  readonly #driver: SqlDriver
  readonly #box: SecretBox
  readonly #nowMs: () => number
  readonly #keyCache = new Map<string, ApiKeyRecord | null>()
  /** Keys revoked lately, newest last, for `revokedLately`. */
  readonly #revokedLately = new Set<string>()
  readonly #revokedListeners: ((credential: RevokedCredential) => void)[] = []
  /** The fee tier stored with each account read and used lately (see `forgetIdleFeeTiers`). */
  readonly #feeTiers = new Map<number, KeptFeeTier>()
  /**
   * Each account's count of tiers set through `setFeeTier`: a read that started before a set
   * finished must not put back the tier the set replaced.
   */
  readonly #feeTierSets = new Map<number, number>()

  constructor(driver: SqlDriver, box: SecretBox, nowMs: () => number = Date.now) {
    this.#driver = driver
    this.#box = box
    this.#nowMs = nowMs
    void timingEqualiserHash() // made before the first login asks for it
  }

  /**
   * `owner` 'exchange' for the exchange's own accounts (the simulator's), whose addresses are at
   * the reserved top-level domain `.invalid` (RFC 2606): a customer's address never is, so no one
   * can sign up as one of them before the exchange makes it, and be given its funding.
   */
  async createAccount(
    email: string,
    password: string,
    owner: 'customer' | 'exchange' = 'customer',
  ): Promise<Account> {
    const normalised = email.trim().toLowerCase()
    if (!emailPattern.test(normalised)) throw new TypeError('email is not a valid address')
    if ((owner === 'exchange') !== normalised.endsWith('.invalid'))
      throw new TypeError(
        owner === 'exchange'
          ? 'an account of the exchange has an address at .invalid'
          : 'email is not a valid address',
      )
    // Characters, not UTF-16 code units: an emoji is one character, as a person counts it.
    const characters = [...password].length
    if (characters < passwordCharsMin || characters > passwordCharsMax) {
      throw new TypeError(
        `password must have ${passwordCharsMin} to ${passwordCharsMax} characters`,
      )
    }
    const createdAtMs = this.#nowMs()
    const rows = await this.#driver.query<{ id: string | number }>(
      `insert into accounts (email, password_hash, fee_tier, created_at_ms)
       values ($1, $2, 0, $3) on conflict (email) do nothing returning id`,
      [normalised, await hashPassword(password), createdAtMs],
    )
    const [row] = rows
    if (row === undefined) throw new AccountExistsError(`an account for ${normalised} exists`)
    return { id: Number(row.id), email: normalised, feeTier: 0, createdAtMs }
  }

  async findAccount(id: number): Promise<Account | undefined> {
    const [row] = await this.#driver.query<{
      id: string | number
      email: string
      fee_tier: number
      created_at_ms: string | number
    }>('select id, email, fee_tier, created_at_ms from accounts where id = $1', [id])
    return (
      row && {
        id: Number(row.id),
        email: row.email,
        feeTier: Number(row.fee_tier),
        createdAtMs: Number(row.created_at_ms),
      }
    )
  }

  async findAccountByEmail(email: string): Promise<Account | undefined> {
    const normalised = email.trim().toLowerCase()
    if (!emailPattern.test(normalised)) return undefined
    const [row] = await this.#driver.query<{ id: string | number }>(
      'select id from accounts where email = $1',
      [normalised],
    )
    return row ? this.findAccount(Number(row.id)) : undefined
  }

  /** The account for this email and password, or undefined; takes as long either way. */
  async login(email: string, password: string): Promise<Account | undefined> {
    const normalised = email.trim().toLowerCase()
    // An address no account can have is looked up as none (its characters may not even be
    // storable), in the same time.
    const [row] = emailPattern.test(normalised)
      ? await this.#driver.query<{ id: string | number; password_hash: string }>(
          'select id, password_hash from accounts where email = $1',
          [normalised],
        )
      : []
    const matches = await passwordMatches(
      password,
      row?.password_hash ?? (await timingEqualiserHash()),
    )
    return row && matches ? this.findAccount(Number(row.id)) : undefined
  }

  async createApiKey(
    accountId: number,
    granted: readonly Permission[],
  ): Promise<{ key: string; secret: string }> {
    const key = randomBytes(32).toString('hex')
    const secret = randomBytes(32).toString('hex')
    await this.#driver.query(
      `insert into api_keys (key, account_id, secret_encrypted, permissions, created_at_ms)
       values ($1, $2, $3, $4, $5)`,
      [
        key,
        accountId,
        this.#box.seal(secret),
        `{${[...new Set(granted)].join(',')}}`,
        this.#nowMs(),
      ],
    )
    this.#keyCache.delete(key)
    return { key, secret }
  }

  /**
   * Refuses to start with a secret key that cannot open the API secrets already stored: on
   * PostgreSQL the database outlives a data directory, and a server started from a new one (no
   * POLDER_SECRET_KEY) would make a new secret.key without a word, then answer every signed
   * request 500. The oldest and the newest key are tried.
   */
  async checkSecretKey(): Promise<void> {
    const rows = await this.#driver.query<{ key: string; secret_encrypted: string }>(
      `(select key, secret_encrypted from api_keys order by created_at_ms, key limit 1)
       union all
       (select key, secret_encrypted from api_keys order by created_at_ms desc, key desc limit 1)`,
    )
    for (const row of rows) {
      try {
        this.#box.open(row.secret_encrypted)
      } catch {
        throw new SecretKeyError(
          'the secret key does not open the API secrets stored in the database: start with the ' +
            'POLDER_SECRET_KEY (or the data directory and its secret.key) they were stored with',
        )
      }
    }
  }

  async findApiKey(key: string): Promise<ApiKeyRecord | undefined> {
    // Every key is 64 lowercase hexadecimal characters (createApiKey): anything else is no one's,
    // and is not sent to the database (a NUL, which PostgreSQL cannot hold in text, failed there).
    if (!apiKeyPattern.test(key)) return undefined
    const cached = this.#keyCache.get(key)
    if (cached !== undefined) return cached ?? undefined
    const [row] = await this.#driver.query<{
      key: string
      account_id: string | number
      secret_encrypted: string
      permissions: string[] | string
      revoked_at_ms: string | number | null
    }>(
      'select key, account_id, secret_encrypted, permissions, revoked_at_ms from api_keys where key = $1',
      [key],
    )
    const record: ApiKeyRecord | null = row
      ? {
          key: row.key,
          accountId: Number(row.account_id),
          secret: this.#box.open(row.secret_encrypted),
          permissions: (Array.isArray(row.permissions)
            ? row.permissions
            : row.permissions.replace(/[{}]/g, '').split(',')) as Permission[],
          revoked: row.revoked_at_ms !== null,
        }
      : null
    // Only real keys are cached: random keys must not grow memory (and cost a query each, which
    // the IP rate limit bounds).
    // Nor a live row of a key revoked lately: read before the revocation's update, its answer
    // can come after it with a pool of connections, and would put the key back as live.
    if (record !== null && (record.revoked || !this.#revokedLately.has(key)))
      this.#keyCache.set(key, record)
    return record ?? undefined
  }

  /** Told of every revocation, once it is stored (open WebSockets give up the credential). */
  onRevoked(listener: (credential: RevokedCredential) => void): void {
    this.#revokedListeners.push(listener)
  }

  /**
   * Finds the cached keys revoked or deleted in the database behind the server's back (by an
   * operator's SQL, or another server on the same database) and forgets them, telling
   * `onRevoked`'s listeners, as a revocation through `revokeApiKey` does. The server runs this
   * on a timer, so such a change holds within one interval. Returns how many it found.
   */
  async sweepRevokedKeys(): Promise<number> {
    const live = [...this.#keyCache.entries()]
      .filter(([, record]) => record !== null && !record.revoked)
      .map(([key]) => key)
    let found = 0
    for (let start = 0; start < live.length; start += sweepBatch) {
      const batch = live.slice(start, start + sweepBatch)
      // The keys still usable: every other one of the batch is revoked or gone.
      const rows = await this.#driver.query<{ key: string }>(
        'select key from api_keys where revoked_at_ms is null and key = any($1::text[])',
        [toTextArray(batch)],
      )
      const usable = new Set(rows.map((row) => row.key))
      for (const key of batch) {
        if (usable.has(key)) continue
        this.#noteRevoked(key)
        this.#keyCache.delete(key)
        for (const listener of this.#revokedListeners) listener({ kind: 'key', key })
        found += 1
      }
    }
    return found
  }

  /**
   * The fee tier stored with the account as last read; undefined before `loadFeeTier`, and once
   * `forgetIdleFeeTiers` has let it go.
   */
  cachedFeeTier(accountId: number): number | undefined {
    const kept = this.#feeTiers.get(accountId)
    if (kept === undefined) return undefined
    kept.usedAtMs = this.#nowMs()
    return kept.tier
  }

  /**
   * Lets go of the fee tiers no order has asked for in `feeTierIdleMs`, but those `keep` names
   * (the server keeps every account with an authenticated WebSocket: its orders must find the tier
   * at once, so that none waits for a read while a later request of its connection goes ahead).
   * An account's next order reads its tier again. Returns how many were let go.
   */
  forgetIdleFeeTiers(keep: (accountId: number) => boolean = () => false): number {
    const idleBeforeMs = this.#nowMs() - feeTierIdleMs
    let forgotten = 0
    for (const [accountId, kept] of this.#feeTiers) {
      if (kept.usedAtMs > idleBeforeMs || keep(accountId)) continue
      this.#feeTiers.delete(accountId)
      forgotten += 1
    }
    return forgotten
  }

  /**
   * Reads the fee tier stored with the account (0 for none, or for a value no tier has) and keeps
   * it, unless a tier was set meanwhile.
   */
  async loadFeeTier(accountId: number): Promise<number> {
    const sets = this.#feeTierSets.get(accountId)
    const tier = this.#feeTierOf((await this.findAccount(accountId))?.feeTier ?? 0)
    if (this.#feeTierSets.get(accountId) !== sets) {
      // A set overtook this read: what it kept is newer; let go meanwhile, it is read again.
      const kept = this.#feeTiers.get(accountId)
      return kept === undefined ? this.loadFeeTier(accountId) : kept.tier
    }
    this.#feeTiers.set(accountId, { tier, usedAtMs: this.#nowMs() })
    return tier
  }

  /** Stores an operator's fee tier (0 to 7) with the account; false when there is no such account. */
  async setFeeTier(accountId: number, tier: number): Promise<boolean> {
    // Counted before and after the write: a read begun before it, or while it was under way,
    // may have seen the tier it replaces.
    const countSet = () =>
      this.#feeTierSets.set(accountId, (this.#feeTierSets.get(accountId) ?? 0) + 1)
    countSet()
    const rows = await this.#driver.query<{ id: string | number }>(
      'update accounts set fee_tier = $2 where id = $1 returning id',
      [accountId, tier],
    )
    countSet()
    if (rows.length === 0) return false
    this.#feeTiers.set(accountId, { tier, usedAtMs: this.#nowMs() })
    return true
  }

  /**
   * Reads the kept fee tiers again, so that a tier changed in the database directly (an
   * operator's SQL, another server on the same database) holds within the server's sweep
   * interval, as a revoked key does. Returns how many changed.
   */
  async refreshFeeTiers(): Promise<number> {
    const ids = [...this.#feeTiers.keys()]
    let changed = 0
    for (let start = 0; start < ids.length; start += sweepBatch) {
      const batch = ids.slice(start, start + sweepBatch)
      const sets = batch.map((id) => this.#feeTierSets.get(id))
      const rows = await this.#driver.query<{ id: string | number; fee_tier: number }>(
        'select id, fee_tier from accounts where id = any($1::bigint[])',
        [`{${batch.join(',')}}`],
      )
      const read = new Map(rows.map((row) => [Number(row.id), this.#feeTierOf(row.fee_tier)]))
      for (const [index, id] of batch.entries()) {
        // A tier set meanwhile is newer than what was read; a deleted account pays tier 0.
        if (this.#feeTierSets.get(id) !== sets[index]) continue
        const tier = read.get(id) ?? 0
        const kept = this.#feeTiers.get(id)
        // Let go meanwhile (`forgetIdleFeeTiers`): the next order reads it anew.
        if (kept === undefined || kept.tier === tier) continue
        kept.tier = tier
        changed += 1
      }
    }
    return changed
  }

  /** A stored tier as a tier: one written by SQL outside 0 to 7 counts as 0, not as a failure. */
  #feeTierOf(stored: unknown): number {
    const tier = Number(stored)
    return Number.isInteger(tier) && tier >= 0 && tier < feeTiers.length ? tier : 0
  }

  /**
   * Whether `key` was revoked lately (here, or found revoked by `sweepRevokedKeys`), from its
   * revocation's start on: a synchronous check for a request that authenticated before it and
   * is about to act. Lately: the newest 10,000, far more than a request's few moments see.
   */
  revokedLately(key: string): boolean {
    return this.#revokedLately.has(key)
  }

  #noteRevoked(key: string): void {
    this.#revokedLately.delete(key)
    this.#revokedLately.add(key)
    if (this.#revokedLately.size > revokedLatelyMax)
      this.#revokedLately.delete(this.#revokedLately.values().next().value!)
  }

  async revokeApiKey(key: string): Promise<void> {
    // Noted as it starts: a lookup begun at any time before the update is done may have read the
    // row as it was, whenever its answer comes (findApiKey).
    this.#noteRevoked(key)
    await this.#driver.query('update api_keys set revoked_at_ms = $2 where key = $1', [
      key,
      this.#nowMs(),
    ])
    this.#keyCache.delete(key)
    for (const listener of this.#revokedListeners) listener({ kind: 'key', key })
  }

  /**
   * Starts a browser session. An account holds at most `sessionsPerAccountMax` live ones: past
   * that, its oldest are signed out (their sockets lose them at the next account sweep).
   */
  async createSession(
    accountId: number,
    ttlMs: number,
  ): Promise<{ token: string; expiresAtMs: number }> {
    const token = randomBytes(32).toString('base64url')
    const expiresAtMs = this.#nowMs() + ttlMs
    await this.#driver.query(
      'insert into sessions (token_hash, account_id, created_at_ms, expires_at_ms) values ($1, $2, $3, $4)',
      [tokenHash(token), accountId, this.#nowMs(), expiresAtMs],
    )
    // Only live sessions count: those ended are deleted by the sweep a day later.
    await this.#driver.query(
      `update sessions set revoked_at_ms = $3 where account_id = $1 and token_hash in (
         select token_hash from sessions
         where account_id = $1 and revoked_at_ms is null and expires_at_ms > $3
         order by created_at_ms desc, token_hash offset $2)`,
      [accountId, sessionsPerAccountMax, this.#nowMs()],
    )
    return { token, expiresAtMs }
  }

  /**
   * Deletes the sessions that ended (expired, or revoked by a logout) more than
   * `endedSessionKeptMs` ago: a token of one is then unknown, which is answered as an ended one
   * is. Returns how many were deleted.
   */
  async deleteEndedSessions(): Promise<number> {
    const beforeMs = this.#nowMs() - endedSessionKeptMs
    const rows = await this.#driver.query<{ token_hash: string }>(
      'delete from sessions where expires_at_ms <= $1 or revoked_at_ms <= $1 returning token_hash',
      [beforeMs],
    )
    return rows.length
  }

  /** The account of a live session; undefined when unknown, expired or revoked. */
  async findSession(token: string): Promise<number | undefined> {
    return (await this.liveSession(token))?.accountId
  }

  /** A live session with its expiry; undefined when unknown, expired or revoked. */
  async liveSession(token: string): Promise<LiveSession | undefined> {
    const hash = tokenHash(token)
    const [row] = await this.#driver.query<{
      account_id: string | number
      expires_at_ms: string | number
      revoked_at_ms: unknown
    }>('select account_id, expires_at_ms, revoked_at_ms from sessions where token_hash = $1', [
      hash,
    ])
    if (!row || row.revoked_at_ms !== null || Number(row.expires_at_ms) <= this.#nowMs())
      return undefined
    return {
      accountId: Number(row.account_id),
      expiresAtMs: Number(row.expires_at_ms),
      tokenHash: hash,
    }
  }

  /**
   * Of the sessions named by their hashes (those open sockets authenticated with), ends the ones
   * revoked or deleted in the database directly, or expired: tells `onRevoked`'s listeners, as
   * a logout does. Returns how many were ended.
   */
  async sweepEndedSessions(tokenHashes: readonly string[]): Promise<number> {
    let ended = 0
    for (let start = 0; start < tokenHashes.length; start += sweepBatch) {
      const batch = tokenHashes.slice(start, start + sweepBatch)
      const rows = await this.#driver.query<{ token_hash: string }>(
        'select token_hash from sessions where revoked_at_ms is null and expires_at_ms > $2 and token_hash = any($1::text[])',
        [toTextArray(batch), this.#nowMs()],
      )
      const live = new Set(rows.map((row) => row.token_hash))
      for (const hash of batch) {
        if (live.has(hash)) continue
        for (const listener of this.#revokedListeners)
          listener({ kind: 'session', tokenHash: hash })
        ended += 1
      }
    }
    return ended
  }

  async revokeSession(token: string): Promise<void> {
    const hash = tokenHash(token)
    await this.#driver.query('update sessions set revoked_at_ms = $2 where token_hash = $1', [
      hash,
      this.#nowMs(),
    ])
    for (const listener of this.#revokedListeners) listener({ kind: 'session', tokenHash: hash })
  }
}
