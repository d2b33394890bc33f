// Euro deposits by payment method over the web API: each of the catalogue's 8 methods with its
// fee (rounded down to the cent, in the customer's favour) and limits, the account level's daily
// limit, the provider's pending, confirmed and failed answers, and a ledger that balances with
// the fees as their own movement.
import { paymentMethods } from '@polder/catalogue'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { formatLedgerUnits } from '../src/ledger/ledger.ts'
import { paymentsPerDayMax } from '../src/payments/paymentBook.ts'
import {
  type PaymentProvider,
  type PaymentRequest,
  type ProviderAnswer,
  SandboxPaymentProvider,
} from '../src/payments/paymentProvider.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { webRequest } from './fixtures/webRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

/** The sandbox, unless a test scripts the next answer (the outer boundary, so a test double). */
class ScriptedProvider implements PaymentProvider {
  readonly name = 'scripted'
  next: 'sandbox' | 'pending' | 'failed' | 'unreachable' = 'sandbox'
  readonly started: PaymentRequest[] = []
  readonly #sandbox = new SandboxPaymentProvider()
  #listener: ((paymentId: string, answer: ProviderAnswer) => void) | undefined

  async start(request: PaymentRequest): Promise<ProviderAnswer> {
    this.started.push(request)
    const next = this.next
    this.next = 'sandbox'
    if (next === 'unreachable') throw new Error('connection refused')
    if (next === 'pending')
      return { providerReference: `ref-${request.paymentId}`, status: 'pending' }
    if (next === 'failed')
      return {
        providerReference: `ref-${request.paymentId}`,
        status: 'failed',
        failureReason: 'card declined',
      }
    return this.#sandbox.start(request)
  }

  onUpdate(listener: (paymentId: string, answer: ProviderAnswer) => void): void {
    this.#listener = listener
  }

  /** What a webhook would deliver. */
  update(paymentId: string, status: 'confirmed' | 'failed'): void {
    this.#listener?.(paymentId, { providerReference: `ref-${paymentId}`, status })
  }
}

const dayMs = 86_400_000
const provider = new ScriptedProvider()
let server: ExchangeServer
let baseUrl: string
let offsetMs = 0
const nowMs = () => Date.now() + offsetMs

const api = (method: string, path: string, body?: unknown, token?: string) =>
  webRequest(baseUrl, token, method, path, body)

/** A new account with a session token. */
async function customer(email: string): Promise<{ accountId: number; token: string }> {
  const account = await server.accounts.createAccount(email, 'a long enough password')
  return {
    accountId: account.id,
    token: (await server.accounts.createSession(account.id, dayMs * 30)).token,
  }
}

const eurBalance = (accountId: number | 'fees') =>
  formatLedgerUnits(server.service.core.ledger.balance(accountId, 'EUR').available, 2)

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    { nowMs },
    { paymentProvider: provider },
  )
  baseUrl = await server.listen()
})
afterAll(() => server.close())

