// Deposits and withdrawals over the v2 API (sandbox): deposit data, withdrawal checks and
// fees, the withdraw permission, both histories, the simulated confirmation delay (on a test
// clock) and the account level's daily withdrawal limits.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let withdrawer: ApiKey
let trader: ApiKey
/** The server's clock runs this far ahead of the wall clock (signatures use the same). */
let offsetMs = 0
const nowMs = () => Date.now() + offsetMs
const delayMs = 6_000
const dayMs = 86_400_000

/** A signed request on the server's clock. */
const call = (who: ApiKey, method: string, path: string, body?: unknown) =>
  signedRequest(baseUrl, who, method, path, { body, timestampMs: nowMs() })

beforeAll(async () => {
  server = await createExchangeServer(
    {
      ...defaultConfig,
      port: 0,
      logLevel: 'silent',
      dataDir: undefined,
      withdrawalDelayMs: delayMs,
    },
    testListing,
    { nowMs },
  )
  baseUrl = await server.listen()
  server.withdrawalProcessor.stop() // the tests drive it with the clock
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
        address: '',
        txId: 'sandbox-1',
        fee: '0.00000000',
        status: 'completed',
      },
    ])
    const withdrawals = await call(trader, 'GET', '/v2/withdrawalHistory')
    expect(withdrawals.json.map((row: Json) => [row.amount, row.fee, row.status])).toEqual([
      ['0.01000000', '0.00010000', 'awaiting_processing'],
      ['0.00990000', '0.00010000', 'awaiting_processing'],
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
      // Every field of the protocol's, null where a withdrawal has no value.
      priceCurrency: null,
      priceAmount: null,
      receivedCurrency: null,
      receivedAmount: null,
    })
    expect(Object.keys(page.json.items[0]).sort()).toEqual(historyFields)
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
    const withdrawals = await call(trader, 'GET', '/v2/account/history?type=withdrawal')
    expect(withdrawals.json.items.map((item: Json) => item.type)).toEqual([
      'withdrawal',
      'withdrawal',
    ])
    // A page past the end is empty, with the same count of pages.
    const past = await call(trader, 'GET', '/v2/account/history?maxItems=2&page=3')
    expect(past.json).toMatchObject({ items: [], currentPage: 3, totalPages: 2 })
    // Types this account has none of.
    for (const type of ['buy', 'staking', 'affiliate'])
      expect((await call(trader, 'GET', `/v2/account/history?type=${type}`)).json).toMatchObject({
        items: [],
        totalPages: 0,
      })
  })
})

describe('withdrawal confirmation (server clock)', () => {
  it('goes awaiting_processing → sending → completed, each when due and once; the balance is debited at request', async () => {
    // Earlier withdrawals complete first, so that only this one moves below.
    offsetMs += delayMs
    await server.withdrawalProcessor.tick()
    const status = async () =>
      (await call(trader, 'GET', '/v2/withdrawalHistory?symbol=BTC')).json[0].status
    const balance = async () =>
      (await call(trader, 'GET', '/v2/balance?symbol=BTC')).json[0].available
    const before = await balance()
    const requested = await call(withdrawer, 'POST', '/v2/withdrawal', {
      symbol: 'BTC',
      amount: '0.1',
      address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    })
    expect(requested.json.success).toBe(true)
    expect(Number(await balance())).toBeCloseTo(Number(before) - 0.1, 8)
    expect(await status()).toBe('awaiting_processing')

    // The clock runs on as well (the requests above take real time): 2.5 s short of half the
    // delay leaves a slow machine room.
    offsetMs += delayMs / 2 - 2_500
    expect(await server.withdrawalProcessor.tick()).toBe(0)
    expect(await status()).toBe('awaiting_processing')
    offsetMs += 2_500 // half the delay: sent
    expect(await server.withdrawalProcessor.tick()).toBe(1)
    expect(await status()).toBe('sending')
    expect(await server.withdrawalProcessor.tick()).toBe(0) // a second tick: nothing twice
    offsetMs += delayMs / 2 // the whole delay: completed, and nothing moves any more
    expect(await server.withdrawalProcessor.tick()).toBe(1)
    expect(await status()).toBe('completed')
    expect(await server.withdrawalProcessor.tick()).toBe(0)
    expect(server.service.core.pendingWithdrawals.size).toBe(0)
    expect(Number(await balance())).toBeCloseTo(Number(before) - 0.1, 8)
    server.service.core.ledger.checkInvariant()
  })

  it('refuses a status before it is due or out of order (the core, whatever the timer does)', async () => {
    const requested = await call(withdrawer, 'POST', '/v2/withdrawal', {
      symbol: 'BTC',
      amount: '0.01',
      address: 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
    })
    expect(requested.json.success).toBe(true)
    const [pending] = [...server.service.core.pendingWithdrawals.values()]
    const advance = (status: 'sending' | 'completed', timestamp: number) =>
      server.service.submit({
        type: 'advanceWithdrawal',
        timestamp,
        reference: pending!.reference,
        status,
      })
    expect((await advance('sending', pending!.sendingAtMs - 1)).ok).toBe(false)
    expect((await advance('completed', pending!.completedAtMs)).ok).toBe(false) // skips sending
    expect((await advance('sending', pending!.sendingAtMs)).ok).toBe(true)
    expect((await advance('sending', pending!.completedAtMs)).ok).toBe(false)
    expect((await advance('completed', pending!.completedAtMs)).ok).toBe(true)
    expect((await advance('completed', pending!.completedAtMs)).ok).toBe(false)
  })
})

