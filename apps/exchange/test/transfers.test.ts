// Deposits and withdrawals over the v2 API (sandbox): deposit data, withdrawal checks and
// fees, the withdraw permission, and both histories.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sign } from '../src/auth/signature.ts'
import { defaultConfig } from '../src/config.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any
type Key = { key: string; secret: string }

let server: ExchangeServer
let baseUrl: string
let withdrawer: Key
let trader: Key

async function call(
  who: Key,
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; json: Json }> {
  const timestamp = Date.now()
  const text = body === undefined ? '' : JSON.stringify(body)
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: {
      'bitvavo-access-key': who.key,
      'bitvavo-access-timestamp': String(timestamp),
      'bitvavo-access-signature': sign(who.secret, timestamp, method, path, text),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: text }),
  })
  return { status: response.status, json: await response.json() }
}

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
  )
  baseUrl = await server.listen()
  const account = await server.accounts.createAccount(
    'withdrawer@example.com',
    'a long enough password',
  )
  withdrawer = await server.accounts.createApiKey(account.id, ['view', 'trade', 'withdraw'])
  trader = await server.accounts.createApiKey(account.id, ['view', 'trade'])
  await server.service.submit({
    type: 'deposit',
    timestamp: 1,
    accountId: account.id,
    asset: 'BTC',
    amount: toLedgerUnits(1, 0).toString(),
    reference: 'seed',
    txId: 'sandbox-1',
  })
})
afterAll(() => server.close())

describe('deposits and withdrawals (sandbox)', () => {
  it('GET /v2/deposit gives a Bitcoin-shaped address for BTC and an IBAN for EUR, the same each time', async () => {
    const btc = await call(trader, 'GET', '/v2/deposit?symbol=BTC')
    expect(btc.json.address).toMatch(/^bc1q[02-9ac-hj-np-z]{38}$/)
    expect((await call(trader, 'GET', '/v2/deposit?symbol=BTC')).json).toEqual(btc.json)
    const eur = await call(trader, 'GET', '/v2/deposit?symbol=EUR')
    expect(eur.json).toMatchObject({
      iban: expect.stringMatching(/^NL\d\dPOLD\d{10}$/),
      bic: 'POLDNL2A',
    })
  })

  it('a withdrawal needs the withdraw permission (312)', async () => {
    const refused = await call(trader, 'POST', '/v2/withdrawal', {
      symbol: 'BTC',
      amount: '0.01',
      address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    })
    expect(refused.json.errorCode).toBe(312)
  })

  it('checks the address (412) and the minimum (406); the fee comes out of the amount by default', async () => {
    const address = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'
    expect(
      (
        await call(withdrawer, 'POST', '/v2/withdrawal', {
          symbol: 'BTC',
          amount: '0.01',
          address: '0xnot-bitcoin',
        })
      ).json.errorCode,
    ).toBe(412)
    expect(
      (
        await call(withdrawer, 'POST', '/v2/withdrawal', {
          symbol: 'BTC',
          amount: '0.0005',
          address,
        })
      ).json.errorCode,
    ).toBe(406)
    const done = await call(withdrawer, 'POST', '/v2/withdrawal', {
      symbol: 'BTC',
      amount: '0.01',
      address,
    })
    expect(done.json).toEqual({ success: true, symbol: 'BTC', amount: '0.01' })
    // 1 BTC − 0.01 (0.0099 sent + 0.0001 fee)
    expect((await call(withdrawer, 'GET', '/v2/balance?symbol=BTC')).json).toEqual([
      { symbol: 'BTC', available: '0.99000000', inOrder: '0.00000000' },
    ])
    const withFee = await call(withdrawer, 'POST', '/v2/withdrawal', {
      symbol: 'BTC',
      amount: '0.01',
      address,
      addWithdrawalFee: true,
    })
    expect(withFee.json.success).toBe(true)
    expect((await call(withdrawer, 'GET', '/v2/balance?symbol=BTC')).json[0].available).toBe(
      '0.97990000',
    )
    expect(
      (await call(withdrawer, 'POST', '/v2/withdrawal', { symbol: 'BTC', amount: '5', address }))
        .json.errorCode,
    ).toBe(408)
    server.service.core.ledger.checkInvariant()
  })

  it('lists deposits and withdrawals, newest first', async () => {
    const deposits = await call(trader, 'GET', '/v2/depositHistory?symbol=BTC')
    expect(deposits.json).toEqual([
      {
        timestamp: 1,
        symbol: 'BTC',
        amount: '1.00000000',
        txId: 'sandbox-1',
        fee: '0.00000000',
        status: 'completed',
      },
    ])
    const withdrawals = await call(trader, 'GET', '/v2/withdrawalHistory')
    expect(withdrawals.json.map((row: Json) => [row.amount, row.fee, row.status])).toEqual([
      ['0.01000000', '0.00010000', 'completed'],
      ['0.00990000', '0.00010000', 'completed'],
    ])
    expect(withdrawals.json[0].address).toBe('bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq')
  })
})

describe('account history', () => {
  it('GET /v2/account/history lists deposits and withdrawals, newest first, a page at a time', async () => {
    const page = await call(trader, 'GET', '/v2/account/history?maxItems=2')
    expect(page.json).toMatchObject({ currentPage: 1, totalPages: 2, maxItems: 2 })
    expect(page.json.items.map((item: Json) => item.type)).toEqual(['withdrawal', 'withdrawal'])
    expect(page.json.items[0]).toMatchObject({
      sentCurrency: 'BTC',
      sentAmount: '0.01000000',
      feesAmount: '0.00010000',
    })
    expect(Date.parse(page.json.items[0].executedAt)).toBeGreaterThan(0)
    const deposits = await call(trader, 'GET', '/v2/account/history?type=deposit')
    expect(deposits.json.items).toEqual([
      expect.objectContaining({
        type: 'deposit',
        receivedCurrency: 'BTC',
        receivedAmount: '1.00000000',
        transactionId: 'seed',
      }),
    ])
  })
})
