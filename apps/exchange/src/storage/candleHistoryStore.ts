// The simulated candle history (core/candleHistory.ts) in SQL: one row per market, written once
// in one transaction and read whole at start. The hours are stored as small integers (each
// hour's move from the previous close, its wicks beyond open and close, its volume; the quote
// volume is derived), about a third of the plain numbers' size: the save is part of the first
// start, which `npm start` must finish within seconds.
import { hourFields, type MarketHistory } from '../core/candleHistory.ts'
import { hourVolumeQuote } from '../simulator/backfill.ts'
import type { SqlDriver, SqlParam } from './sqlDriver.ts'

type StoredHistory = Omit<MarketHistory, 'hours' | 'market'> & {
  /** The first open, then per hour: close − open, high − max(open, close), min(open, close) − low, volume. */
  hours: number[]
}

/** Rows per insert statement: a bound on one statement's size (each row holds ~20 kB). */
const rowsPerInsertMax = 50

export function encodeHours(hours: Float64Array): number[] {
  const encoded = [hours[0] ?? 0]
  for (let at = 0; at < hours.length; at += hourFields) {
    const [open, high, low, close, volume] = hours.subarray(at, at + 5) as unknown as [
      number,
      number,
      number,
      number,
      number,
    ]
    encoded.push(close - open, high - Math.max(open, close), Math.min(open, close) - low, volume)
  }
  return encoded
}

export function decodeHours(encoded: readonly number[], quotePerPriceBase: number): Float64Array {
  const count = (encoded.length - 1) / 4
  if (!Number.isInteger(count)) throw new Error('candle history is damaged')
  const hours = new Float64Array(count * hourFields)
  let open = encoded[0]!
  for (let index = 0; index < count; index += 1) {
    const [move, above, below, volume] = encoded.slice(1 + index * 4, 5 + index * 4) as [
      number,
      number,
      number,
      number,
    ]
    const close = open + move
    const high = Math.max(open, close) + above
    const low = Math.min(open, close) - below
    const volumeQuote = hourVolumeQuote(open, high, low, close, volume, quotePerPriceBase)
    hours.set([open, high, low, close, volume, volumeQuote], index * hourFields)
    open = close
  }
  return hours
}

export async function loadCandleHistory(driver: SqlDriver): Promise<MarketHistory[]> {
  const rows = await driver.query<{ market: string; history: string }>(
    'select market, history from candle_history order by market',
  )
  return rows.map((row) => {
    const stored = JSON.parse(row.history) as StoredHistory
    return {
      ...stored,
      market: row.market,
      hours: decodeHours(stored.hours, stored.quotePerPriceBase),
    }
  })
}

/** Saves every history at once (all or none), keeping any row already there. */
export async function saveCandleHistory(
  driver: SqlDriver,
  histories: readonly MarketHistory[],
  createdAtMs: number,
): Promise<void> {
  await driver.transaction(async (tx) => {
    for (let from = 0; from < histories.length; from += rowsPerInsertMax) {
      const params: SqlParam[] = []
      const rows: string[] = []
      for (const { market, hours, ...rest } of histories.slice(from, from + rowsPerInsertMax)) {
        const at = params.length
        rows.push(`($${at + 1}, $${at + 2}, $${at + 3})`)
        const stored: StoredHistory = { ...rest, hours: encodeHours(hours) }
        params.push(market, JSON.stringify(stored), createdAtMs)
      }
      await tx.query(
        `insert into candle_history (market, history, created_at_ms) values ${rows.join(', ')}
         on conflict (market) do nothing`,
        params,
      )
    }
  })
}