describe('daily withdrawal limits of the account level (verified: 100,000 EUR a day each)', () => {
  it('limits euro withdrawals over a rolling 24 hours (441), naming what is left', async () => {
    const account = await server.accounts.createAccount(
      'euro@example.com',
      'a long enough password',
    )
    const key = await server.accounts.createApiKey(account.id, ['view', 'withdraw'])
    await server.service.submit({
      type: 'deposit',
      timestamp: nowMs(),
      accountId: account.id,
      asset: 'EUR',
      amount: toLedgerUnits(250_000_00, 2).toString(),
      reference: 'euro-seed',
    })
    const withdraw = async (amount: string) =>
      (
        await call(key, 'POST', '/v2/withdrawal', {
          symbol: 'EUR',
          amount,
          address: 'NL91ABNA0417164300',
          addWithdrawalFee: true,
        })
      ).json
    expect((await withdraw('60000')).success).toBe(true)
    expect(await withdraw('40000.01')).toEqual({
      errorCode: 441,
      error:
        'This withdrawal exceeds the euro daily withdrawal limit of 100000 EUR; 40000.00 EUR is left in the last 24 hours.',
    })
    expect((await withdraw('40000')).success).toBe(true) // exactly at the limit
    expect((await withdraw('1')).errorCode).toBe(441)
    offsetMs += dayMs // the first two leave the window
    expect((await withdraw('1')).success).toBe(true)
    server.service.core.ledger.checkInvariant()
  })

  it("values crypto at the higher of its market's last price and the reference price", async () => {
    const fund = (accountId: number, asset: string, amount: bigint) =>
      server.service.submit({
        type: 'deposit',
        timestamp: nowMs(),
        accountId,
        asset,
        amount: amount.toString(),
        reference: `${asset}-${accountId}`,
      })
    /** Two accounts trade `amount` BTC units with each other at `price`, which sets the last. */
    const trade = async (email: string, btcUnits: number, price: number) => {
      const seller = await server.accounts.createAccount(`coins-${email}`, 'a long enough password')
      const buyer = await server.accounts.createAccount(`cash-${email}`, 'a long enough password')
      await fund(seller.id, 'BTC', toLedgerUnits(10, 0))
      await fund(buyer.id, 'EUR', toLedgerUnits(1_000_000, 0))
      for (const [accountId, side] of [
        [seller.id, 'sell'],
        [buyer.id, 'buy'],
      ] as const) {
        const placed = await server.service.submit({
          type: 'placeOrder',
          timestamp: nowMs(),
          market: 'BTC-EUR',
          orderId: `limit-${email}-${side}`,
          accountId,
          side,
          orderType: 'limit',
          amount: btcUnits,
          price,
          makerFeePpm: 0,
          takerFeePpm: 0,
        })
        expect(placed.ok).toBe(true)
      }
      expect(server.service.core.engine.ticker('BTC-EUR')!.lastPrice).toBe(price)
      const key = await server.accounts.createApiKey(seller.id, ['view', 'withdraw'])
      const withdraw = async (amount: string, symbol = 'BTC') =>
        (
          await call(key, 'POST', '/v2/withdrawal', {
            symbol,
            amount,
            address:
              symbol === 'EUR'
                ? 'NL91ABNA0417164300'
                : 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq',
            addWithdrawalFee: true,
          })
        ).json
      return { sellerId: seller.id, withdraw }
    }
    // A last price of 100,000 EUR, above the catalogue's reference (90,000), values BTC.
    const { sellerId, withdraw } = await trade('high@example.com', 1_000_000, 100_000) // 0.01 BTC
    expect((await withdraw('0.95')).success).toBe(true) // 95,000 EUR
    expect(await withdraw('0.06')).toEqual({
      errorCode: 441,
      error:
        'This withdrawal exceeds the crypto daily withdrawal limit of 100000 EUR; 5000.00 EUR is left in the last 24 hours.',
    })
    expect((await withdraw('0.05')).success).toBe(true) // exactly 5,000 EUR
    // A last price of 1 EUR, set by two accounts trading 5 BTC with each other in a quiet
    // book, does not lift the limit: the reference price still values BTC.
    const { withdraw: cheap } = await trade('low@example.com', 500_000_000, 1)
    expect(await cheap('1.2')).toMatchObject({ errorCode: 441 }) // 108,000 EUR at 90,000
    expect((await cheap('1.1')).success).toBe(true) // 99,000 EUR
    // The crypto limit is its own: euros are counted apart.
    await fund(sellerId, 'EUR', toLedgerUnits(10, 0))
    expect((await withdraw('10', 'EUR')).success).toBe(true)
  })
})

