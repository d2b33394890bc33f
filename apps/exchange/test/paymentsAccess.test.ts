// Who may see and make euro deposits: an account sees only its own payments (another's is 404,
// as if it did not exist), and a signed API key needs the view permission to read and the trade
// permission to deposit, refused with the protocol's permission error.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { webRequest } from './fixtures/webRequest.ts'

const dayMs = 86_400_000
let server: ExchangeServer
let baseUrl: string

const withSession = (token: string, method: string, path: string, body?: unknown) =>
  webRequest(baseUrl, token, method, path, body)

const signed = (key: ApiKey, method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, key, method, path, { body })

/** A new account with a session token and signed keys. */
async function customer(email: string) {
  const account = await server.accounts.createAccount(email, 'a long enough password')
  return {
    accountId: account.id,
    token: (await server.accounts.createSession(account.id, dayMs)).token,
    tradeKey: await server.accounts.createApiKey(account.id, ['view', 'trade']),
    viewKey: await server.accounts.createApiKey(account.id, ['view']),
  }
}

const notFound = { status: 404, json: { errorCode: 205, error: 'id parameter is invalid.' } }

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
  )
  baseUrl = await server.listen()
})
afterAll(() => server.close())

describe("an account's payments are its own", () => {
  it("another account gets 404 with the protocol error body on a payment's id, as for an unknown id, and does not list it", async () => {
    const a = await customer('owner@example.com')
    const b = await customer('other@example.com')
    const deposit = await withSession(a.token, 'POST', '/exchange/payments/v1/deposits', {
      method: 'sepa',
      amount: '100',
    })
    expect(deposit.status).toBe(201)
    const path = `/exchange/payments/v1/deposits/${deposit.json.id}`
    expect(await withSession(a.token, 'GET', path)).toEqual({ status: 200, json: deposit.json })

    expect(await withSession(b.token, 'GET', path)).toEqual(notFound)
    expect(await signed(b.tradeKey, 'GET', path)).toEqual(notFound)
    expect(
      await withSession(b.token, 'GET', '/exchange/payments/v1/deposits/no-such-payment'),
    ).toEqual(notFound)

    const ownDeposit = await withSession(b.token, 'POST', '/exchange/payments/v1/deposits', {
      method: 'ideal',
      amount: '20',
    })
    expect(ownDeposit.status).toBe(201)
    for (const list of [
      await withSession(b.token, 'GET', '/exchange/payments/v1/deposits'),
      await signed(b.tradeKey, 'GET', '/exchange/payments/v1/deposits?limit=1000'),
    ])
      expect(list).toEqual({ status: 200, json: [ownDeposit.json] })
    expect((await withSession(a.token, 'GET', '/exchange/payments/v1/deposits')).json).toEqual([
      deposit.json,
    ])
  })
})

describe('the permissions of a signed API key', () => {
  it('a key with only the view permission cannot deposit (310, nothing recorded) but can list and read', async () => {
    const c = await customer('viewer@example.com')
    const refused = await signed(c.viewKey, 'POST', '/exchange/payments/v1/deposits', {
      method: 'sepa',
      amount: '50',
    })
    expect(refused).toEqual({
      status: 403,
      json: { errorCode: 310, error: 'This key does not allow trading actions.' },
    })
    expect(server.service.core.payments.ofAccount(c.accountId)).toEqual([])

    const made = await signed(c.tradeKey, 'POST', '/exchange/payments/v1/deposits', {
      method: 'sepa',
      amount: '50',
    })
    expect(made.status).toBe(201)
    expect(await signed(c.viewKey, 'GET', '/exchange/payments/v1/deposits')).toEqual({
      status: 200,
      json: [made.json],
    })
    expect(
      await signed(c.viewKey, 'GET', `/exchange/payments/v1/deposits/${made.json.id}`),
    ).toEqual({ status: 200, json: made.json })
    expect((await signed(c.viewKey, 'GET', '/exchange/payments/v1/limits')).status).toBe(200)
  })

  it('a key without the view permission cannot read (311)', async () => {
    const account = await server.accounts.createAccount(
      'trade-only@example.com',
      'a long enough password',
    )
    const tradeOnly = await server.accounts.createApiKey(account.id, ['trade'])
    expect(await signed(tradeOnly, 'GET', '/exchange/payments/v1/deposits')).toEqual({
      status: 403,
      json: { errorCode: 311, error: 'This key does not allow showing account information.' },
    })
  })
})
