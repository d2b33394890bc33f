// An account's 30-day volume over the wire (GET /v2/account, /v2/account/fees), and the fee
// tier it reaches (packages/catalogue feeTiers): the next order pays that tier's fees. A tier an
// operator stores (the admin endpoint, or SQL and the account sweep) holds the same way.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { WebSocket } from 'ws'
import { feeTierIdleMs } from '../src/accounts/accountStore.ts'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { authenticateRequest, createTrader, type Trader } from './fixtures/trader.ts'

let server: ExchangeServer
let baseUrl: string
let buyer: Trader
let seller: Trader

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
  buyer = await createTrader(server, 'volume-buyer@example.com', { EUR: '250000' })
  seller = await createTrader(server, 'volume-seller@example.com', { BTC: '5' })
})
afterAll(() => server.close())

const fees = async (who: Trader) => (await signedRequest(baseUrl, who, 'GET', '/v2/account')).json

const limit = (who: Trader, side: 'buy' | 'sell', amount: string, price: string) =>
  signedRequest(baseUrl, who, 'POST', '/v2/order', {
    body: { market: 'BTC-EUR', side, orderType: 'limit', amount, price },
  })

describe('the 30-day volume', () => {
  it('counts both sides of every trade in euros, and lifts the tier once it reaches 100,000', async () => {
    expect(await fees(buyer)).toEqual({
      fees: { tier: '0', volume: '0.00', maker: '0.0015', taker: '0.0025' },
    })
    // 2 BTC at 50,000 EUR: 100,000 EUR for each side.
    expect((await limit(seller, 'sell', '2', '50000')).status).toBe(200)
    const bought = await limit(buyer, 'buy', '2', '50000')
    expect(bought.json.status).toBe('filled')
    for (const who of [buyer, seller])
      expect(await fees(who)).toEqual({
        fees: { tier: '1', volume: '100000.00', maker: '0.001', taker: '0.002' },
      })
    const fromFees = await signedRequest(baseUrl, buyer, 'GET', '/v2/account/fees?market=BTC-EUR')
    expect(fromFees.json).toEqual({
      tier: '1',
      volume: '100000.00',
      maker: '0.001',
      taker: '0.002',
    })

    // The next order pays tier 1: 0.2% of 5,000 EUR taken is 10 EUR.
    expect((await limit(seller, 'sell', '0.1', '50000')).status).toBe(200)
    const taken = await limit(buyer, 'buy', '0.1', '50000')
    expect(taken.json.fills).toEqual([
      expect.objectContaining({ fee: '10.00000000', feeCurrency: 'EUR' }),
    ])
    expect((await fees(buyer)).fees.volume).toBe('105000.00')
  })
})

