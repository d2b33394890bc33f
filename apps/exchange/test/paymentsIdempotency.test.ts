// A deposit request sent again with the same clientPaymentId (a timeout, a lost answer, a
// crash between the two) must never start a second payment: with a real provider that would be
// a second charge. And the provider must never hear of a payment the exchange could lose.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { formatLedgerUnits } from '../src/ledger/ledger.ts'
import {
  type PaymentProvider,
  type PaymentRequest,
  type ProviderAnswer,
  SandboxPaymentProvider,
} from '../src/payments/paymentProvider.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { testListing } from './fixtures/testListing.ts'
import { webRequest } from './fixtures/webRequest.ts'

/** The sandbox, recording what it was asked (the outer boundary, so a test double). */
class RecordingProvider implements PaymentProvider {
  readonly name = 'recording'
  readonly started: PaymentRequest[] = []
  readonly #sandbox = new SandboxPaymentProvider()

  async start(request: PaymentRequest): Promise<ProviderAnswer> {
    this.started.push(request)
    return this.#sandbox.start(request)
  }

  onUpdate(): void {}
}

const provider = new RecordingProvider()
let server: ExchangeServer
let baseUrl: string
let token: string
let accountId: number

const deposit = (body: unknown, as = token) =>
  webRequest(baseUrl, as, 'POST', '/exchange/payments/v1/deposits', body)

const eurBalance = () =>
  formatLedgerUnits(server.service.core.ledger.balance(accountId, 'EUR').available, 2)

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    undefined,
    { paymentProvider: provider },
  )
  baseUrl = await server.listen()
  const account = await server.accounts.createAccount('idem@polder.test', 'a long enough password')
  accountId = account.id
  token = (await server.accounts.createSession(account.id, 86_400_000)).token
})

afterAll(async () => {
  await server.close()
})

describe('deposits with a clientPaymentId', () => {
  it('the same request again answers 200 with the first payment and credits once', async () => {
    const request = { method: 'sepa', amount: '250', clientPaymentId: 'order-7f3a' }
    const first = await deposit(request)
    expect(first.status).toBe(201)
    const startedBefore = provider.started.length
    const again = await deposit(request)
    expect(again.status).toBe(200)
    expect(again.json).toEqual(first.json)
    expect(provider.started.length).toBe(startedBefore) // the provider is not asked twice
    expect(server.service.core.payments.ofAccount(accountId)).toHaveLength(1)
    expect(eurBalance()).toBe(first.json.credited)
  })

  it('two identical requests at once make one payment', async () => {
    const request = { method: 'ideal', amount: '40', clientPaymentId: 'twice-at-once' }
    const [a, b] = await Promise.all([deposit(request), deposit(request)])
    expect([a.status, b.status].sort()).toEqual([200, 201])
    expect(a.json.id).toBe(b.json.id)
    expect(
      server.service.core.payments.ofAccount(accountId).filter((p) => p.id === a.json.id),
    ).toHaveLength(1)
  })

  it('another request under a used clientPaymentId is refused, not taken for the first', async () => {
    await deposit({ method: 'sepa', amount: '10', clientPaymentId: 'reused' })
    const other = await deposit({ method: 'sepa', amount: '11', clientPaymentId: 'reused' })
    expect(other.status).toBe(400)
    expect(other.json.errorCode).toBe(205)
    expect(other.json.error).toContain('clientPaymentId')
  })

  it('ids are per account: another account may use the same clientPaymentId', async () => {
    const mine = await deposit({ method: 'sepa', amount: '12', clientPaymentId: 'shared-id' })
    const other = await server.accounts.createAccount('idem2@polder.test', 'a long enough password')
    const otherToken = (await server.accounts.createSession(other.id, 86_400_000)).token
    const theirs = await deposit(
      { method: 'sepa', amount: '12', clientPaymentId: 'shared-id' },
      otherToken,
    )
    expect(theirs.status).toBe(201)
    expect(theirs.json.id).not.toBe(mine.json.id)
  })

  it('refuses a clientPaymentId that is not 1-64 letters, digits, - or _', async () => {
    for (const clientPaymentId of ['', 'has space', 'x'.repeat(65), 'ü'])
      expect((await deposit({ method: 'sepa', amount: '10', clientPaymentId })).status).toBe(400)
  })
})

describe('the provider hears only of durable payments', () => {
  it('the retry loop does not ask about a payment whose record is not yet committed', async () => {
    // deposit() applies the payment at once and commits it on the next turn of the event loop;
    // the retry loop, running in between, sees it pending.
    const before = provider.started.length
    const depositing = server.payments.deposit(accountId, 'sepa', '10')
    const retrying = server.payments.resume()
    expect(provider.started.length).toBe(before)
    const result = await depositing
    await retrying
    if (!result.ok) throw new Error(result.refusal.error)
    // Asked once, by the deposit itself, after the commit.
    expect(
      provider.started.filter((request) => request.paymentId === result.payment.id),
    ).toHaveLength(1)
  })
})
