// Staking end to end on a test clock: the risk disclosure once, stake, 30 days of daily
// rewards (each day paid once), unstake, and a balanced ledger throughout.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { formatLedgerUnits, toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { stakingYieldsPpm } from '../src/staking/stakingAccrual.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { depositWhole } from './fixtures/testServer.ts'
import { webRequest } from './fixtures/webRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const dayMs = 86_400_000
let nowMs = Date.parse('2026-11-22T12:00:00Z')
let server: ExchangeServer
let baseUrl: string
let token: string
let accountId: number

const api = (method: string, path: string, body?: unknown) =>
  webRequest(baseUrl, token, method, path, body)

beforeAll(async () => {
  server = await createExchangeServer(
    { ...defaultConfig, port: 0, logLevel: 'silent', dataDir: undefined },
    testListing,
    {
      nowMs: () => nowMs,
    },
  )
  baseUrl = await server.listen()
  server.stakingAccrual.stop()
  const account = await server.accounts.createAccount(
    'staker@example.com',
    'a long enough password',
  )
  accountId = account.id
  token = (await server.accounts.createSession(account.id, 365 * dayMs)).token
  await depositWhole(server, accountId, 'ETH', 10, nowMs)
})
afterAll(() => server.close())

describe('staking', () => {
  it('lists eligible assets with their yields, all at most 15%', async () => {
    const assets = (await (await fetch(`${baseUrl}/exchange/staking/v1/assets`)).json()) as Json[]
    expect(assets.find((asset) => asset.symbol === 'ETH')).toMatchObject({
      yieldPercentPerYear: '2.8',
    })
    expect(assets.every((asset) => Number(asset.yieldPercentPerYear) <= 15)).toBe(true)
  })

  it('refuses a body that is not JSON with 102, and one that does not fit with 205 saying what to send', async () => {
    const notJson = await fetch(`${baseUrl}/exchange/staking/v1/stake`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: '{"asset":',
    })
    expect({ status: notJson.status, json: await notJson.json() }).toEqual({
      status: 400,
      json: { errorCode: 102, error: 'Invalid JSON.' },
    })
    for (const action of ['stake', 'unstake']) {
      expect(await api('POST', `/exchange/staking/v1/${action}`, { asset: 'ETH' })).toEqual({
        status: 400,
        json: {
          errorCode: 205,
          error: 'Send asset, amount and, for a first stake, acknowledgeRisk.',
        },
      })
    }
  })

  it('refuses an amount with more decimals than the asset has with 429, as orders, withdrawals and payments do', async () => {
    // ETH has 8 decimals.
    for (const action of ['stake', 'unstake']) {
      expect(
        await api('POST', `/exchange/staking/v1/${action}`, {
          asset: 'ETH',
          amount: '0.000000001',
        }),
      ).toEqual({
        status: 400,
        json: { errorCode: 429, error: 'amount parameter has too many decimal digits.' },
      })
      expect(
        (await api('POST', `/exchange/staking/v1/${action}`, { asset: 'ETH', amount: '1e-8' })).json
          .errorCode,
      ).toBe(205)
    }
  })

  it('needs the risk disclosure acknowledged with the first stake', async () => {
    const refused = await api('POST', '/exchange/staking/v1/stake', { asset: 'ETH', amount: '4' })
    expect(refused.json.errorCode).toBe(320)
    expect(
      (
        await api('POST', '/exchange/staking/v1/stake', {
          asset: 'ETH',
          amount: '4',
          acknowledgeRisk: true,
        })
      ).json.success,
    ).toBe(true)
    expect(
      (await api('POST', '/exchange/staking/v1/stake', { asset: 'ETH', amount: '1' })).json.success,
    ).toBe(true) // once is enough
    expect(
      (await api('POST', '/exchange/staking/v1/stake', { asset: 'ETH', amount: '100' })).json
        .errorCode,
    ).toBe(216)
    expect(
      (await api('POST', '/exchange/staking/v1/stake', { asset: 'BTC', amount: '1' })).json
        .errorCode,
    ).toBe(205)
    const state = await api('GET', '/exchange/staking/v1')
    expect(state.json).toMatchObject({
      riskAcknowledged: true,
      positions: [{ asset: 'ETH', amount: '5.00000000', yieldPercentPerYear: '2.8' }],
    })
    expect(server.service.core.ledger.balance(accountId, 'ETH').available).toBe(toLedgerUnits(5, 0))
  })

  it('pays one day of rewards per day for 30 days, never twice for a day', async () => {
    const daily = (toLedgerUnits(5, 0) * BigInt(stakingYieldsPpm().ETH!)) / (1_000_000n * 365n)
    // The day the 5 ETH were staked in pays nothing (it had less staked): then 30 whole days.
    for (let day = 0; day < 31; day += 1) {
      nowMs += dayMs
      expect(await server.stakingAccrual.tick()).toBe(true)
      expect(await server.stakingAccrual.tick()).toBe(false)
      if (day === 0) expect(server.service.core.stakingRewardsOf(accountId)).toEqual([])
    }
    expect(server.service.core.ledger.balance(accountId, 'ETH').available).toBe(
      toLedgerUnits(5, 0) + 30n * daily,
    )
    const state = await api('GET', '/exchange/staking/v1')
    expect(state.json.rewards).toHaveLength(30)
    server.service.core.ledger.checkInvariant()

    // The ledger (GET /v2/account/history) lists each day's reward as received, when credited.
    const apiKey = await server.accounts.createApiKey(accountId, ['view'])
    const ledger = async (query: string) =>
      (
        await signedRequest(baseUrl, apiKey, 'GET', `/v2/account/history?${query}`, {
          timestampMs: nowMs,
        })
      ).json
    const rewards = await ledger('type=staking&maxItems=100')
    expect(rewards.items).toHaveLength(30)
    expect(rewards.items[0]).toEqual({
      transactionId: `staking-ETH-${new Date(nowMs - dayMs).toISOString().slice(0, 10)}`,
      executedAt: new Date(nowMs).toISOString(),
      type: 'staking',
      priceCurrency: null,
      priceAmount: null,
      sentCurrency: null,
      sentAmount: null,
      receivedCurrency: 'ETH',
      receivedAmount: formatLedgerUnits(daily, 8), // ETH's decimals here
      feesCurrency: 'ETH',
      feesAmount: '0.00000000',
      address: null,
    })
    // With the deposit, newest first: the rewards, then the deposit.
    const everything = await ledger('maxItems=100')
    expect(everything.items.map((item: Json) => item.type)).toEqual([
      ...Array.from({ length: 30 }, () => 'staking'),
      'deposit',
    ])
  })

  it('pays each day missed (no payout ran over three midnights) with the next payout', async () => {
    const daily = (toLedgerUnits(5, 0) * BigInt(stakingYieldsPpm().ETH!)) / (1_000_000n * 365n)
    const before = server.service.core.ledger.balance(accountId, 'ETH').available
    nowMs += 3 * dayMs
    expect(await server.stakingAccrual.tick()).toBe(true)
    expect(server.service.core.ledger.balance(accountId, 'ETH').available - before).toBe(3n * daily)
    const days = server.service.core.stakingRewardsOf(accountId).slice(0, 3)
    const yesterday = Math.floor(nowMs / dayMs) * dayMs - dayMs
    expect(days.map((reward) => reward.dayMs)).toEqual([
      yesterday,
      yesterday - dayMs,
      yesterday - 2 * dayMs,
    ])
    server.service.core.ledger.checkInvariant()
  })

  it('unstakes back to the available balance; no more than is staked', async () => {
    expect(
      (await api('POST', '/exchange/staking/v1/unstake', { asset: 'ETH', amount: '6' })).json
        .errorCode,
    ).toBe(216)
    expect(
      (await api('POST', '/exchange/staking/v1/unstake', { asset: 'ETH', amount: '5' })).json
        .success,
    ).toBe(true)
    expect((await api('GET', '/exchange/staking/v1')).json.positions).toEqual([])
    server.service.core.ledger.checkInvariant()
  })
})

