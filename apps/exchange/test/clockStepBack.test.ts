// A server clock that steps back (NTP, a resumed VM) never stamps a trade before the one it
// follows: the service stamps such a command at the newest trade's time. Without it, the
// archives (which find a time window's trades and fills by their ids) missed trades and fills of
// the window once written, and the candles and the 24-hour volume left out a trade stamped in a
// candle before the newest (found by two reviews).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer, type ExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader, limitOrderBody, type Trader } from './fixtures/trader.ts'

type Listed = { id: string; amount: string }

describe('a clock that steps back', () => {
  const t0 = Date.UTC(2026, 10, 20, 10, 1, 0, 500) // 10:01:00.500
  let nowMs = t0
  let server: ExchangeServer
  let baseUrl: string
  let seller: Trader
  let buyer: Trader
  const buy = async (amount: string) => {
    const response = await signedRequest(baseUrl, buyer, 'POST', '/v2/order', {
      body: limitOrderBody('buy', amount, '60000'),
      timestampMs: nowMs,
    })
    expect(response.status, JSON.stringify(response.json)).toBe(200)
  }

  beforeAll(async () => {
    ;({ server, baseUrl } = await startTestServer({ simulator: false }, { nowMs: () => nowMs }))
    seller = await createTrader(server, 'step-seller@example.com', { BTC: '1' })
    buyer = await createTrader(server, 'step-buyer@example.com', { EUR: '100000' })
    const sell = await signedRequest(baseUrl, seller, 'POST', '/v2/order', {
      body: limitOrderBody('sell', '1', '60000'),
      timestampMs: nowMs,
    })
    expect(sell.status).toBe(200)
    await buy('0.1') // 10:01:00.500
    nowMs -= 1_000 // back a second, over the minute: 10:00:59.500
    await buy('0.2')
    nowMs += 1_100 // 10:01:00.600
    await buy('0.3')
    // Past the archives' flush: the listings below read written rows.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    nowMs += 30_000
  }, 60_000)
  afterAll(() => server?.close())

  it('stamps the trade after the step at the newest trade time, never before it', () => {
    const trades = new Map(server.service.core.history.recentTrades()).get('BTC-EUR')!
    expect(trades.map((trade) => [trade.tradeId, trade.timestamp - t0])).toEqual([
      [1, 0],
      [2, 0],
      [3, 100],
    ])
  })

  it('lists a time window of written trades and fills whole', async () => {
    const window = `start=${t0 - 500}&end=${t0 + 50}`
    const trades = (await (
      await fetch(`${baseUrl}/v2/BTC-EUR/trades?${window}`)
    ).json()) as Listed[]
    expect(trades.map((trade) => trade.id)).toEqual(['2', '1'])
    const fills = await signedRequest(
      baseUrl,
      buyer,
      'GET',
      `/v2/trades?market=BTC-EUR&${window}`,
      {
        timestampMs: nowMs,
      },
    )
    expect(fills.status).toBe(200)
    expect((fills.json as Listed[]).map((fill) => fill.amount)).toEqual([
      '0.20000000',
      '0.10000000',
    ])
  })

  it('counts every trade in the candles and the 24-hour volume', async () => {
    const minutes = (await (
      await fetch(`${baseUrl}/v2/BTC-EUR/candles?interval=1m`)
    ).json()) as string[][]
    expect(minutes).toHaveLength(1)
    expect(minutes[0]![5]).toBe('0.60000000')
    const ticker = (await (await fetch(`${baseUrl}/v2/ticker/24h?market=BTC-EUR`)).json()) as {
      volume: string
    }
    expect(ticker.volume).toBe('0.60000000')
  })
})

describe('a clock that stepped back over a restart', () => {
  it('stamps the first trade after the restart no earlier than the last before it', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'polder-clock-step-'))
    const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir }
    const t0 = Date.now()
    let nowMs = t0
    const clock = { nowMs: () => nowMs }
    const first = await createExchangeServer(config, testListing, clock)
    let baseUrl = await first.listen()
    const seller = await createTrader(first, 'restart-seller@example.com', { BTC: '1' })
    const buyer = await createTrader(first, 'restart-buyer@example.com', { EUR: '100000' })
    const order = async (who: Trader, side: 'buy' | 'sell', amount: string) => {
      const response = await signedRequest(baseUrl, who, 'POST', '/v2/order', {
        body: limitOrderBody(side, amount, '60000'),
        timestampMs: nowMs,
      })
      expect(response.status, JSON.stringify(response.json)).toBe(200)
    }
    await order(seller, 'sell', '1')
    await order(buyer, 'buy', '0.1')
    await first.close()
    nowMs = t0 - 5_000
    const second = await createExchangeServer(config, testListing, clock)
    baseUrl = await second.listen()
    try {
      await order(buyer, 'buy', '0.2')
      const trades = new Map(second.service.core.history.recentTrades()).get('BTC-EUR')!
      expect(trades.map((trade) => trade.timestamp - t0)).toEqual([0, 0])
    } finally {
      await second.close()
    }
  }, 60_000)
})
