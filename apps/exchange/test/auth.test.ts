import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { AccountExistsError, AccountStore } from '../src/accounts/accountStore.ts'
import { createSecretBox } from '../src/accounts/secretBox.ts'
import {
  type SignedRequest,
  sign,
  verifySignedRequest,
  websocketSignedRequest,
} from '../src/auth/signature.ts'
import { openStorage } from '../src/storage/openStorage.ts'
import type { SqlDriver } from '../src/storage/sqlDriver.ts'

describe('request signatures (protocol §2.1 test vectors, secret "bitvavo")', () => {
  it('signs a POST /v2/order with its exact body', () => {
    const body =
      '{"market":"BTC-EUR","side":"buy","price":"5000","amount":"1.23","orderType":"limit"}'
    expect(sign('bitvavo', 1548172481125, 'POST', '/v2/order', body)).toBe(
      '44d022723a20973a18f7ee97398b9fdd405d2d019c8d39e24b8cc0dcb39ca016',
    )
  })

  it('signs the WebSocket authenticate string GET /v2/websocket', () => {
    expect(sign('bitvavo', 1548175200641, 'GET', '/v2/websocket')).toBe(
      '653fc0505431c63a043273da4bd2f0927eae83948d796084f313e5d1131b0d6f',
    )
  })
})

describe('accounts, API keys and sessions', () => {
  let driver: SqlDriver
  let store: AccountStore
  let nowMs = 1_763_800_000_000
  beforeAll(async () => {
    driver = await openStorage({ kind: 'embedded', dataDir: undefined })
    store = new AccountStore(driver, createSecretBox(randomBytes(32)), () => nowMs)
  })
  afterAll(() => driver.close())

  it('creates an account once per email; a second sign-up is refused', async () => {
    const account = await store.createAccount('Ada@Example.com', 'correct horse battery')
    expect(account.email).toBe('ada@example.com')
    await expect(store.createAccount('ada@example.com', 'another password')).rejects.toBeInstanceOf(
      AccountExistsError,
    )
  })

  it('rejects an invalid email and a short password with words', async () => {
    await expect(store.createAccount('not-an-email', 'long enough password')).rejects.toThrow(
      'email is not a valid address',
    )
    await expect(store.createAccount('bob@example.com', 'short')).rejects.toThrow(
      'password must have 10 to 256 characters',
    )
  })

  it('logs in with the right password only, and never stores the password', async () => {
    await store.createAccount('carol@example.com', 'carols secret phrase')
    expect((await store.login('carol@example.com', 'carols secret phrase'))?.email).toBe(
      'carol@example.com',
    )
    expect(await store.login('carol@example.com', 'wrong password!!')).toBeUndefined()
    expect(await store.login('nobody@example.com', 'carols secret phrase')).toBeUndefined()
    const rows = await driver.query<{ password_hash: string }>(
      "select password_hash from accounts where email = 'carol@example.com'",
    )
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$/)
    expect(rows[0]!.password_hash).not.toContain('carols secret phrase')
  })

  it('keeps API secrets encrypted at rest and returns them for signature checks', async () => {
    const account = await store.createAccount('dave@example.com', 'daves secret phrase')
    const { key, secret } = await store.createApiKey(account.id, ['view', 'trade'])
    expect(key).toMatch(/^[0-9a-f]{64}$/)
    const rows = await driver.query<{ secret_encrypted: string }>(
      'select secret_encrypted from api_keys where key = $1',
      [key],
    )
    expect(rows[0]!.secret_encrypted).not.toContain(secret)
    const found = await store.findApiKey(key)
    expect(found).toMatchObject({
      accountId: account.id,
      secret,
      permissions: ['view', 'trade'],
      revoked: false,
    })
  })

  it('sessions work until they expire or are revoked', async () => {
    const account = await store.createAccount('erin@example.com', 'erins secret phrase')
    const session = await store.createSession(account.id, 60_000)
    expect(await store.findSession(session.token)).toBe(account.id)
    nowMs += 60_000
    expect(await store.findSession(session.token)).toBeUndefined()
    const second = await store.createSession(account.id, 60_000)
    await store.revokeSession(second.token)
    expect(await store.findSession(second.token)).toBeUndefined()
    expect(await store.findSession('never-issued')).toBeUndefined()
  })

  describe('verifying a signed request', () => {
    let key: string
    let secret: string
    const request = (overrides: Partial<SignedRequest> = {}): SignedRequest => {
      const base = {
        key,
        timestampMs: nowMs,
        windowMs: 10_000,
        method: 'GET',
        path: '/v2/balance',
        body: '',
        ...overrides,
      }
      return {
        signature: sign(secret, base.timestampMs, base.method, base.path, base.body),
        ...base,
        ...overrides,
      }
    }
    const find = (k: string) => store.findApiKey(k)

    beforeAll(async () => {
      const account = await store.createAccount('frank@example.com', 'franks secret phrase')
      ;({ key, secret } = await store.createApiKey(account.id, ['view']))
    })

    it('accepts a correct signature within the window', async () => {
      expect(await verifySignedRequest(request(), nowMs, find, 'view')).toMatchObject({ ok: true })
    })
    it('305 for an unknown key', async () => {
      expect(
        await verifySignedRequest(request({ key: 'f'.repeat(64) }), nowMs, find, 'view'),
      ).toEqual({ ok: false, errorCode: 305 })
    })
    it('304 when the request arrives after its window, or too far in the future', async () => {
      expect(
        await verifySignedRequest(request({ timestampMs: nowMs - 10_001 }), nowMs, find, 'view'),
      ).toEqual({ ok: false, errorCode: 304 })
      expect(
        await verifySignedRequest(request({ timestampMs: nowMs + 1_001 }), nowMs, find, 'view'),
      ).toEqual({ ok: false, errorCode: 304 })
    })
    it('309 when the signature does not cover the raw path and body as sent', async () => {
      const signed = request()
      expect(
        await verifySignedRequest(
          { ...signed, path: '/v2/balance?symbol=BTC' },
          nowMs,
          find,
          'view',
        ),
      ).toEqual({ ok: false, errorCode: 309 })
      expect(
        await verifySignedRequest({ ...signed, signature: 'ab'.repeat(32) }, nowMs, find, 'view'),
      ).toEqual({ ok: false, errorCode: 309 })
    })
    it('310, 311, 312 when the key lacks trade, view or withdraw permission', async () => {
      expect(await verifySignedRequest(request(), nowMs, find, 'trade')).toEqual({
        ok: false,
        errorCode: 310,
      })
      expect(await verifySignedRequest(request(), nowMs, find, 'withdraw')).toEqual({
        ok: false,
        errorCode: 312,
      })
      const account = await store.createAccount('gina@example.com', 'ginas secret phrase')
      const tradeOnly = await store.createApiKey(account.id, ['trade'])
      const signed = { ...websocketSignedRequest(tradeOnly.key, '', nowMs), path: '/v2/balance' }
      signed.signature = sign(tradeOnly.secret, nowMs, 'GET', '/v2/balance')
      expect(await verifySignedRequest(signed, nowMs, find, 'view')).toEqual({
        ok: false,
        errorCode: 311,
      })
    })
    it('305 once a key is revoked', async () => {
      await store.revokeApiKey(key)
      expect(await verifySignedRequest(request(), nowMs, find, 'view')).toEqual({
        ok: false,
        errorCode: 305,
      })
    })
  })
})