describe('staking across a stop', () => {
  it('pays the days missed while the exchange was stopped as it starts, before it listens', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'polder-staking-stop-'))
    let clockMs = Date.parse('2026-11-22T12:00:00Z')
    const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir }
    const clock = { nowMs: () => clockMs }
    try {
      const first = await createExchangeServer(config, testListing, clock)
      await first.listen()
      first.stakingAccrual.stop()
      const account = await first.accounts.createAccount('stopped@example.com', 'long password!')
      await first.service.submit({
        type: 'deposit',
        timestamp: clockMs,
        accountId: account.id,
        asset: 'ETH',
        amount: toLedgerUnits(10, 0).toString(),
        reference: 'eth',
      })
      const staked = await first.service.submit({
        type: 'stake',
        timestamp: clockMs,
        accountId: account.id,
        asset: 'ETH',
        amount: toLedgerUnits(10, 0).toString(),
        acknowledgeRisk: true,
        reference: 'stake',
      })
      expect(staked.ok).toBe(true)
      clockMs += dayMs // the day staked in is paid (nothing: it held less), then the stop
      expect(await first.stakingAccrual.tick()).toBe(true)
      await first.close()

      clockMs += 3 * dayMs // stopped over three midnights
      const second = await createExchangeServer(config, testListing, clock)
      try {
        await second.listen()
        second.stakingAccrual.stop()
        const daily = (toLedgerUnits(10, 0) * BigInt(stakingYieldsPpm().ETH!)) / (1_000_000n * 365n)
        expect(second.service.core.stakingRewardsOf(account.id).map((r) => r.amount)).toEqual([
          daily.toString(),
          daily.toString(),
          daily.toString(),
        ])
        second.service.core.ledger.checkInvariant()
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  }, 120_000)
})
