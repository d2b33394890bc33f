// At start: load the stored candle history and attach it to the market stats, whatever the
// simulator does (a restart with --no-simulator keeps the 60 days on the charts). With the
// simulator on, also backfill the markets that have none and have never traded (all of them on
// an exchange's first start; a market listed later gets its own when it first starts). A market
// that already traded without history (a data directory from before the backfill existed) is
// left alone: history ending now would overlap its live candles.
import { CandleHistory, validPrice } from '../core/candleHistory.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { loadCandleHistory, saveCandleHistory } from '../storage/candleHistoryStore.ts'
import type { SqlDriver } from '../storage/sqlDriver.ts'
import { type BackfillMarket, backfillCandles, hourlyVolumeOfSimulator } from './backfill.ts'
import type { MarketSimulator } from './marketSimulator.ts'

export type HistoryStartup = {
  /** Markets with history now. */
  markets: number
  /** Markets backfilled by this start (0 on every start after the first). */
  backfilled: number
  /** Time spent generating and storing the backfill, in ms. */
  backfillMs: number
}

export async function openCandleHistory(
  storage: SqlDriver,
  service: ExchangeService,
  /** Undefined (the simulator off): nothing is backfilled. */
  simulator: MarketSimulator | undefined,
  seed: number,
  nowMs: () => number,
): Promise<{ history: CandleHistory; startup: HistoryStartup }> {
  const stored = await loadCandleHistory(storage)
  const known = new Set(stored.map((history) => history.market))
  const engine = service.core.engine
  const missing: BackfillMarket[] = (simulator?.startingPrices() ?? [])
    .filter(({ spec }) => !known.has(spec.market) && !engine.ticker(spec.market)?.lastPrice)
    .map(({ spec, priceUnits, volatilityPercentPerDay }) => ({
      market: spec.market,
      endPrice: validPrice(priceUnits, spec.tickUnits, spec.pricePrecision),
      volatilityPercentPerDay,
      tickUnits: spec.tickUnits,
      pricePrecision: spec.pricePrecision,
      minPrice: spec.minPrice,
      maxPrice: spec.maxPrice,
      minAmount: spec.minAmount,
      quotePerPriceBase: spec.quotePerPriceBase,
      // Sized like the simulator's own taker flow at its configured pace, so the volume bars
      // do not jump where the history meets the live trades.
      hourlyVolume: hourlyVolumeOfSimulator(
        spec.minAmount,
        simulator!.pace.requoteIntervalMs,
        simulator!.pace.takerProbability,
      ),
    }))
  const startedMs = performance.now()
  const backfilled = missing.length === 0 ? [] : backfillCandles(seed, nowMs(), missing)
  if (backfilled.length > 0) await saveCandleHistory(storage, backfilled, nowMs())
  const history = new CandleHistory([...stored, ...backfilled])
  service.core.stats.attachHistory(history)
  return {
    history,
    startup: {
      markets: history.size,
      backfilled: backfilled.length,
      backfillMs: Math.round(performance.now() - startedMs),
    },
  }
}