describe('withdrawals across a restart', () => {
  it('a withdrawal left in progress by a stop carries on from the stored state and completes once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'polder-withdrawals-'))
    let clockMs = Date.parse('2026-11-22T09:00:00Z')
    const open = () =>
      createExchangeServer(
        { ...defaultConfig, port: 0, logLevel: 'silent', dataDir, withdrawalDelayMs: 60_000 },
        testListing,
        { nowMs: () => clockMs },
      )
    try {
      const first = await open()
      const account = await first.accounts.createAccount('later@example.com', 'a long password!')
      await first.service.submit({
        type: 'deposit',
        timestamp: clockMs,
        accountId: account.id,
        asset: 'EUR',
        amount: toLedgerUnits(500_00, 2).toString(),
        reference: 'later-seed',
      })
      const reference = 'restart-1'
      expect(
        (
          await first.service.submit({
            type: 'withdraw',
            timestamp: clockMs,
            accountId: account.id,
            asset: 'EUR',
            amount: toLedgerUnits(100_00, 2).toString(),
            reference,
            address: 'NL91ABNA0417164300',
            schedule: { sendingAtMs: clockMs + 30_000, completedAtMs: clockMs + 60_000 },
            valueEurCents: 100_00,
          })
        ).ok,
      ).toBe(true)
      clockMs += 30_000
      expect(await first.withdrawalProcessor.tick()).toBe(1) // sending
      expect(first.service.core.pendingWithdrawals.get(reference)?.status).toBe('sending')
      await first.close()

      clockMs += 3_600_000 // down for an hour: due long ago when it comes back
      const second = await open()
      expect(second.service.core.pendingWithdrawals.get(reference)?.status).toBe('sending')
      expect(await second.withdrawalProcessor.tick()).toBe(1)
      expect(await second.withdrawalProcessor.tick()).toBe(0)
      const [row] = second.service.core.history.transfersOf(account.id, 'withdraw')
      expect(row).toMatchObject({ reference, status: 'completed', valueEurCents: 100_00 })
      expect(second.service.core.ledger.balance(account.id, 'EUR').available).toBe(
        toLedgerUnits(400_00, 2),
      )
      second.service.core.ledger.checkInvariant()
      await second.close()
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 60_000)
})

/** The fields of an `/account/history` item (protocol §3.2), sorted. */
const historyFields = [
  'address',
  'executedAt',
  'feesAmount',
  'feesCurrency',
  'priceAmount',
  'priceCurrency',
  'receivedAmount',
  'receivedCurrency',
  'sentAmount',
  'sentCurrency',
  'transactionId',
  'type',
]