describe('a fee tier an operator stores', () => {
  const setTier = (body: unknown) =>
    fetch(`${baseUrl}/admin/accounts/fee-tier`, {
      method: 'POST',
      headers: { authorization: `Bearer ${server.adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    })

  it('applies from the next order, without a restart, and refuses a tier or account that does not exist', async () => {
    const trader = await createTrader(server, 'tier-buyer@example.com', { EUR: '10000' })
    expect((await fees(trader)).fees).toMatchObject({ tier: '0', taker: '0.0025' })
    const set = await setTier({ accountId: trader.accountId, tier: 3 })
    expect(set.status).toBe(200)
    expect(await set.json()).toEqual({
      accountId: trader.accountId,
      feeTier: 3,
      maker: '0.0006',
      taker: '0.0012',
    })
    expect(await fees(trader)).toEqual({
      fees: { tier: '3', volume: '0.00', maker: '0.0006', taker: '0.0012' },
    })
    // 0.12% of 5,000 EUR taken is 6 EUR.
    expect((await limit(seller, 'sell', '0.1', '50000')).status).toBe(200)
    const taken = await limit(trader, 'buy', '0.1', '50000')
    expect(taken.json.fills).toEqual([
      expect.objectContaining({ fee: '6.00000000', feeCurrency: 'EUR' }),
    ])

    for (const [body, status, words] of [
      [{ accountId: trader.accountId, tier: 8 }, 400, /tier/],
      [{ accountId: trader.accountId, tier: '3' }, 400, /tier/],
      [{ accountId: trader.accountId }, 400, /tier/],
      [{ accountId: 999_999, tier: 2 }, 404, /no such account/],
    ] as const) {
      const refused = await setTier(body)
      expect(refused.status, JSON.stringify(body)).toBe(status)
      expect(((await refused.json()) as { error: string }).error).toMatch(words)
    }
    expect((await fees(trader)).fees.tier).toBe('3')
  })

  it('changed in the database directly, holds once the sweep has run', async () => {
    const trader = await createTrader(server, 'tier-sql@example.com', { EUR: '100' })
    expect((await fees(trader)).fees.tier).toBe('0') // read, and kept
    await server.storage.query('update accounts set fee_tier = 5 where id = $1', [trader.accountId])
    expect((await fees(trader)).fees.tier).toBe('0')
    expect((await server.accountSweep.run()).feeTiers).toBe(1)
    expect(await fees(trader)).toEqual({
      fees: { tier: '5', volume: '0.00', maker: '0.0004', taker: '0.0008' },
    })
    expect((await server.accountSweep.run()).feeTiers).toBe(0)
  })
})

describe('the account sweep on its timer', () => {
  it('runs every 15 s once the server listens', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    const started = await startTestServer()
    try {
      const trader = await createTrader(started.server, 'tier-timer@example.com', { EUR: '100' })
      const tierOf = async () =>
        (await signedRequest(started.baseUrl, trader, 'GET', '/v2/account')).json.fees.tier
      expect(await tierOf()).toBe('0')
      await started.server.storage.query('update accounts set fee_tier = 2 where id = $1', [
        trader.accountId,
      ])
      await vi.advanceTimersByTimeAsync(14_000)
      expect(await tierOf()).toBe('0')
      await vi.advanceTimersByTimeAsync(1_000)
      await expect.poll(tierOf).toBe('2')
    } finally {
      vi.useRealTimers()
      await started.server.close()
    }
  })
})

describe('the 30-day volume across a restart', () => {
  it('comes back from the snapshot and the journal after it, and with it the tier', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'polder-volume-'))
    const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir }
    try {
      const first = await createExchangeServer(config, testListing)
      const firstUrl = await first.listen()
      const maker = await createTrader(first, 'restart-maker@example.com', { BTC: '5' })
      const taker = await createTrader(first, 'restart-taker@example.com', { EUR: '250000' })
      const trade = async (amount: string) => {
        for (const [who, side] of [
          [maker, 'sell'],
          [taker, 'buy'],
        ] as const)
          await signedRequest(firstUrl, who, 'POST', '/v2/order', {
            body: { market: 'BTC-EUR', side, orderType: 'limit', amount, price: '50000' },
          })
      }
      // 60,000 EUR before a snapshot, 40,000 after it, in the journal only.
      await trade('1.2')
      await first.service.snapshot()
      await trade('0.8')
      await first.close()

      const second = await createExchangeServer(config, testListing)
      const secondUrl = await second.listen()
      try {
        const account = await signedRequest(secondUrl, taker, 'GET', '/v2/account')
        expect(account.json).toEqual({
          fees: { tier: '1', volume: '100000.00', maker: '0.001', taker: '0.002' },
        })
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

describe('fee tiers kept in memory', () => {
  it('are let go once no order has asked for them in a while, but those of accounts with an authenticated WebSocket', async () => {
    let shiftMs = 0
    const clock = { nowMs: () => Date.now() + shiftMs }
    const started = await startTestServer({}, clock)
    const ws = new WebSocket(`${started.baseUrl.replace('http', 'ws')}/v2`)
    const opened = new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    try {
      const overRest = await createTrader(started.server, 'tier-rest@example.com', { EUR: '10000' })
      const overWs = await createTrader(started.server, 'tier-ws@example.com', { EUR: '10000' })
      const order = (who: Trader) =>
        signedRequest(started.baseUrl, who, 'POST', '/v2/order', {
          body: {
            market: 'BTC-EUR',
            side: 'buy',
            orderType: 'limit',
            amount: '0.01',
            price: '900',
          },
          timestampMs: clock.nowMs(),
        })
      for (const who of [overRest, overWs]) expect((await order(who)).status).toBe(200)
      const authenticated = new Promise<unknown>((resolve, reject) => {
        ws.once('message', (data) => resolve(JSON.parse(String(data))))
        ws.once('error', reject)
      })
      await opened
      ws.send(JSON.stringify(authenticateRequest(overWs, clock.nowMs())))
      expect(await authenticated).toEqual({ event: 'authenticate', authenticated: true })
      const { accounts } = started.server
      expect([
        accounts.cachedFeeTier(overRest.accountId),
        accounts.cachedFeeTier(overWs.accountId),
      ]).toEqual([0, 0])

      // Used just now: kept; an order keeps it for as long again.
      expect((await started.server.accountSweep.run()).feeTiersForgotten).toBe(0)
      shiftMs = feeTierIdleMs - 60_000
      expect((await order(overRest)).status).toBe(200)
      shiftMs = feeTierIdleMs + 60_000
      expect((await started.server.accountSweep.run()).feeTiersForgotten).toBe(0)
      shiftMs = 2 * feeTierIdleMs
      expect((await started.server.accountSweep.run()).feeTiersForgotten).toBe(1)
      expect(accounts.cachedFeeTier(overRest.accountId)).toBeUndefined()
      expect(accounts.cachedFeeTier(overWs.accountId)).toBe(0)

      // A tier stored meanwhile holds from the next order, which reads it anew: 0.12% of 1,000 EUR
      // taken (tier 3) is 1.20 EUR, where tier 0 takes 2.50.
      await started.server.storage.query('update accounts set fee_tier = 3 where id = $1', [
        overRest.accountId,
      ])
      const seller = await createTrader(started.server, 'tier-seller@example.com', { BTC: '1' })
      const sell = await signedRequest(started.baseUrl, seller, 'POST', '/v2/order', {
        body: { market: 'BTC-EUR', side: 'sell', orderType: 'limit', amount: '1', price: '1000' },
        timestampMs: clock.nowMs(),
      })
      expect(sell.json.status).toBe('new')
      const taken = await signedRequest(started.baseUrl, overRest, 'POST', '/v2/order', {
        body: { market: 'BTC-EUR', side: 'buy', orderType: 'market', amount: '1' },
        timestampMs: clock.nowMs(),
      })
      expect(taken.json.fills).toEqual([expect.objectContaining({ fee: '1.20000000' })])
      expect(accounts.cachedFeeTier(overRest.accountId)).toBe(3)
    } finally {
      ws.close()
      await started.server.close()
    }
  })
})
