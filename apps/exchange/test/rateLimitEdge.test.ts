// Rate limits at the edge, end to end: the budget is an API key's only once a signature proves
// the key; anything else is charged to the IP.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sign } from '../src/auth/signature.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { openRecordingSocket } from './fixtures/recordingSocket.ts'
import { testListing } from './fixtures/testListing.ts'

let server: ExchangeServer
let baseUrl: string
let victim: { key: string; secret: string }

beforeAll(async () => {
  server = await createExchangeServer(
    {
      ...defaultConfig,
      port: 0,
      logLevel: 'silent',
      dataDir: undefined,
      rateLimitWeightPerMinute: 5,
    },
    testListing,
  )
  baseUrl = await server.listen()
  const account = await server.accounts.createAccount(
    'victim@example.com',
    'a long enough password',
  )
  victim = await server.accounts.createApiKey(account.id, ['view'])
})
afterAll(() => server.close())

describe('rate limits at the edge', () => {
  it("unsigned requests naming someone's key ban the sender's IP, never the key", async () => {
    // A budget is a calendar minute's: requests straddling a minute's end would find it afresh.
    const intoMinuteMs = Date.now() % 60_000
    if (intoMinuteMs > 55_000)
      await new Promise((resolve) => setTimeout(resolve, 60_000 - intoMinuteMs + 50))
    const statuses: number[] = []
    for (let attempt = 0; attempt < 7; attempt += 1) {
      const response = await fetch(`${baseUrl}/v2/time`, {
        headers: { 'bitvavo-access-key': victim.key },
      })
      statuses.push(response.status)
      await response.arrayBuffer()
    }
    expect(statuses.slice(0, 5)).toEqual([200, 200, 200, 200, 200])
    expect(statuses.at(-1)).toBe(429)
    const banned = await fetch(`${baseUrl}/v2/markets`)
    const body = (await banned.json()) as { errorCode: number; error: string }
    expect(body.errorCode).toBe(105)
    expect(body.error.split(' at ')[1]!.split('.')[0]).toMatch(/^\d+$/)

    // The key itself still has its whole budget once it signs.
    const timestamp = Date.now()
    const response = await fetch(`${baseUrl}/v2/balance`, {
      headers: {
        'bitvavo-access-key': victim.key,
        'bitvavo-access-timestamp': String(timestamp),
        'bitvavo-access-signature': sign(victim.secret, timestamp, 'GET', '/v2/balance'),
      },
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('bitvavo-ratelimit-remaining')).toBe('0')
  })
})

describe('a public call signed with a valid key', () => {
  it("is the key's to pay, not the IP's; a signature that does not hold leaves it the IP's", async () => {
    // The IP is banned by the test above; the SDK signs public calls too.
    const account = await server.accounts.createAccount('signer@example.com', 'a long password')
    const signer = await server.accounts.createApiKey(account.id, ['view'])
    const get = (signature: string, timestamp: number) =>
      fetch(`${baseUrl}/v2/time`, {
        headers: {
          'bitvavo-access-key': signer.key,
          'bitvavo-access-timestamp': String(timestamp),
          'bitvavo-access-signature': signature,
        },
      })
    const timestamp = Date.now()
    const signed = await get(sign(signer.secret, timestamp, 'GET', '/v2/time'), timestamp)
    expect(signed.status).toBe(200)
    expect(signed.headers.get('bitvavo-ratelimit-remaining')).toBe('4')
    const forged = await get(sign('0'.repeat(64), timestamp, 'GET', '/v2/time'), timestamp)
    expect(forged.status).toBe(429)
    expect(((await forged.json()) as { errorCode: number }).errorCode).toBe(105)
  })
})

describe('the web API shares the IP budget', () => {
  it('answers 105 once the IP has spent its points', async () => {
    // The IP was banned by the test above; the web API is refused too, with the same error.
    const response = await fetch(`${baseUrl}/exchange/proxy/v3/markets/data`)
    expect(response.status).toBe(429)
    expect(((await response.json()) as { errorCode: number }).errorCode).toBe(105)
    expect(response.headers.get('bitvavo-ratelimit-remaining')).toBe('0')
    // A path spelt with percent-escapes reaches the same route, and is refused the same way.
    for (const path of ['/%65xchange/proxy/v3/markets/data', '/%65xchange/staking/v1/assets']) {
      const escaped = await fetch(`${baseUrl}${path}`)
      expect(escaped.status, path).toBe(429)
      expect(((await escaped.json()) as { errorCode: number }).errorCode).toBe(105)
    }
  })
})

describe('a banned caller over the WebSocket', () => {
  it('is answered 105 with the action and requestId of each request, so a client waiting on it is not left waiting', async () => {
    // The IP is still banned by the first test.
    const socket = await openRecordingSocket(`${baseUrl.replace('http', 'ws')}/v2`)
    const refused = socket.next((message) => message.requestId === 41, 'the reply to 41')
    socket.ws.send('{"action":"getTime","requestId":41}')
    expect(await refused).toMatchObject({ action: 'getTime', requestId: 41, errorCode: 105 })
    // What cannot be read has no id to give back: the bare error.
    const bare = socket.next((message) => message.errorCode !== undefined && !message.action)
    socket.ws.send('{not json')
    expect(await bare).toMatchObject({ errorCode: 105 })
    socket.ws.close()
  })
})
