// Browser sessions end to end: sign-up, login, the socket authenticated by the session token,
// logout, expiry (error 313, which the client maps to hermes_auth_invalid_session).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import {
  endedSessionKeptMs,
  sessionsPerAccountMax,
  tokenHash,
} from '../src/accounts/accountStore.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { checkpoint } from './fixtures/journalGate.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { authenticateRequest, createTrader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let nowMs = Date.now()

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    {
      nowMs: () => nowMs,
    },
  )
  baseUrl = await server.listen()
})
afterAll(() => server.close())

const post = async (path: string, body?: unknown, token?: string) => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: 'POST',
    headers: {
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  const text = await response.text()
  return { status: response.status, json: (text ? JSON.parse(text) : undefined) as Json }
}

/** Signs `email` up (once) and logs in: a new session's token. */
async function sessionFor(email: string): Promise<string> {
  const credentials = { email, password: 'correct horse battery' }
  await post('/exchange/auth/v1/signup', credentials)
  return (await post('/exchange/auth/v1/login', credentials)).json.token
}

async function socketAuthenticatedWith(token: string): Promise<{ ws: WebSocket; reply: Json }> {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
  await new Promise((resolve) => ws.once('open', resolve))
  const reply = new Promise<Json>((resolve) =>
    ws.once('message', (data) => resolve(JSON.parse(data.toString()))),
  )
  ws.send(JSON.stringify({ action: 'authenticate', token }))
  return { ws, reply: await reply }
}

type KeySocket = { ws: WebSocket; next: () => Promise<Json> }

/**
 * A new account with two API keys, `revoked` (for the test to revoke) and `kept`, and a socket
 * authenticated with each, read with `messages`.
 */
async function twoKeySockets(email: string) {
  const account = await server.accounts.createAccount(email, 'a long password')
  const revoked = await server.accounts.createApiKey(account.id, ['view', 'trade'])
  const kept = await server.accounts.createApiKey(account.id, ['view', 'trade'])
  const sockets: KeySocket[] = await Promise.all(
    [revoked, kept].map(async (apiKey) => {
      const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
      await new Promise((resolve) => ws.once('open', resolve))
      const next = messages(ws)
      ws.send(JSON.stringify(authenticateRequest(apiKey, nowMs)))
      expect(await next()).toEqual({ event: 'authenticate', authenticated: true })
      return { ws, next }
    }),
  )
  return { revoked, onRevoked: sockets[0]!, onKept: sockets[1]!, sockets }
}

/** The socket's messages from now on, one at a time, in order (each waits at most 5 s). */
function messages(ws: WebSocket): () => Promise<Json> {
  const queued: Json[] = []
  const waiting: ((message: Json) => void)[] = []
  ws.on('message', (data) => {
    const message = JSON.parse(data.toString())
    const resolve = waiting.shift()
    if (resolve) resolve(message)
    else queued.push(message)
  })
  return () =>
    queued.length > 0
      ? Promise.resolve(queued.shift())
      : new Promise((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error('no message within 5 s')), 5_000)
          waiting.push((message) => {
            clearTimeout(timer)
            resolve(message)
          })
        })
}

