// Stakes and unstakes sent with an Idempotency-Key, on a real server with a data directory: a
// retry after a lost answer (same key) is answered with what the first did and stakes nothing
// more, across a restart too, for a day; a malformed key is refused before anything is staked.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import {
  ExchangeCore,
  recentStakeKeptMs,
  recentStakesPerAccountMax,
} from '../src/core/exchangeCore.ts'
import { stringifyInSlices } from '../src/core/stringifyInSlices.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { answeredWithin, holdJournalWrites } from './fixtures/journalGate.ts'
import { testListing } from './fixtures/testListing.ts'
import { depositWhole } from './fixtures/testServer.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

const dataDir = mkdtempSync(join(tmpdir(), 'polder-staking-keys-'))
const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir }
let nowMs = Date.parse('2026-11-22T12:00:00Z')
let server: ExchangeServer
let baseUrl: string
let token: string
let accountId: number

async function start(): Promise<void> {
  server = await createExchangeServer(config, testListing, { nowMs: () => nowMs })
  baseUrl = await server.listen()
  server.stakingAccrual.stop()
}

const send = async (action: 'stake' | 'unstake', key: string | undefined, amount: string) => {
  const response = await fetch(`${baseUrl}/exchange/staking/v1/${action}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(key === undefined ? {} : { 'idempotency-key': key }),
    },
    body: JSON.stringify({ asset: 'ETH', amount, acknowledgeRisk: true }),
  })
  return { status: response.status, json: (await response.json()) as Json }
}

/** The account's ETH staked and available, as the ledger holds them (whole ETH as numbers). */
const eth = () => {
  const staked = server.service.core.stakes.get(`${accountId} ETH`) ?? 0n
  const available = server.service.core.ledger.balance(accountId, 'ETH').available
  const whole = toLedgerUnits(1, 0)
  return { staked: Number(staked) / Number(whole), available: Number(available) / Number(whole) }
}

beforeAll(async () => {
  await start()
  const account = await server.accounts.createAccount('keys@example.com', 'a long enough password')
  accountId = account.id
  token = (await server.accounts.createSession(account.id, 365 * 86_400_000)).token
  await depositWhole(server, accountId, 'ETH', 10, nowMs)
})
afterAll(async () => {
  await server.close()
  rmSync(dataDir, { recursive: true, force: true })
})

describe('a stake or unstake sent with an Idempotency-Key', () => {
  it('is applied once however often it is sent, and each answer says what was done', async () => {
    const first = await send('stake', 'stake-1', '1.50')
    expect(first).toEqual({ status: 200, json: { success: true, asset: 'ETH', amount: '1.5' } })
    expect(await send('stake', 'stake-1', '1.50')).toEqual(first)
    // What a retry asks is not looked at again: the key names the stake already made.
    expect(await send('stake', 'stake-1', '3')).toEqual(first)
    expect(eth()).toEqual({ staked: 1.5, available: 8.5 })

    // An unstake's keys are its own: the same key unstakes once, a stake's key staked once.
    const unstaked = await send('unstake', 'stake-1', '0.5')
    expect(unstaked).toEqual({ status: 200, json: { success: true, asset: 'ETH', amount: '0.5' } })
    expect(await send('unstake', 'stake-1', '0.5')).toEqual(unstaked)
    expect(eth()).toEqual({ staked: 1, available: 9 })

    // Another key, or none, is another stake.
    expect((await send('stake', 'stake-2', '1')).status).toBe(200)
    expect((await send('stake', undefined, '1')).status).toBe(200)
    expect((await send('stake', undefined, '1')).status).toBe(200)
    expect(eth()).toEqual({ staked: 4, available: 6 })
    server.service.core.ledger.checkInvariant()
  })

  it('is applied again with the same key when the first was refused: nothing was done', async () => {
    expect(await send('unstake', 'too-much', '100')).toMatchObject({
      status: 400,
      json: { errorCode: 216 },
    })
    expect(await send('unstake', 'too-much', '1')).toEqual({
      status: 200,
      json: { success: true, asset: 'ETH', amount: '1' },
    })
    expect(eth()).toEqual({ staked: 3, available: 7 })
  })

  it('answers a retry only once the stake it repeats is durable', async () => {
    // A slow journal commit, the reason a client's first attempt times out and is sent again.
    const release = holdJournalWrites(server)
    try {
      const first = send('stake', 'slow-commit', '1')
      expect(await answeredWithin(first)).toBe('waiting')
      const again = send('stake', 'slow-commit', '1')
      // A crash now would take the stake back: the retry must not say it was made.
      expect(await answeredWithin(again)).toBe('waiting')
      release()
      expect((await first).status).toBe(200)
      expect(await again).toEqual(await first)
    } finally {
      release()
    }
    expect(eth()).toEqual({ staked: 4, available: 6 })
  })

  it('is still applied once after a restart, and again once a day has passed', async () => {
    await server.close()
    nowMs += 60_000
    await start()
    expect(await send('stake', 'stake-2', '1')).toEqual({
      status: 200,
      json: { success: true, asset: 'ETH', amount: '1' },
    })
    expect(eth()).toEqual({ staked: 4, available: 6 })

    // A day later the key is forgotten (as a client's retries have long stopped): a stake again,
    // and the same key again is that one's retry.
    nowMs += recentStakeKeptMs
    expect((await send('stake', 'stake-2', '2')).json.amount).toBe('2')
    expect((await send('stake', 'stake-2', '2')).json.amount).toBe('2')
    expect(eth()).toEqual({ staked: 6, available: 4 })
    server.service.core.ledger.checkInvariant()
  })

  it('refuses a key that is not 1 to 100 visible ASCII characters with 205, and stakes nothing', async () => {
    for (const key of ['with space', 'x'.repeat(101), 'clé'])
      for (const action of ['stake', 'unstake'] as const)
        expect(await send(action, key, '1')).toEqual({
          status: 400,
          json: { errorCode: 205, error: 'Idempotency-Key parameter is invalid.' },
        })
    expect(eth()).toEqual({ staked: 6, available: 4 })
  })
})

describe("the core's stakes kept by reference", () => {
  const stake = (core: ExchangeCore, accountId: number, reference: string, timestamp: number) =>
    core.apply({
      type: 'stake',
      timestamp,
      accountId,
      asset: 'ETH',
      amount: '1',
      acknowledgeRisk: true,
      reference,
    })
  const coreWithEth = (accounts: number[]) => {
    const core = new ExchangeCore()
    for (const accountId of accounts)
      core.apply({
        type: 'deposit',
        timestamp: nowMs,
        accountId,
        asset: 'ETH',
        amount: toLedgerUnits(1, 0).toString(),
        reference: `eth ${accountId}`,
      })
    return core
  }

  it("are at most 1,000 an account: one account's stakes never push out another's", () => {
    const core = coreWithEth([1, 2])
    expect(stake(core, 2, 'theirs', nowMs).ok).toBe(true)
    for (let index = 0; index <= recentStakesPerAccountMax; index += 1)
      expect(stake(core, 1, `mine ${index}`, nowMs + index).ok).toBe(true)
    const atMs = nowMs + 2_000
    expect(core.recentStake(1, 'mine 0', atMs)).toBeUndefined()
    expect(core.recentStake(1, 'mine 1', atMs)).toMatchObject({ accountId: 1, type: 'stake' })
    expect(core.recentStake(2, 'theirs', atMs)).toMatchObject({ accountId: 2 })
    // A reference is the account's own: another account's is not found under it.
    expect(core.recentStake(1, 'theirs', atMs)).toBeUndefined()
    // The same reference again is refused, never applied twice.
    expect(stake(core, 2, 'theirs', nowMs + 2_000)).toMatchObject({ ok: false, errorCode: 205 })
  })

  it('of an account that stakes no more are let go a day after its last, and read back alike', async () => {
    const core = coreWithEth([1, 2])
    expect(stake(core, 1, 'early', nowMs).ok).toBe(true)
    expect(stake(core, 2, 'later', nowMs + 60_000).ok).toBe(true)
    const restored = new ExchangeCore(JSON.parse(await stringifyInSlices(core.snapshot(), 50, 0)))
    for (const each of [core, restored]) {
      expect(stake(each, 2, 'next day', nowMs + recentStakeKeptMs + 1).ok).toBe(true)
      const kept = each.snapshot().staking!.recent!.map((stake) => stake.reference)
      expect(kept).toEqual(['later', 'next day'])
    }
  })
})
