// Amounts past a number's exact integers at the asset's decimals, through the real server: 100
// million SHIB is 10^16 units at its 8 decimals (Number.MAX_SAFE_INTEGER is about 9 × 10^15), and
// about 1,100 euros, a retail holding. Credited by the admin endpoint, withdrawn, and staked, each
// to the unit. And an amount over a maximum hears the maximum's error (210) whatever its digits,
// not 205 once it is past 2^53 units.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { defaultListing } from '../src/listing.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { webRequest } from './fixtures/webRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let key: ApiKey
let token: string
let accountId: number

const admin = async (path: string, body?: unknown): Promise<{ status: number; json: Json }> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method: body === undefined ? 'GET' : 'POST',
    headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, json: await response.json() }
}
const balanceOf = async (symbol: string): Promise<Json> =>
  ((await signedRequest(baseUrl, key, 'GET', `/v2/balance?symbol=${symbol}`)).json as Json[])[0]

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined, simulator: false },
    defaultListing(),
  )
  baseUrl = await server.listen()
  server.withdrawalProcessor.stop()
  server.stakingAccrual.stop()
  const account = await server.accounts.createAccount('whale@example.com', 'a long enough password')
  accountId = account.id
  key = await server.accounts.createApiKey(account.id, ['view', 'trade', 'withdraw'])
  token = (await server.accounts.createSession(account.id, 86_400_000)).token
})
afterAll(() => server.close())

describe('amounts past 2^53 units', () => {
  it('the admin endpoint credits 250 million SHIB to the unit', async () => {
    const credited = await admin('/admin/deposits', {
      accountId,
      asset: 'SHIB',
      amount: '250000000.12345678',
    })
    expect(credited).toEqual({ status: 200, json: { ok: true } })
    expect(await balanceOf('SHIB')).toMatchObject({
      symbol: 'SHIB',
      available: '250000000.12345678',
    })
  })

  it('a withdrawal of 100 million SHIB is taken, fee and all', async () => {
    const withdrawn = await signedRequest(baseUrl, key, 'POST', '/v2/withdrawal', {
      body: {
        symbol: 'SHIB',
        amount: '100000000.00000001',
        address: '0x52908400098527886e0f7030069857d2e4169ee7',
        addWithdrawalFee: true,
      },
    })
    expect(withdrawn.status).toBe(200)
    expect(withdrawn.json).toEqual({
      success: true,
      symbol: 'SHIB',
      amount: '100000000.00000001',
    })
    // The catalogue's fee for SHIB is 460,000, taken on top.
    expect((await balanceOf('SHIB')).available).toBe('149540000.12345677')
    const history = await signedRequest(baseUrl, key, 'GET', '/v2/withdrawalHistory?symbol=SHIB')
    expect(history.json[0]).toMatchObject({ amount: '100000000.00000001', fee: '460000.00000000' })
  })

  it('more than the balance is refused as such (408), not as a bad number', async () => {
    const refused = await signedRequest(baseUrl, key, 'POST', '/v2/withdrawal', {
      body: {
        symbol: 'SHIB',
        amount: '9000000000000',
        address: '0x52908400098527886e0f7030069857d2e4169ee7',
      },
    })
    expect(refused.json.errorCode).toBe(408)
  })

  it('a stake of 100 million units of an 8-decimal asset is taken to the unit', async () => {
    expect(
      await admin('/admin/deposits', { accountId, asset: 'DOT', amount: '120000000' }),
    ).toEqual({ status: 200, json: { ok: true } })
    const staked = await webRequest(baseUrl, token, 'POST', '/exchange/staking/v1/stake', {
      asset: 'DOT',
      amount: '100000000.00000001',
      acknowledgeRisk: true,
    })
    expect(staked.status).toBe(200)
    expect(staked.json).toEqual({ success: true, asset: 'DOT', amount: '100000000.00000001' })
    expect((await balanceOf('DOT')).available).toBe('19999999.99999999')
  })

  it('the ledger stays balanced', async () => {
    expect((await admin('/admin/ledger/check')).status).toBe(200)
  })
})

describe('an amount over a maximum gets its error (210), whatever its digits', () => {
  const order = (body: Record<string, unknown>) =>
    signedRequest(baseUrl, key, 'POST', '/v2/order', { body: { operatorId: 1, ...body } })
  it.each([
    // 600,000 EUR is 6 × 10^14 quote units of 10^-9 EUR; 10 million EUR is 10^16.
    [
      'SHIB-EUR amountQuote',
      { market: 'SHIB-EUR', side: 'buy', orderType: 'market' },
      'amountQuote',
      '600000',
      '10000000',
    ],
    [
      'BTC-EUR amountQuote',
      { market: 'BTC-EUR', side: 'buy', orderType: 'market' },
      'amountQuote',
      '2000000',
      '100000000',
    ],
    [
      'SHIB-EUR amount',
      { market: 'SHIB-EUR', side: 'sell', orderType: 'market' },
      'amount',
      '50000000000',
      '10000000000000000',
    ],
  ])('%s', async (_, body, field, justOver, farOver) => {
    const near = await order({ ...body, [field]: justOver })
    expect(near.json.errorCode).toBe(210)
    expect((await order({ ...body, [field]: farOver })).json).toEqual(near.json)
  })

  it('a price past 2^53 units is over the maximum price (211)', async () => {
    const near = await order({
      market: 'SHIB-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '1000000',
      price: '1',
    })
    const far = await order({
      market: 'SHIB-EUR',
      side: 'buy',
      orderType: 'limit',
      amount: '1000000',
      price: '10000000',
    })
    expect(near.json.errorCode).toBe(211)
    expect(far.json).toEqual(near.json)
  })

  it('a SEPA deposit and a savings plan of 10^14 EUR are over their maximums (210)', async () => {
    const deposit = await webRequest(baseUrl, token, 'POST', '/exchange/payments/v1/deposits', {
      method: 'sepa',
      amount: '100000000000000',
    })
    expect(deposit.json.errorCode).toBe(210)
    const plan = await webRequest(baseUrl, token, 'POST', '/exchange/savings-plans/v1', {
      asset: 'SHIB',
      amount: '100000000000000',
      frequency: 'DAILY',
      startDate: new Date().toISOString().slice(0, 10),
    })
    expect(plan.json.errorCode).toBe(210)
  })
})
