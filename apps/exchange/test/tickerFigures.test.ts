// The rolling 24 hours of `ticker24h` agree with the candles and trades they sum: at a window
// of 1,441 traded minutes, and after the clock stepped back (both found by a review of the
// market-data figures, 2026-11-28). No simulator; trades placed through the exchange service
// at known times on a clock the test moves.
import { afterEach, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { tradeManyTimes } from './fixtures/manyTrades.ts'
import { startTestServer } from './fixtures/testServer.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any
const minuteMs = 60_000

/** Sum of decimal strings with 8 decimals, as an 8-decimal string. */
function sum8(values: readonly string[]): string {
  let total = 0n
  for (const value of values) {
    const [whole, fraction = ''] = value.split('.')
    total += BigInt(whole!) * 100_000_000n + BigInt(fraction.padEnd(8, '0').slice(0, 8))
  }
  const text = total.toString().padStart(9, '0')
  return `${text.slice(0, -8)}.${text.slice(-8)}`
}

let server: ExchangeServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function get(baseUrl: string, path: string): Promise<Json> {
  const response = await fetch(`${baseUrl}/v2${path}`)
  expect(response.status, path).toBe(200)
  return response.json()
}

describe('ticker24h against the candles and trades it sums', () => {
  it('ticker24h volume equals the 1m candles of its window when the window holds 1,441 traded minutes', async () => {
    // README "Tickers and candles": the 24 hours are "the minutes that begin within
    // [startTimestamp, timestamp]". When `timestamp` falls on a whole minute that is 1,441
    // minutes: the core keeps 1,441 1m candles for it (it kept 1,440, and the oldest minute,
    // listed by /candles from the archive, was left out of the ticker).
    const t0 = Date.UTC(2026, 10, 20, 10, 0, 0)
    let nowMs = t0
    const started = await startTestServer({ simulator: false }, { nowMs: () => nowMs })
    server = started.server
    // One 0.001 BTC trade a minute, at t0 + 1 min … t0 + 1,441 min (manyTrades: index × spacing).
    await tradeManyTimes(server, { count: 1441, startMs: t0, spacingMs: minuteMs })
    nowMs = t0 + 1441 * minuteMs // the newest trade's minute, exactly 24 h after the oldest's
    const ticker = await get(started.baseUrl, '/ticker/24h?market=BTC-EUR')
    expect(ticker.startTimestamp).toBe(t0 + minuteMs)
    expect(ticker.timestamp).toBe(nowMs)
    // The window's 1m candles, end exclusive: two pages (one request returns at most 1,440).
    const window = `start=${ticker.startTimestamp}&end=${ticker.timestamp + 1}`
    const newest: string[][] = await get(
      started.baseUrl,
      `/BTC-EUR/candles?interval=1m&${window}&limit=1440`,
    )
    const older: string[][] = await get(
      started.baseUrl,
      `/BTC-EUR/candles?interval=1m&start=${ticker.startTimestamp}&end=${Number(newest.at(-1)![0])}`,
    )
    const minutes = [...newest, ...older]
    expect(minutes).toHaveLength(1441)
    expect(Number(minutes.at(-1)![0])).toBe(ticker.startTimestamp)
    // The ticker's own promise: volume is the sum of those minutes (1,441 trades of 0.001 BTC at
    // 60,000 EUR), open the first of them (it answered 1.44000000 / 86400.00, from the second).
    expect(sum8(minutes.map((candle) => candle[5]!))).toBe('1.44100000')
    expect({
      volume: ticker.volume,
      volumeQuote: ticker.volumeQuote,
      openTimestamp: ticker.openTimestamp,
    }).toEqual({ volume: '1.44100000', volumeQuote: '86460.00', openTimestamp: t0 + minuteMs })
  }, 60_000)

  it('ticker24h counts the trade it shows as last, after the clock stepped back over a minute', async () => {
    // A step back of the clock (test/clockStepBack.test.ts): the service stamps the next
    // command at the newest trade's time, and the ticker's window ends there too while the
    // clock is behind it. It read the clock: the newest trades then lay in a minute beginning
    // after `timestamp`, shown as `last` (closeTimestamp after its own timestamp) and left out
    // of every other figure, while /candles listed them.
    const t0 = Date.UTC(2026, 10, 21, 10, 0, 59, 0)
    let nowMs = t0
    const started = await startTestServer({ simulator: false }, { nowMs: () => nowMs })
    server = started.server
    // One trade of 0.001 BTC at 60,000 EUR at 10:01:00.000 (the seller's ask at 10:00:59).
    await tradeManyTimes(server, { count: 1, startMs: t0, spacingMs: 1_000 })
    nowMs = t0 + 500 // the clock steps back a second: 10:00:59.500
    const ticker = await get(started.baseUrl, '/ticker/24h?market=BTC-EUR')
    const candles: string[][] = await get(started.baseUrl, '/BTC-EUR/candles?interval=1m')
    expect(candles).toHaveLength(1)
    expect(candles[0]![5]).toBe('0.00100000')
    expect(ticker.last).toBe('60000')
    // The trade shown as last is counted in the ticker's figures, and lies within its window.
    expect(ticker).toMatchObject({
      open: '60000',
      high: '60000',
      low: '60000',
      volume: '0.00100000',
      volumeQuote: '60.00',
    })
    expect(ticker.closeTimestamp).toBeLessThanOrEqual(ticker.timestamp)
  }, 60_000)
})