describe('payment methods', () => {
  it('lists the 8 methods with their fees and limits, publicly', async () => {
    const methods = await api('GET', '/exchange/payments/v1/methods')
    expect(methods.status).toBe(200)
    expect(methods.json.map((method: Json) => method.id)).toEqual(paymentMethods.map((m) => m.id))
    expect(methods.json).toHaveLength(8)
    expect(methods.json.find((method: Json) => method.id === 'card')).toEqual({
      id: 'card',
      name: 'Visa / Mastercard',
      instantBankTransfer: false,
      fee: { fixed: '0.00', percent: '1.75' },
      minAmount: '10.00',
      maxAmount: '5000.00',
      dailyLimit: '10000.00',
      withdrawals: false,
      countries: [],
    })
    expect(methods.json.find((method: Json) => method.id === 'sepa-instant')).toMatchObject({
      instantBankTransfer: true,
      fee: { fixed: '0.00', percent: '0' },
    })
  })

  it('deposits and limits are private: 401 with the protocol error body', async () => {
    for (const [method, path] of [
      ['POST', '/exchange/payments/v1/deposits'],
      ['GET', '/exchange/payments/v1/deposits'],
      ['GET', '/exchange/payments/v1/limits'],
    ] as const) {
      const reply = await api(
        method,
        path,
        method === 'POST' ? { method: 'sepa', amount: '10' } : undefined,
      )
      expect(reply, path).toEqual({
        status: 401,
        json: { errorCode: 300, error: 'Authentication is required for this endpoint.' },
      })
    }
  })

  it('refuses a deposit body that is not JSON with 102, and one without an amount with 205 saying what to send', async () => {
    const { token } = await customer('malformed@example.com')
    const notJson = await fetch(`${baseUrl}/exchange/payments/v1/deposits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"method":',
    })
    expect({ status: notJson.status, json: await notJson.json() }).toEqual({
      status: 400,
      json: { errorCode: 102, error: 'Invalid JSON.' },
    })
    expect(await api('POST', '/exchange/payments/v1/deposits', { method: 'sepa' }, token)).toEqual({
      status: 400,
      json: {
        errorCode: 205,
        error:
          'Send method and amount (EUR), and optionally clientPaymentId (up to 64 letters, digits, - or _).',
      },
    })
  })
})

describe('deposits by payment method (sandbox provider)', () => {
  it.each([
    ['sepa-instant', '100', '0.00'],
    ['sepa', '100', '0.00'],
    ['ideal', '100', '0.00'],
    ['bancontact', '100', '0.39'],
    ['card', '100', '1.75'],
    ['apple-pay', '100', '1.75'],
    ['google-pay', '100', '1.75'],
    ['paypal', '100', '1.90'],
    // Rounded down to the cent, where rounding to the nearest would charge a cent more:
    // 10.60 × 1.75% = 0.1855; 2 × 0.39% = 0.0078; 10.50 × 1.9% = 0.1995.
    ['card', '10.60', '0.18'],
    ['bancontact', '2', '0.00'],
    ['paypal', '10.50', '0.19'],
  ])(
    '%s: %s EUR costs a fee of %s EUR, confirmed at once and credited net',
    async (method, amount, fee) => {
      const { accountId, token } = await customer(`${method}-${amount}@example.com`)
      const feesBefore = Number(eurBalance('fees'))
      const deposit = await api('POST', '/exchange/payments/v1/deposits', { method, amount }, token)
      expect(deposit.status).toBe(201)
      const credited = (Number(amount) - Number(fee)).toFixed(2)
      expect(deposit.json).toMatchObject({
        method,
        amount: Number(amount).toFixed(2),
        fee,
        credited,
        status: 'confirmed',
        providerReference: expect.stringMatching(/^sandbox-[0-9a-f]{24}$/),
        failureReason: null,
      })
      expect(eurBalance(accountId)).toBe(credited)
      expect(Number(eurBalance('fees')) - feesBefore).toBeCloseTo(Number(fee), 2)
      // The v2 deposit history shows the payment with its fee.
      const [row] = server.service.core.history.transfersOf(accountId, 'deposit')
      expect(row).toMatchObject({ asset: 'EUR', paymentId: deposit.json.id, method })
      expect(
        await api('GET', `/exchange/payments/v1/deposits/${deposit.json.id}`, undefined, token),
      ).toEqual({
        status: 200,
        json: deposit.json,
      })
      server.service.core.ledger.checkInvariant()
    },
  )

  it('a signed API key with the trade permission may deposit too; its history lists the fee', async () => {
    const account = await server.accounts.createAccount(
      'signed@example.com',
      'a long enough password',
    )
    const key = await server.accounts.createApiKey(account.id, ['view', 'trade'])
    const signed = (method: string, path: string, body?: unknown) =>
      signedRequest(baseUrl, key, method, path, { body, timestampMs: nowMs() })
    const deposit = await signed('POST', '/exchange/payments/v1/deposits', {
      method: 'apple-pay',
      amount: '200',
    })
    expect(deposit.status).toBe(201)
    expect(deposit.json).toMatchObject({ fee: '3.50', credited: '196.50' })
    const history = await signed('GET', '/v2/depositHistory?symbol=EUR')
    expect(history.json).toEqual([
      {
        timestamp: expect.any(Number),
        symbol: 'EUR',
        amount: '200.00',
        address: '',
        paymentId: deposit.json.id,
        txId: deposit.json.providerReference,
        fee: '3.50',
        status: 'completed',
      },
    ])
    const balance = await signed('GET', '/v2/balance?symbol=EUR')
    expect(balance.json[0].available).toBe('196.50')
  })

  it('refuses what a method does not take, each with its own error', async () => {
    const { accountId, token } = await customer('refused@example.com')
    const deposit = async (body: unknown) =>
      (await api('POST', '/exchange/payments/v1/deposits', body, token)).json
    expect(await deposit({ method: 'cheque', amount: '100' })).toEqual({
      errorCode: 205,
      error: 'method parameter is invalid.',
    })
    expect(await deposit({ method: 'card', amount: '9.99' })).toEqual({
      errorCode: 212,
      error: 'Amount is below the minimum of 10 EUR for Visa / Mastercard.',
    })
    expect(await deposit({ method: 'card', amount: '5000.01' })).toEqual({
      errorCode: 210,
      error: 'Amount exceeds the maximum of 5000 EUR for Visa / Mastercard.',
    })
    expect((await deposit({ method: 'card', amount: '10.001' })).errorCode).toBe(429)
    expect((await deposit({ method: 'card', amount: '-10' })).errorCode).toBe(205)
    expect((await deposit({ method: 'card' })).errorCode).toBe(205)
    expect(server.service.core.payments.ofAccount(accountId)).toEqual([]) // nothing recorded
  })

  it("applies the method's daily limit over a rolling 24 hours (440)", async () => {
    const { token } = await customer('paypal-daily@example.com')
    const deposit = async (amount: string) =>
      (await api('POST', '/exchange/payments/v1/deposits', { method: 'paypal', amount }, token))
        .json
    expect((await deposit('2500')).status).toBe('confirmed')
    expect((await deposit('2490')).status).toBe('confirmed')
    expect(await deposit('10.01')).toEqual({
      errorCode: 440,
      error:
        'This deposit exceeds the PayPal daily deposit limit of 5000 EUR; 10.00 EUR is left in the last 24 hours.',
    })
    expect((await deposit('10')).status).toBe('confirmed') // exactly the limit
    // Other methods have their own limits.
    expect(
      (await api('POST', '/exchange/payments/v1/deposits', { method: 'card', amount: '10' }, token))
        .status,
    ).toBe(201)
    offsetMs += dayMs
    expect((await deposit('2500')).status).toBe('confirmed')
  })

  it("applies the account level's daily deposit limit across methods (verified: 100,000 EUR)", async () => {
    const { token } = await customer('level@example.com')
    const deposit = async (method: string, amount: string) =>
      (await api('POST', '/exchange/payments/v1/deposits', { method, amount }, token)).json
    expect((await deposit('sepa', '99990')).status).toBe('confirmed')
    expect(await deposit('ideal', '10.01')).toEqual({
      errorCode: 440,
      error:
        'This deposit exceeds the account daily deposit limit of 100000 EUR; 10.00 EUR is left in the last 24 hours.',
    })
    expect((await deposit('ideal', '10')).status).toBe('confirmed')
    const limits = await api('GET', '/exchange/payments/v1/limits', undefined, token)
    expect(limits.json).toMatchObject({
      level: 'verified',
      deposit: { dailyLimit: '100000.00', usedLast24h: '100000.00', remaining: '0.00' },
      withdrawal: { dailyLimit: '100000.00', usedLast24h: '0.00' },
      cryptoWithdrawal: { dailyLimit: '100000.00' },
    })
    expect(limits.json.methods.find((method: Json) => method.id === 'sepa')).toEqual({
      id: 'sepa',
      dailyLimit: '1000000.00',
      usedLast24h: '99990.00',
      remaining: '900010.00',
    })
  })
})

describe('deposits an account starts in a day', () => {
  it('are at most 100 in a rolling 24 hours, failed ones too (444, saying when the next may start)', async () => {
    const { accountId, token } = await customer('many-deposits@example.com')
    provider.next = 'failed'
    expect((await server.payments.deposit(accountId, 'sepa-instant', '1')).ok).toBe(true)
    const firstMs = server.service.core.payments.ofAccount(accountId)[0]!.created
    for (let deposit = 1; deposit < paymentsPerDayMax; deposit += 1) {
      offsetMs += 60_000 // a minute apart: the time a request takes under load is far less
      const started = await server.payments.deposit(accountId, 'sepa-instant', '1', `d${deposit}`)
      expect(started.ok).toBe(true)
    }
    const refused = await api(
      'POST',
      '/exchange/payments/v1/deposits',
      { method: 'ideal', amount: '10' },
      token,
    )
    // The oldest counted was started at `firstMs`: once it is a day old, 99 are in the window.
    expect(refused).toEqual({
      status: 400,
      json: {
        errorCode: 444,
        error: `At most 100 deposits can be started in 24 hours; the next one can be started at ${new Date(firstMs + dayMs).toISOString()}.`,
      },
    })
    expect(server.service.core.payments.ofAccount(accountId)).toHaveLength(paymentsPerDayMax)
    // A retry of a deposit already started is answered with it, as ever.
    const again = await server.payments.deposit(accountId, 'sepa-instant', '1', 'd99')
    expect(again).toMatchObject({ ok: true, replayed: true })
    offsetMs = firstMs + dayMs - Date.now()
    const next = await api(
      'POST',
      '/exchange/payments/v1/deposits',
      { method: 'ideal', amount: '10' },
      token,
    )
    expect(next.status).toBe(201)
    expect(
      (
        await api(
          'POST',
          '/exchange/payments/v1/deposits',
          { method: 'ideal', amount: '10' },
          token,
        )
      ).json.errorCode,
    ).toBe(444)
  })
})

describe('what the provider answers', () => {
  it('pending: counted against the limits, credited only when the provider confirms later', async () => {
    const { accountId, token } = await customer('pending@example.com')
    provider.next = 'pending'
    const started = await api(
      'POST',
      '/exchange/payments/v1/deposits',
      { method: 'card', amount: '5000' },
      token,
    )
    expect(started.json).toMatchObject({ status: 'pending', credited: '0.00' })
    expect(eurBalance(accountId)).toBe('0.00')
    // Card allows 10,000 a day: the pending 5,000 count already.
    const card = (amount: string) =>
      api('POST', '/exchange/payments/v1/deposits', { method: 'card', amount }, token)
    expect((await card('5000')).json.status).toBe('confirmed')
    expect((await card('10')).json).toMatchObject({ errorCode: 440 })
    provider.update(started.json.id, 'confirmed') // the webhook
    await server.service.drain()
    const confirmed = await api(
      'GET',
      `/exchange/payments/v1/deposits/${started.json.id}`,
      undefined,
      token,
    )
    expect(confirmed.json).toMatchObject({ status: 'confirmed', credited: '4912.50' })
    expect(eurBalance(accountId)).toBe('9825.00')
    server.service.core.ledger.checkInvariant()
  })

  it('failed: nothing is credited, the amount does not count against the limits, a late webhook changes nothing', async () => {
    const { accountId, token } = await customer('failed@example.com')
    const paypal = async (amount: string) =>
      (await api('POST', '/exchange/payments/v1/deposits', { method: 'paypal', amount }, token))
        .json
    provider.next = 'failed'
    const failed = await paypal('2500')
    expect(failed).toMatchObject({
      status: 'failed',
      failureReason: 'card declined',
      credited: '0.00',
    })
    // The whole 5,000 a day of PayPal is still there.
    expect((await paypal('2500')).status).toBe('confirmed')
    expect((await paypal('2500')).status).toBe('confirmed')
    provider.update(failed.id, 'confirmed')
    await server.service.drain()
    expect(eurBalance(accountId)).toBe('4905.00')
    const list = await api('GET', '/exchange/payments/v1/deposits', undefined, token)
    expect(list.json.map((payment: Json) => payment.status)).toEqual([
      'confirmed',
      'confirmed',
      'failed',
    ])
  })

  it('unreachable: the payment stays pending (the provider may have taken it), counts, and is asked about again', async () => {
    const { accountId, token } = await customer('unreachable@example.com')
    const paypal = async (amount: string) =>
      (await api('POST', '/exchange/payments/v1/deposits', { method: 'paypal', amount }, token))
        .json
    provider.next = 'unreachable'
    const waiting = await paypal('2500')
    expect(waiting).toMatchObject({ status: 'pending', providerReference: null, credited: '0.00' })
    expect((await paypal('2500')).status).toBe('confirmed')
    expect((await paypal('10')).errorCode).toBe(440) // the pending 2,500 count
    await server.payments.resume() // the provider answers again: the sandbox confirms it
    expect(provider.started.at(-1)).toEqual({
      paymentId: waiting.id,
      accountId,
      method: 'paypal',
      amountEur: '2500.00',
    })
    expect(
      (await api('GET', `/exchange/payments/v1/deposits/${waiting.id}`, undefined, token)).json,
    ).toMatchObject({ status: 'confirmed', credited: '2452.50' })
    expect(eurBalance(accountId)).toBe('4905.00')
    server.service.core.ledger.checkInvariant()
  })
})

describe('listing deposits', () => {
  it('reads the query as /v2 does: limit an integer in digits only, an unknown parameter refused by its name', async () => {
    const account = await server.accounts.createAccount(
      'lister@example.com',
      'a long enough password',
    )
    const key = await server.accounts.createApiKey(account.id, ['view'])
    const signed = (path: string) =>
      signedRequest(baseUrl, key, 'GET', path, { timestampMs: nowMs() })
    for (const query of [
      'limit=0x10',
      'limit=1e2',
      'limit=%201',
      'limit=1.0',
      'limit=0',
      'limit=1001',
      'limit=',
      'x=1',
    ]) {
      const payments = await signed(`/exchange/payments/v1/deposits?${query}`)
      expect(payments, query).toEqual(await signed(`/v2/depositHistory?${query}`))
      expect(payments.status, query).toBe(400)
    }
    expect((await signed('/exchange/payments/v1/deposits?x=1')).json).toEqual({
      errorCode: 200,
      error: 'x url parameter is not supported',
    })
    expect(await signed('/exchange/payments/v1/deposits?limit=1000')).toEqual({
      status: 200,
      json: [],
    })
  })
})