describe('browser sessions', () => {
  it('sign-up, login, an authenticated socket, logout', async () => {
    expect(
      (
        await post('/exchange/auth/v1/signup', {
          email: 'ada@example.com',
          password: 'correct horse battery',
        })
      ).status,
    ).toBe(201)
    expect(
      await post('/exchange/auth/v1/signup', {
        email: 'Ada@Example.com',
        password: 'another password',
      }),
    ).toEqual({
      status: 409,
      json: { errorCode: 442, error: 'An account with this email address exists.' },
    })
    expect(
      await post('/exchange/auth/v1/login', {
        email: 'ada@example.com',
        password: 'wrong password!',
      }),
    ).toEqual({
      status: 401,
      json: { errorCode: 443, error: 'The email address or the password is wrong.' },
    })
    const login = await post('/exchange/auth/v1/login', {
      email: 'ada@example.com',
      password: 'correct horse battery',
    })
    expect(login.status).toBe(200)
    expect(login.json.token).toMatch(/^[A-Za-z0-9_-]{40,}$/)

    const { ws, reply } = await socketAuthenticatedWith(login.json.token)
    expect(reply).toEqual({ event: 'authenticate', authenticated: true })
    const balance = new Promise<Json>((resolve) =>
      ws.once('message', (data) => resolve(JSON.parse(data.toString()))),
    )
    ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 1 }))
    expect(await balance).toEqual({ action: 'privateGetBalance', requestId: 1, response: [] })
    ws.close()

    expect((await post('/exchange/auth/v1/logout', undefined, login.json.token)).status).toBe(204)
    const after = await socketAuthenticatedWith(login.json.token)
    expect(after.reply).toMatchObject({ action: 'authenticate', errorCode: 313 })
    after.ws.close()
  })

  it('an expired session is refused with 313', async () => {
    const token = await sessionFor('bob@example.com')
    nowMs += 24 * 60 * 60 * 1000 + 1
    const { ws, reply } = await socketAuthenticatedWith(token)
    expect(reply).toMatchObject({
      action: 'authenticate',
      errorCode: 313,
      error: 'This session is invalid.',
    })
    ws.close()
  })

  it("a socket's authentication ends with its session: at logout, or once it expires", async () => {
    const first = await sessionFor('cleo@example.com')
    const second = await sessionFor('cleo@example.com')
    const a = await socketAuthenticatedWith(first)
    const b = await socketAuthenticatedWith(second)
    const aNext = messages(a.ws)
    const bNext = messages(b.ws)

    // Logging out of one session ends that session's socket at once, not the other's.
    expect((await post('/exchange/auth/v1/logout', undefined, first)).status).toBe(204)
    expect(await aNext()).toEqual({ event: 'unauthenticate' })
    a.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 2 }))
    expect(await aNext()).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
    b.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 3 }))
    expect(await bNext()).toEqual({ action: 'privateGetBalance', requestId: 3, response: [] })

    // The other runs out with its session: the next request finds it ended.
    nowMs += 24 * 60 * 60 * 1000 + 1
    b.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 4 }))
    expect(await bNext()).toEqual({ event: 'unauthenticate' })
    expect(await bNext()).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
    a.ws.close()
    b.ws.close()
  })

  it("a socket's authentication ends when its API key is revoked", async () => {
    const { revoked, onRevoked, onKept, sockets } = await twoKeySockets('dan@example.com')
    await server.accounts.revokeApiKey(revoked.key)
    expect(await onRevoked.next()).toEqual({ event: 'unauthenticate' })
    onRevoked.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 5 }))
    expect(await onRevoked.next()).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
    onKept.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 6 }))
    expect(await onKept.next()).toEqual({ action: 'privateGetBalance', requestId: 6, response: [] })
    for (const { ws } of sockets) ws.close()
  })

  it('an API key revoked in the database directly is found by the sweep, and its sockets unauthenticated', async () => {
    const { revoked, onRevoked, onKept, sockets } = await twoKeySockets('frank@example.com')
    // Behind the server's back, as an operator's SQL would.
    await server.storage.query('update api_keys set revoked_at_ms = $2 where key = $1', [
      revoked.key,
      nowMs,
    ])
    expect(await server.accountSweep.run()).toMatchObject({ revokedKeys: 1 })
    expect(await onRevoked.next()).toEqual({ event: 'unauthenticate' })
    onRevoked.ws.send(JSON.stringify(authenticateRequest(revoked, nowMs)))
    expect(await onRevoked.next()).toMatchObject({ action: 'authenticate', errorCode: 305 })
    onKept.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 6 }))
    expect(await onKept.next()).toEqual({ action: 'privateGetBalance', requestId: 6, response: [] })
    expect(await server.accountSweep.run()).toMatchObject({ revokedKeys: 0 })
    for (const { ws } of sockets) ws.close()
  })

  it('the sweep ends, on sockets that only listen, a session run out or revoked in the database', async () => {
    const trader = await createTrader(server, 'ivan@example.com', { EUR: '10000' })
    const other = await server.accounts.createAccount('judy@example.com', 'a long password')
    const expiring = await server.accounts.createSession(trader.accountId, 60_000)
    const deleted = await server.accounts.createSession(other.id, 86_400_000)
    const kept = await server.accounts.createSession(other.id, 86_400_000)
    const [onExpiring, onDeleted, onKept] = await Promise.all(
      [expiring, deleted, kept].map(async ({ token }) => {
        const { ws, reply } = await socketAuthenticatedWith(token)
        expect(reply).toEqual({ event: 'authenticate', authenticated: true })
        return { ws, next: messages(ws) }
      }),
    )
    onExpiring!.ws.send(
      JSON.stringify({
        action: 'subscribe',
        channels: [{ name: 'account', markets: ['BTC-EUR'] }],
      }),
    )
    expect(await onExpiring!.next()).toMatchObject({ event: 'subscribed' })
    // Behind the server's back, as an operator's SQL would; and the first session runs out.
    await server.storage.query('delete from sessions where token_hash = $1', [
      tokenHash(deleted.token),
    ])
    nowMs += 120_000
    expect(await server.accountSweep.run()).toMatchObject({ endedSessions: 2 })
    expect(await onExpiring!.next()).toEqual({ event: 'unauthenticate' })
    expect(await onDeleted!.next()).toEqual({ event: 'unauthenticate' })
    // The account's next order is not told to the socket whose session ran out.
    const placed = await signedRequest(baseUrl, trader, 'POST', '/v2/order', {
      body: {
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        amount: '0.01',
        price: '1000',
        operatorId: 1,
      },
      timestampMs: nowMs,
    })
    expect(placed.status).toBe(200)
    onExpiring!.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 7 }))
    expect(await onExpiring!.next()).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
    onKept!.ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 8 }))
    expect(await onKept!.next()).toEqual({
      action: 'privateGetBalance',
      requestId: 8,
      response: [],
    })
    expect(await server.accountSweep.run()).toMatchObject({ endedSessions: 0 })
    for (const { ws } of [onExpiring!, onDeleted!, onKept!]) ws.close()
  })

  /**
   * Sends `request` (an authenticate) on a new socket, holds it once the account store's
   * `method` has answered it (as a slow database would), runs `revoke` meanwhile and lets it go:
   * the socket's next two replies, the authenticate's and then a private call's.
   */
  async function authenticateRevokedMeanwhile(
    method: 'liveSession' | 'loadFeeTier',
    request: object,
    revoke: () => Promise<unknown>,
  ): Promise<[Json, Json]> {
    const accounts = server.accounts as unknown as Record<string, (...args: unknown[]) => unknown>
    const original = accounts[method]!
    const { reached, isReached, release, released } = checkpoint()
    accounts[method] = async (...args) => {
      const answer = await original.apply(server.accounts, args)
      reached()
      await released
      return answer
    }
    try {
      const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
      await new Promise((resolve) => ws.once('open', resolve))
      const next = messages(ws)
      ws.send(JSON.stringify(request))
      await isReached
      await revoke()
      release()
      const answer = await next()
      ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 9 }))
      const after = await next()
      ws.close()
      return [answer, after]
    } finally {
      accounts[method] = original
    }
  }

  it('a logout while an authenticate is looking the session up leaves the socket unauthenticated', async () => {
    const token = await sessionFor('mallory@example.com')
    const [answer, after] = await authenticateRevokedMeanwhile(
      'liveSession',
      { action: 'authenticate', token },
      () => post('/exchange/auth/v1/logout', undefined, token),
    )
    expect(answer).toMatchObject({ action: 'authenticate', errorCode: 313 })
    expect(after).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
  })

  it('a key revoked while an authenticate warms its account fails it with 305, its one reply', async () => {
    const account = await server.accounts.createAccount('warm@example.com', 'a long password')
    const apiKey = await server.accounts.createApiKey(account.id, ['view', 'trade'])
    const [answer, after] = await authenticateRevokedMeanwhile(
      'loadFeeTier',
      authenticateRequest(apiKey, nowMs),
      () => server.accounts.revokeApiKey(apiKey.key),
    )
    expect(answer).toMatchObject({ action: 'authenticate', errorCode: 305 })
    expect(after).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
  })

  it('a failed authenticate leaves an authenticated socket unauthenticated, told by its error alone', async () => {
    const account = await server.accounts.createAccount('eve@example.com', 'a long password')
    const apiKey = await server.accounts.createApiKey(account.id, ['view', 'trade'])
    const token = await sessionFor('fay@example.com')
    const unknownToken = 'x'.repeat(43)
    const attempts = [
      {
        first: authenticateRequest(apiKey, nowMs),
        failed: authenticateRequest({ key: apiKey.key, secret: 'not the secret' }, nowMs),
        errorCode: 309,
      },
      {
        first: { action: 'authenticate', token },
        failed: { action: 'authenticate', token: unknownToken },
        errorCode: 313,
      },
      {
        first: authenticateRequest(apiKey, nowMs),
        failed: { action: 'authenticate', key: apiKey.key },
        errorCode: 203,
      },
    ]
    for (const [index, { first, failed, errorCode }] of attempts.entries()) {
      const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
      await new Promise((resolve) => ws.once('open', resolve))
      const next = messages(ws)
      ws.send(JSON.stringify(first))
      expect(await next()).toEqual({ event: 'authenticate', authenticated: true })
      ws.send(JSON.stringify(failed))
      expect(await next()).toMatchObject({ action: 'authenticate', errorCode })
      // The next message is the answer to the next request: no `unauthenticate` event between.
      ws.send(JSON.stringify({ action: 'privateGetBalance', requestId: 10 + index }))
      expect(await next()).toMatchObject({ action: 'privateGetBalance', errorCode: 300 })
      ws.close()
    }
  })

  it('bad bodies get an errorCode and words, not stack traces', async () => {
    const response = await post('/exchange/auth/v1/login', { email: 'x@example.com' })
    expect(response).toEqual({
      status: 400,
      json: { errorCode: 205, error: 'Send a JSON body with email and password.' },
    })
    const notJson = await fetch(`${baseUrl}/exchange/auth/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email": ',
    })
    expect(notJson.status).toBe(400)
    expect(await notJson.json()).toEqual({ errorCode: 102, error: 'Invalid JSON.' })
    const weak = await post('/exchange/auth/v1/signup', {
      email: 'c@example.com',
      password: 'short',
    })
    expect(weak).toEqual({
      status: 400,
      json: { errorCode: 205, error: 'password must have 10 to 256 characters' },
    })
    // A control character (a NUL cannot even be stored) is no address: refused, not a 500.
    const withNul = { email: 'n\u0000@example.com', password: 'correct horse battery' }
    expect(await post('/exchange/auth/v1/signup', withNul)).toEqual({
      status: 400,
      json: { errorCode: 205, error: 'email is not a valid address' },
    })
    expect(await post('/exchange/auth/v1/login', withNul)).toMatchObject({
      status: 401,
      json: { errorCode: 443 },
    })
    expect(await post('/exchange/auth/v1/logout')).toEqual({
      status: 401,
      json: { errorCode: 300, error: 'Authentication is required for this endpoint.' },
    })
  })

  it('guessing passwords from one address is stopped with 105 until the ban ends', async () => {
    nowMs += 60 * 60 * 1000 // a fresh minute: the attempts above are forgotten
    // A different email each time, so that only the address's budget counts here.
    const guess = (attempt: number) =>
      post('/exchange/auth/v1/login', {
        email: `guess-${attempt}@example.com`,
        password: `guess ${attempt}!!`,
      })
    // 1,000 points a minute; an attempt costs 51 (1 for any web call, 50 for the slow hash):
    // nineteen wrong guesses, then a ban.
    for (let attempt = 0; attempt < 19; attempt += 1)
      expect((await guess(attempt)).json.errorCode).toBe(443)
    const banned = await guess(19)
    expect(banned.status).toBe(429)
    expect(banned.json.errorCode).toBe(105)
    expect(banned.json.error).toMatch(/^Your IP or API key has been banned .* expires at \d+\.$/)
    const until = Number(banned.json.error.split(' at ').pop().slice(0, -1))
    expect(until).toBeGreaterThan(nowMs)
    nowMs = until + 1
    expect((await guess(20)).json.errorCode).toBe(443)
  })

  it("guessing one account's password from many addresses is stopped after 10 failures, the right password too, until the window ends", async () => {
    nowMs += 60 * 60 * 1000
    const email = 'grace@example.com'
    const password = 'correct horse battery'
    await post('/exchange/auth/v1/signup', { email, password })
    let address = 0
    const login = (tried: string, as = email) =>
      server.app.inject({
        method: 'POST',
        url: '/exchange/auth/v1/login',
        remoteAddress: `198.51.100.${++address}`,
        payload: { email: as, password: tried },
      })
    // A success forgets the failures before it.
    for (let attempt = 0; attempt < 9; attempt += 1)
      expect((await login(`guess ${attempt}!!`)).json().errorCode).toBe(443)
    expect((await login(password)).statusCode).toBe(200)
    for (let attempt = 0; attempt < 10; attempt += 1)
      expect((await login(`guess ${attempt}!!`)).json().errorCode).toBe(443)
    // From yet another address, with the right password, in another case: refused unchecked.
    const blocked = await login(password, ' Grace@Example.com')
    expect(blocked.statusCode).toBe(429)
    expect(blocked.json().errorCode).toBe(105)
    const until = Number(blocked.json().error.split(' at ').pop().slice(0, -1))
    expect(until).toBe(nowMs + 15 * 60 * 1000)
    // An email without an account is counted alike: the refusal tells nothing of its existence.
    for (let attempt = 0; attempt < 10; attempt += 1)
      await login(`guess ${attempt}!!`, 'nobody@example.com')
    expect((await login(password, 'nobody@example.com')).json().errorCode).toBe(105)
    // Other accounts are not touched, and the window's end lets the owner in.
    expect((await login(password, 'ada@example.com')).statusCode).toBe(200)
    nowMs = until
    expect((await login(password)).statusCode).toBe(200)
    // Guesses sent all at once are counted as they arrive, before their hashes: ten are
    // checked, the rest refused, the right password among them too.
    const burst = await Promise.all(
      Array.from({ length: 30 }, (_, attempt) =>
        login(attempt === 29 ? password : `burst ${attempt}!!`),
      ),
    )
    const codes = burst.map((response) => response.json().errorCode)
    expect(codes.filter((code) => code === 443)).toHaveLength(10)
    expect(codes.filter((code) => code === 105)).toHaveLength(20)
    expect(codes.at(-1)).toBe(105)
  })
})

describe('the sessions table', () => {
  const liveOf = async (accountId: number) =>
    Number(
      (
        await server.storage.query<{ n: string | number }>(
          'select count(*) as n from sessions where account_id = $1 and revoked_at_ms is null and expires_at_ms > $2',
          [accountId, nowMs],
        )
      )[0]!.n,
    )
  const rowsOf = async (accountId: number) =>
    Number(
      (
        await server.storage.query<{ n: string | number }>(
          'select count(*) as n from sessions where account_id = $1',
          [accountId],
        )
      )[0]!.n,
    )

  it('holds at most 100 live sessions an account: a login past them signs the oldest out', async () => {
    const account = await server.accounts.createAccount('many@example.com', 'a long password')
    const tokens: string[] = []
    for (let login = 0; login < sessionsPerAccountMax + 5; login += 1) {
      tokens.push((await server.accounts.createSession(account.id, 60_000)).token)
      nowMs += 1 // each login a millisecond after the last
    }
    expect(await liveOf(account.id)).toBe(sessionsPerAccountMax)
    for (const token of tokens.slice(0, 5))
      expect(await server.accounts.findSession(token)).toBeUndefined()
    for (const token of tokens.slice(5))
      expect(await server.accounts.findSession(token)).toBe(account.id)
    // Another account's sessions are its own.
    const other = await server.accounts.createAccount('few@example.com', 'a long password')
    const kept = (await server.accounts.createSession(other.id, 60_000)).token
    expect(await server.accounts.findSession(kept)).toBe(other.id)
    expect(await liveOf(account.id)).toBe(sessionsPerAccountMax)
  })

  it('counts only live sessions: those signed out or expired never push out one in use', async () => {
    const account = await server.accounts.createAccount('phone@example.com', 'a long password')
    const phone = (await server.accounts.createSession(account.id, 86_400_000)).token
    for (let login = 0; login < sessionsPerAccountMax + 5; login += 1) {
      nowMs += 1
      const { token } = await server.accounts.createSession(account.id, 86_400_000)
      await server.accounts.revokeSession(token)
    }
    nowMs += 1
    const laptop = (await server.accounts.createSession(account.id, 86_400_000)).token
    expect(await server.accounts.findSession(laptop)).toBe(account.id)
    expect(await server.accounts.findSession(phone)).toBe(account.id)
  })

  it('loses the rows of sessions ended (expired or signed out) a day before, at the sweep', async () => {
    nowMs += endedSessionKeptMs + 1 // the rows the tests above ended are gone at the next sweep
    const account = await server.accounts.createAccount('ended@example.com', 'a long password')
    const expiring = (await server.accounts.createSession(account.id, 60_000)).token
    const signedOut = (await server.accounts.createSession(account.id, 7 * endedSessionKeptMs))
      .token
    const live = (await server.accounts.createSession(account.id, 7 * endedSessionKeptMs)).token
    await server.accounts.revokeSession(signedOut)
    nowMs += 60_000
    await server.accountSweep.run()
    expect(await rowsOf(account.id)).toBe(3) // ended, but not a day ago
    nowMs += endedSessionKeptMs
    const swept = await server.accountSweep.run()
    expect(swept.sessionsDeleted).toBeGreaterThanOrEqual(2)
    expect(await rowsOf(account.id)).toBe(1)
    // A deleted session's token is refused as an ended one is; the live one goes on.
    for (const token of [expiring, signedOut]) {
      expect(await server.accounts.findSession(token)).toBeUndefined()
      const { reply, ws } = await socketAuthenticatedWith(token)
      expect(reply.errorCode).toBe(313)
      ws.close()
    }
    expect(await server.accounts.findSession(live)).toBe(account.id)
  })
})
