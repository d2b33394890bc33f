// Conformance of what the server serves today, over real HTTP and real WebSockets on loopback.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { sign } from '../src/auth/signature.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'
import { startTestServer } from './fixtures/testServer.ts'

const fixedNowMs = 1_763_800_000_000
let server: ExchangeServer
let baseUrl: string

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', wsMessageBytesMax: 1024, dataDir: undefined },
    testListing,
    { nowMs: () => fixedNowMs },
  )
  baseUrl = await server.listen()
})
afterAll(() => server.close())

function openSocket(path = '/v2'): Promise<WebSocket> {
  const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}${path}`)
  return new Promise((resolve, reject) => {
    ws.once('open', () => resolve(ws))
    ws.once('error', reject)
  })
}

function nextMessage(ws: WebSocket): Promise<string> {
  return new Promise((resolve) => ws.once('message', (data) => resolve(data.toString())))
}

async function exchange(ws: WebSocket, text: string): Promise<Record<string, unknown>> {
  const reply = nextMessage(ws)
  ws.send(text)
  return JSON.parse(await reply)
}

describe('REST', () => {
  it('GET /v2/time answers {time} in integer milliseconds', async () => {
    const response = await fetch(`${baseUrl}/v2/time`)
    expect(response.status).toBe(200)
    expect(await response.json()).toEqual({ time: fixedNowMs })
  })

  it('an unknown route answers errorCode 110 with HTTP 404', async () => {
    const response = await fetch(`${baseUrl}/v2/nothing-here`)
    expect(response.status).toBe(404)
    const body = (await response.json()) as { errorCode: number; error: unknown }
    expect(body.errorCode).toBe(110)
    expect(typeof body.error).toBe('string')
  })

  it('a JSON body that does not parse answers errorCode 102 with HTTP 400', async () => {
    const response = await fetch(`${baseUrl}/v2/order`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"market":',
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ errorCode: 102, error: 'Invalid JSON.' })
  })
})

describe('REST requests Fastify refuses before any route runs', () => {
  it('a path that cannot be decoded, or with a parameter too long to read, answers errorCode 110', async () => {
    const badUrl = await fetch(`${baseUrl}/v2/%ZZ/book`)
    expect(badUrl.status).toBe(400)
    expect(await badUrl.json()).toEqual({
      errorCode: 110,
      error: 'Invalid endpoint. Please check url and HTTP method.',
    })
    const longParam = await fetch(`${baseUrl}/exchange/payments/v1/deposits/${'a'.repeat(120)}`)
    expect(longParam.status).toBe(414)
    expect(await longParam.json()).toEqual({
      errorCode: 110,
      error: 'Invalid endpoint. Please check url and HTTP method.',
    })
  })

  it('a signed body sent as text/plain answers errorCode 102, not a signature error', async () => {
    const account = await server.accounts.createAccount('plain@example.com', 'a long password')
    const apiKey = await server.accounts.createApiKey(account.id, ['view', 'trade'])
    const body = JSON.stringify({
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '0.01',
      price: '3000',
    })
    const response = await fetch(`${baseUrl}/v2/order`, {
      method: 'POST',
      headers: {
        'bitvavo-access-key': apiKey.key,
        'bitvavo-access-timestamp': String(fixedNowMs),
        'bitvavo-access-signature': sign(apiKey.secret, fixedNowMs, 'POST', '/v2/order', body),
        'content-type': 'text/plain',
      },
      body,
    })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({ errorCode: 102, error: 'Invalid JSON.' })
  })
})

describe('WebSocket', () => {
  it.each(['/v2', '/v2/'])('accepts connections on %s', async (path) => {
    const ws = await openSocket(path)
    const reply = await exchange(ws, '{"action":"getTime"}')
    expect(reply).toEqual({ action: 'getTime', response: { time: fixedNowMs } })
    ws.close()
  })

  it('echoes a requestId beyond 2^53 digit for digit, as ccxt needs', async () => {
    const ws = await openSocket()
    const reply = nextMessage(ws)
    ws.send('{"action":"getTime","requestId":17638000000001234}')
    const text = await reply
    expect(text).toContain('"requestId":17638000000001234')
    ws.close()
  })

  it('answers an unknown action with errorCode 415 and keeps the connection usable', async () => {
    const ws = await openSocket()
    const reply = await exchange(ws, '{"action":"makeMeRich","requestId":3}')
    expect(reply).toMatchObject({ action: 'makeMeRich', requestId: 3, errorCode: 415 })
    expect(await exchange(ws, '{"action":"getTime"}')).toHaveProperty('response.time', fixedNowMs)
    ws.close()
  })

  it('answers malformed JSON with errorCode 102 and keeps the connection usable', async () => {
    const ws = await openSocket()
    expect(await exchange(ws, '{"action":')).toMatchObject({ errorCode: 102 })
    expect(await exchange(ws, '[1,2]')).toMatchObject({ errorCode: 102 })
    expect(await exchange(ws, '{"action":"getTime"}')).toHaveProperty('response.time')
    ws.close()
  })

  it('answers a message without an action with errorCode 203 naming the parameter', async () => {
    const ws = await openSocket()
    const reply = await exchange(ws, '{"requestId":9}')
    expect(reply).toMatchObject({ requestId: 9, errorCode: 203 })
    expect(reply.error).toContain('action')
    ws.close()
  })

  it('answers a message above the size limit with 102 and keeps the socket usable', async () => {
    const ws = await openSocket()
    const tooLarge = await exchange(
      ws,
      JSON.stringify({ action: 'getTime', requestId: 1, padding: 'x'.repeat(2048) }),
    )
    expect(tooLarge).toEqual({ errorCode: 102, error: expect.any(String) })
    expect(await exchange(ws, '{"action":"getTime","requestId":2}')).toMatchObject({
      action: 'getTime',
      requestId: 2,
      response: { time: fixedNowMs },
    })
    ws.close()
  })

  it('closes a socket that sends a message over 4 times the size limit with 1009', async () => {
    const ws = await openSocket()
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
    ws.send(JSON.stringify({ action: 'getTime', padding: 'x'.repeat(4 * 1024 + 1) }))
    expect(await closed).toBe(1009)
  })

  it('says what is left of the budget on refusals before any endpoint, each costing one point', async () => {
    const remaining = (response: Response) =>
      Number(response.headers.get('bitvavo-ratelimit-remaining'))
    const refusals: [string, RequestInit, number][] = [
      ['/v2/nope', {}, 110],
      ['/v2/order', { method: 'PATCH' }, 110],
      [
        '/v2/order',
        { method: 'POST', body: '{bad', headers: { 'content-type': 'application/json' } },
        102,
      ],
      ['/nope', {}, 110],
      ['/exchange/nope', {}, 110],
      ['/v2/%ZZ', {}, 110],
      [
        '/exchange/savings-plans/v1',
        { method: 'POST', body: 'plain', headers: { 'content-type': 'text/plain' } },
        102,
      ],
    ]
    let before = remaining(await fetch(`${baseUrl}/v2/time`))
    for (const [path, init, errorCode] of refusals) {
      const response = await fetch(`${baseUrl}${path}`, init)
      expect(((await response.json()) as { errorCode: number }).errorCode, path).toBe(errorCode)
      expect(remaining(response), path).toBe(before - 1)
      before -= 1
    }
  })

  it('answers protocol-level pings with pongs', async () => {
    const ws = await openSocket()
    const pong = new Promise<string>((resolve) =>
      ws.once('pong', (data) => resolve(data.toString())),
    )
    ws.ping('keep-alive')
    expect(await pong).toBe('keep-alive')
    ws.close()
  })
})

describe('shutdown', () => {
  it('closes open sockets with 1001 (going away)', async () => {
    const other = await createExchangeServer(
      {
        ...defaultConfig,
        port: 0,
        logLevel: 'silent',
        dataDir: undefined,
      },
      testListing,
    )
    const url = await other.listen()
    const ws = new WebSocket(`${url.replace('http', 'ws')}/v2`)
    await new Promise((resolve) => ws.once('open', resolve))
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)))
    await other.close()
    expect(await closed).toBe(1001)
  })
})

describe('operations', () => {
  it('serves Prometheus metrics with command counts, open sockets and event-loop lag', async () => {
    const deposit = (amount: string, reference: string) =>
      server.service.submit({
        type: 'deposit',
        timestamp: 1,
        accountId: 1,
        asset: 'EUR',
        amount,
        reference,
      })
    const ws = new WebSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    await new Promise((resolve) => ws.once('open', resolve))
    const answered = new Promise((resolve) => ws.once('message', resolve))
    ws.send(JSON.stringify({ action: 'getTime', requestId: 1 }))
    await answered
    await deposit('0', 'refused')
    await deposit('1', 'taken')
    const response = await fetch(`${baseUrl}/metrics`)
    expect(response.status).toBe(200)
    const text = await response.text()
    expect(text).toMatch(/^polder_websocket_connections \d+$/m)
    for (const archive of ['trades', 'candles', 'fills', 'orders', 'transfers'])
      expect(text).toMatch(
        new RegExp(`^polder_archive_waiting\\{archive="${archive}"\\} \\d+$`, 'm'),
      )
    expect(text).toMatch(/polder_commands_total\{kind="deposit",outcome="accepted"\} 1/)
    expect(text).toMatch(/polder_commands_total\{kind="deposit",outcome="205"\} 1/)
    expect(text).toContain('polder_nodejs_eventloop_lag_seconds')
    // The journal's counters are the journal's own figures (the accepted deposit is among them).
    const counter = (name: string) => Number(new RegExp(`^${name} (\\d+)$`, 'm').exec(text)?.[1])
    expect(counter('polder_journal_records_total')).toBe(server.journal.recordsWritten)
    expect(counter('polder_journal_commits_total')).toBe(server.journal.batchesWritten)
    expect(server.journal.recordsWritten).toBeGreaterThan(0)
    expect(server.journal.batchesWritten).toBeLessThanOrEqual(server.journal.recordsWritten)
    // The socket's request, timed from its arrival to its reply.
    expect(counter('polder_ws_request_seconds_count')).toBeGreaterThanOrEqual(1)
    expect(text).toMatch(/^polder_ws_request_seconds_bucket\{le="0\.001"\} \d+$/m)
    // Commands are counted once each, however often /metrics is read between them.
    await deposit('1', 'taken again')
    for (const total of [2, 2]) {
      const again = await (await fetch(`${baseUrl}/metrics`)).text()
      expect(again).toContain(`polder_commands_total{kind="deposit",outcome="accepted"} ${total}`)
      expect(again).toContain('polder_commands_total{kind="deposit",outcome="205"} 1')
    }
    ws.close()
  })

  it('serves /metrics to another host only with the metrics token, never the admin token', async () => {
    const from = { method: 'GET' as const, url: '/metrics', remoteAddress: '192.0.2.10' }
    const anonymous = await server.app.inject(from)
    expect(anonymous.statusCode).toBe(403)
    expect(anonymous.json().error).toMatch(/metrics token/)
    const wrong = await server.app.inject({ ...from, headers: { authorization: 'Bearer nope' } })
    expect(wrong.statusCode).toBe(403)
    // The admin token stays on the machine: it opens nothing from another host.
    const admin = await server.app.inject({
      ...from,
      headers: { authorization: `Bearer ${server.adminToken}` },
    })
    expect(admin.statusCode).toBe(403)
    const scraper = await server.app.inject({
      ...from,
      headers: { authorization: `Bearer ${server.metricsToken}` },
    })
    expect(scraper.statusCode).toBe(200)
    expect(scraper.body).toMatch(/^polder_websocket_connections \d+$/m)
    // Without a trusted proxy, X-Forwarded-For is the client's own word: it changes nothing.
    const spoofed = await server.app.inject({
      ...from,
      headers: { 'x-forwarded-for': '127.0.0.1' },
    })
    expect(spoofed.statusCode).toBe(403)
    // The scheme is case-insensitive in HTTP.
    const lowerCase = await server.app.inject({
      ...from,
      headers: { authorization: `bearer ${server.metricsToken}` },
    })
    expect(lowerCase.statusCode).toBe(200)
  })
})

describe('behind a trusted proxy on loopback (a public URL set), with two sockets an address', () => {
  let proxied: ExchangeServer
  let proxiedUrl: string
  beforeAll(async () => {
    ;({ server: proxied, baseUrl: proxiedUrl } = await startTestServer({
      publicUrl: 'https://polder.example',
      trustProxy: 'loopback',
      wsConnectionsPerIpMax: 2,
    }))
  })
  afterAll(() => proxied.close())

  it('refuses a third socket from one address with 429 until one of its two closes', async () => {
    const open = () => {
      const ws = new WebSocket(`${proxiedUrl.replace('http', 'ws')}/v2`)
      return new Promise<WebSocket | number>((resolve) => {
        ws.once('open', () => resolve(ws))
        ws.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
      })
    }
    const first = (await open()) as WebSocket
    const second = (await open()) as WebSocket
    expect(await open()).toBe(429)
    const closed = new Promise((resolve) => first.once('close', resolve))
    first.close()
    await closed
    // The server hears of the close a moment after the client.
    let third: WebSocket | number = 429
    for (let attempt = 0; attempt < 50 && third === 429; attempt += 1) {
      third = await open()
      if (third === 429) await new Promise((resolve) => setTimeout(resolve, 20))
    }
    expect(third).toBeInstanceOf(WebSocket)
    second.close()
    ;(third as WebSocket).close()
  })

  it("counts sockets and rate limits by the client the proxy forwards for, and keeps loopback-only endpoints from the proxy's clients", async () => {
    const open = (client: string) => {
      const ws = new WebSocket(`${proxiedUrl.replace('http', 'ws')}/v2`, {
        headers: { 'x-forwarded-for': client },
      })
      return new Promise<WebSocket | number>((resolve) => {
        ws.once('open', () => resolve(ws))
        ws.once('unexpected-response', (_request, response) => resolve(response.statusCode ?? 0))
      })
    }
    const sockets = [await open('203.0.113.1'), await open('203.0.113.1')]
    expect(await open('203.0.113.1')).toBe(429)
    const other = await open('203.0.113.2')
    expect(other).toBeInstanceOf(WebSocket)
    // An IPv6 client is counted by its /64, whichever of its addresses it comes from.
    const sixes = [await open('2001:db8:0:1::1'), await open('2001:db8:0:1::2')]
    expect(await open('2001:db8:0:1:ffff::3')).toBe(429)
    const nextBlock = await open('2001:db8:0:2::1')
    expect(nextBlock).toBeInstanceOf(WebSocket)
    for (const ws of [...sockets, other, ...sixes, nextBlock]) (ws as WebSocket).close()

    /** What is left of `client`'s budget after a GET of `url` through the proxy. */
    const remaining = async (client: string, url = '/v2/time') =>
      Number(
        (
          await proxied.app.inject({
            method: 'GET',
            url,
            remoteAddress: '127.0.0.1',
            headers: { 'x-forwarded-for': client },
          })
        ).headers['bitvavo-ratelimit-remaining'],
      )
    const first = await remaining('203.0.113.3')
    expect(await remaining('203.0.113.3')).toBe(first - 1)
    expect(await remaining('203.0.113.4')).toBe(first)
    expect(await remaining('2001:db8:0:7::1')).toBe(first)
    expect(await remaining('2001:db8:0:7::2')).toBe(first - 1)
    expect(await remaining('2001:db8:0:8::2')).toBe(first)
    // Even a URL Fastify cannot read, refused before it builds its request, is the client's.
    expect(await remaining('203.0.113.6', '/v2/%ZZ')).toBe(first)
    expect(await remaining('203.0.113.7', '/v2/%ZZ')).toBe(first)

    const forwarded = await proxied.app.inject({
      method: 'POST',
      url: '/admin/keys/revoke',
      remoteAddress: '127.0.0.1',
      headers: {
        'x-forwarded-for': '203.0.113.5',
        authorization: `Bearer ${proxied.adminToken}`,
      },
      payload: { key: 'x' },
    })
    expect(forwarded.statusCode).toBe(403)
  })

  it('serves /metrics only with the metrics token, even from loopback, where a proxy on the host sends everything from', async () => {
    const from = { method: 'GET' as const, url: '/metrics', remoteAddress: '127.0.0.1' }
    const anonymous = await proxied.app.inject(from)
    expect(anonymous.statusCode).toBe(403)
    expect(anonymous.json().error).toMatch(/behind a public URL/)
    const scraper = await proxied.app.inject({
      ...from,
      headers: { authorization: `Bearer ${proxied.metricsToken}` },
    })
    expect(scraper.statusCode).toBe(200)
    // The icons' links are built on the public URL.
    const items = (
      await proxied.app.inject({ method: 'GET', url: '/exchange/proxy/v3/markets/data' })
    ).json()
    expect(items[0].theme.icon).toMatch(/^https:\/\/polder\.example\/exchange\/icons\//)
  })
})
