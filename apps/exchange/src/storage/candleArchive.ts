// Candles older than the core keeps: the core holds each interval's newest 1,440 live candles
// (a day of 1m candles), and `/{market}/candles` would otherwise answer nothing between them and
// the simulated history, where a client paging back (ccxt's fetchOHLCV) expects candles as long
// as the market traded. A projection of durable trades, as the trade archive is: a candle is
// archived once it has closed, when the first durable trade of a later candle of its interval
// comes, taken as it stands then in the core's memory (final: no trade is stamped before the
// newest). The candle still open stays in memory only.
//
// - Intervals from 1m to 12h are archived; 1d, 1W and 1M keep 1,440 in memory (four years of
//   days), enough without.
// - Each market and interval keeps `candleIntervalsKept` intervals back from now (7 days of 1m,
//   35 of 5m, 420 of 1h, 14 years of 12h), pruned with the trades.
// - Embedded default: `candles.sqlite` in the data directory (node:sqlite, WAL), as trades.
//   PostgreSQL (DATABASE_URL): the `archived_candles` table (migration 12).
// - A crash loses at most the unwritten batch: on start the core's closed candles newer than
//   the archive's newest of their series are written again (`catchUp`), which reach back past
//   that batch unless more than 1,440 intervals have passed without a write.
//
// Queued, written, listed and caught up as projectionArchive.ts says; the id of a candle within
// its series is its start, which rises with time.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { DatabaseSync, StatementSync } from 'node:sqlite'
import type { TradeEvent } from '@polder/engine'
import {
  type Candle,
  type CandleInterval,
  candleIntervals,
  candleStartMs,
  candlesPerIntervalMax,
  fixedIntervalMs,
  type MarketStats,
} from '../core/marketStats.ts'
import type { StorageLocation } from './openStorage.ts'
import {
  type ArchiveWindow,
  catchUpFlushRows,
  catchUpPartitionsPerQuery,
  insertIgnoringDuplicates,
  ProjectionArchive,
  SqliteArchiveFile,
} from './projectionArchive.ts'
import { type SqlDriver, toTextArray } from './sqlDriver.ts'

/** The intervals whose older candles are archived: the core keeps four years of the others. */
export type ArchivedInterval = Exclude<CandleInterval, '1d' | '1W' | '1M'>
export const archivedIntervals = candleIntervals.filter(
  (interval): interval is ArchivedInterval => !['1d', '1W', '1M'].includes(interval),
)

/** How many intervals back from now each series is kept: 7 days of 1m candles. */
export const candleIntervalsKept = 10_080

/** Rows deleted in one step of a prune, the event loop running in between. */
const candlePruneRowsPerStep = 2_000

export function isArchivedInterval(interval: CandleInterval): interval is ArchivedInterval {
  return (archivedIntervals as readonly string[]).includes(interval)
}

export type CandleSeries = { market: string; interval: ArchivedInterval }
export type ArchivedCandle = Candle & CandleSeries

type Row = {
  market: string
  candle_interval: string
  start_ms: number | string
  open: number | string
  high: number | string
  low: number | string
  close: number | string
  volume: number | string
  volume_quote: string
}

const columns = 'market, candle_interval, start_ms, open, high, low, close, volume, volume_quote'

function candleOf(row: Row): ArchivedCandle {
  return {
    market: row.market,
    interval: row.candle_interval as ArchivedInterval,
    timestamp: Number(row.start_ms),
    open: Number(row.open),
    high: Number(row.high),
    low: Number(row.low),
    close: Number(row.close),
    volume: Number(row.volume),
    volumeQuote: BigInt(row.volume_quote),
  }
}

const valuesOf = (candle: ArchivedCandle) =>
  [
    candle.market,
    candle.interval,
    candle.timestamp,
    candle.open,
    candle.high,
    candle.low,
    candle.close,
    candle.volume,
    candle.volumeQuote.toString(),
  ] as const

/** Closed candles, partitioned by market and interval. */
export abstract class CandleArchive extends ProjectionArchive<ArchivedCandle, CandleSeries> {
  /** Per market, the start of the candle each archived interval has open (in interval order). */
  readonly #open = new Map<string, number[]>()
  #stats: MarketStats | undefined
  #pruning: Promise<number> | undefined

  constructor(options: { queueMax?: number } = {}) {
    super('candle', options)
  }

  protected idOf(candle: ArchivedCandle): number {
    return candle.timestamp
  }

  protected timeOf(candle: ArchivedCandle): number {
    return candle.timestamp
  }

  protected isIn(candle: ArchivedCandle, series: CandleSeries): boolean {
    return candle.market === series.market && candle.interval === series.interval
  }

  protected missesSome(known: number, recent: readonly ArchivedCandle[]): boolean {
    return seriesMissesSome(known, recent)
  }

  /**
   * Writes the closed candles the core holds that the archive does not (a crash's unwritten
   * batch, or every closed candle on the first start with an archive), and from then on archives
   * each candle of `stats` as it closes (`noteTrade`).
   */
  async follow(stats: MarketStats): Promise<{ written: number; gaps: CandleSeries[] }> {
    this.#stats = stats
    // The core's series as they stand (no copies): the candles are made only for those the
    // archive lacks, a series at a time, and written as they come.
    const series: [CandleSeries, readonly Candle[]][] = []
    for (const [index, interval] of archivedIntervals.entries())
      for (const [market, candles] of stats.liveSeries(interval)) {
        let open = this.#open.get(market)
        if (open === undefined) {
          open = archivedIntervals.map(() => Number.NEGATIVE_INFINITY)
          this.#open.set(market, open)
        }
        open[index] = candles.at(-1)!.timestamp
        series.push([{ market, interval }, candles])
      }
    let written = 0
    const gaps: CandleSeries[] = []
    for (let from = 0; from < series.length; from += catchUpPartitionsPerQuery) {
      const chunk = series.slice(from, from + catchUpPartitionsPerQuery)
      const knowns = await this.newestIds(chunk.map(([wanted]) => wanted))
      for (const [index, [wanted, candles]] of chunk.entries()) {
        const known = knowns[index]!
        // The closed ones are all but the last; those newer than the archive's newest are missing.
        const closedCount = candles.length - 1
        let first = closedCount
        while (first > 0 && candles[first - 1]!.timestamp > known) first -= 1
        if (first === closedCount) continue
        if (known > 0 && seriesMissesSome(known, candles.slice(0, closedCount))) gaps.push(wanted)
        for (let at = first; at < closedCount; at += 1) this.add({ ...candles[at]!, ...wanted })
        written += closedCount - first
        if (this.queued >= catchUpFlushRows) await this.flush().catch(() => {})
      }
    }
    // A store that refuses writes now does not keep the server from starting: the candles wait
    // in the queue, and the write is retried.
    await this.flush().catch(() => {})
    return { written, gaps }
  }

  /**
   * A durable trade: the candles it closes (the open one of each interval, when the trade
   * begins a later one) are archived, as the core holds them now.
   */
  noteTrade(trade: TradeEvent): void {
    const stats = this.#stats
    if (stats === undefined) return
    let open = this.#open.get(trade.market)
    if (open === undefined) {
      open = archivedIntervals.map(() => Number.NEGATIVE_INFINITY)
      this.#open.set(trade.market, open)
    }
    for (const [index, interval] of archivedIntervals.entries()) {
      const startMs = candleStartMs(interval, trade.timestamp)
      const openMs = open[index]!
      if (startMs <= openMs) continue
      open[index] = startMs
      if (openMs === Number.NEGATIVE_INFINITY) continue
      const closed = stats.liveCandle(trade.market, interval, openMs)
      if (closed !== undefined) this.add({ ...closed, market: trade.market, interval })
    }
  }

  /** A series' archived candles of the window, newest first (written or still waiting). */
  async list(
    series: CandleSeries,
    startMs: number,
    endMs: number,
    limit: number,
  ): Promise<Candle[]> {
    const archived = await this.listIn(series, {
      startMs,
      endMs,
      fromId: startMs,
      toId: endMs,
      limit,
    })
    return archived.map(({ market: _market, interval: _interval, ...candle }) => candle)
  }

  /**
   * Deletes the candles of `markets` older than `candleIntervalsKept` intervals before `nowMs`,
   * a step at a time; returns how many went.
   */
  prune(nowMs: number, markets: Iterable<string>): Promise<number> {
    if (this.#pruning !== undefined) return this.#pruning // one at a time
    const pruning = this.#prune(nowMs, [...markets])
    this.#pruning = pruning
    const done = () => {
      if (this.#pruning === pruning) this.#pruning = undefined
    }
    pruning.then(done, done)
    return pruning
  }

  async #prune(nowMs: number, markets: readonly string[]): Promise<number> {
    let deleted = 0
    for (const interval of archivedIntervals) {
      const beforeMs = nowMs - candleIntervalsKept * fixedIntervalMs[interval]!
      for (const market of markets)
        for (;;) {
          if (this.closed) return deleted
          const step = await this.deleteOlder(
            { market, interval },
            beforeMs,
            candlePruneRowsPerStep,
          )
          deleted += step
          if (step < candlePruneRowsPerStep) break
          await new Promise<void>((resolve) => setImmediate(resolve))
        }
    }
    return deleted
  }

  /** A prune stops at its next step once the archive is closed. */
  protected override async beforeClose(): Promise<void> {
    await this.#pruning?.catch(() => {})
  }

  /** Deletes up to `limit` candles of the series that start before `beforeMs`. */
  protected abstract deleteOlder(
    series: CandleSeries,
    beforeMs: number,
    limit: number,
  ): Promise<number>
}

/**
 * Whether a series' closed candles in the core (`closed`, oldest first) may have lost some newer
 * than the archive's newest (`known`): a series the core holds whole (fewer candles than it
 * keeps) has lost none; a full one whose oldest is newer than `known` may have.
 */
function seriesMissesSome(known: number, closed: readonly Candle[]): boolean {
  return closed.length >= candlesPerIntervalMax - 1 && closed[0]!.timestamp > known
}

/**
 * Candles of [startMs, endMs], newest first, at most `limit`: the live ones the core holds, then
 * the archived ones older than those, then the simulated history.
 */
export async function readCandles(
  stats: MarketStats,
  archive: CandleArchive | undefined,
  market: string,
  interval: CandleInterval,
  startMs: number,
  endMs: number,
  limit: number,
): Promise<Candle[]> {
  // Taken before the archive is read: a candle the core lets go of meanwhile is archived by then.
  const live = stats.liveCandles(market, interval, startMs, endMs, limit)
  const oldestLiveMs = stats.oldestLiveMs(market, interval) ?? Number.POSITIVE_INFINITY
  const archivedEndMs = Math.min(endMs, oldestLiveMs - 1)
  if (
    archive !== undefined &&
    isArchivedInterval(interval) &&
    live.length < limit &&
    startMs <= archivedEndMs
  )
    live.push(
      ...(await archive.list({ market, interval }, startMs, archivedEndMs, limit - live.length)),
    )
  return stats.withHistory(market, interval, startMs, endMs, limit, live)
}

/** The archive in a SQLite file (or in memory when `path` is undefined). */
export class SqliteCandleArchive extends CandleArchive {
  readonly kind = 'sqlite'
  readonly #db: DatabaseSync
  readonly #select: StatementSync
  readonly #newest: StatementSync
  readonly #file: SqliteArchiveFile

  constructor(path: string | undefined) {
    super()
    this.#file = new SqliteArchiveFile(
      path,
      `create table if not exists archived_candles (
        market text not null,
        candle_interval text not null,
        start_ms integer not null,
        open integer not null,
        high integer not null,
        low integer not null,
        close integer not null,
        volume integer not null,
        volume_quote text not null,
        primary key (market, candle_interval, start_ms)
      ) strict, without rowid;`,
    )
    this.#db = this.#file.db
    this.#select = this.#db.prepare(
      `select ${columns} from archived_candles
        where market = :market and candle_interval = :interval
          and start_ms between max(:startMs, :fromId) and min(:endMs, :toId)
        order by start_ms desc limit :limit`,
    )
    this.#newest = this.#db.prepare(
      `select max(start_ms) as start_ms from archived_candles
        where market = ? and candle_interval = ?`,
    )
  }

  protected async insert(candles: readonly ArchivedCandle[]): Promise<void> {
    // A candle already written (a catch-up after a crash) is the same candle: kept as it is.
    await this.#file.insertAll(
      `insert or ignore into archived_candles (${columns}) values (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      candles.map(valuesOf),
    )
  }

  protected async select(series: CandleSeries, window: ArchiveWindow): Promise<ArchivedCandle[]> {
    return (this.#select.all({ ...series, ...window }) as Row[]).map(candleOf)
  }

  protected async newestId(series: CandleSeries): Promise<number> {
    const row = this.#newest.get(series.market, series.interval) as { start_ms: number | null }
    return Number(row.start_ms ?? 0)
  }

  protected deleteOlder(series: CandleSeries, beforeMs: number, limit: number): Promise<number> {
    return this.#file.run(
      `delete from archived_candles where market = ? and candle_interval = ? and start_ms in
         (select start_ms from archived_candles
           where market = ? and candle_interval = ? and start_ms < ? limit ?)`,
      [series.market, series.interval, series.market, series.interval, beforeMs, limit],
    )
  }

  protected closeStore(): Promise<void> {
    return this.#file.close()
  }
}

/** The archive in the `archived_candles` table of a SQL database (migration 12). */
export class SqlCandleArchive extends CandleArchive {
  readonly kind = 'sql'
  readonly #driver: SqlDriver

  constructor(driver: SqlDriver, options: { queueMax?: number } = {}) {
    super(options)
    this.#driver = driver
  }

  protected insert(candles: readonly ArchivedCandle[]): Promise<void> {
    return insertIgnoringDuplicates(
      this.#driver,
      'archived_candles',
      columns,
      candles.map(valuesOf),
    )
  }

  protected async select(series: CandleSeries, window: ArchiveWindow): Promise<ArchivedCandle[]> {
    const rows = await this.#driver.query<Row>(
      `select market, candle_interval, start_ms, open, high, low, close, volume,
              volume_quote::text as volume_quote
         from archived_candles
        where market = $1 and candle_interval = $2
          and start_ms between greatest($3::bigint, $4::bigint) and least($5::bigint, $6::bigint)
        order by start_ms desc limit $7`,
      [
        series.market,
        series.interval,
        window.startMs,
        window.fromId,
        window.endMs,
        window.toId,
        window.limit,
      ],
    )
    return rows.map(candleOf)
  }

  /** One round trip for every series of a start. */
  protected override async newestIds(series: readonly CandleSeries[]): Promise<number[]> {
    if (series.length === 0) return []
    const rows = await this.#driver.query<{ start_ms: string | number | null }>(
      `select (select start_ms from archived_candles
                where market = wanted.market and candle_interval = wanted.candle_interval
                order by start_ms desc limit 1) as start_ms
         from unnest($1::text[], $2::text[]) with ordinality
           as wanted(market, candle_interval, position)
        order by wanted.position`,
      [
        toTextArray(series.map((wanted) => wanted.market)),
        toTextArray(series.map((wanted) => wanted.interval)),
      ],
    )
    return rows.map((row) => Number(row.start_ms ?? 0))
  }

  protected async newestId(series: CandleSeries): Promise<number> {
    const [row] = await this.#driver.query<{ start_ms: string | number | null }>(
      `select max(start_ms) as start_ms from archived_candles
        where market = $1 and candle_interval = $2`,
      [series.market, series.interval],
    )
    return Number(row?.start_ms ?? 0)
  }

  protected async deleteOlder(
    series: CandleSeries,
    beforeMs: number,
    limit: number,
  ): Promise<number> {
    const rows = await this.#driver.query<{ n: string | number }>(
      `with gone as (
         delete from archived_candles
          where market = $1 and candle_interval = $2 and start_ms in
            (select start_ms from archived_candles
              where market = $1 and candle_interval = $2 and start_ms < $3 limit $4)
         returning 1)
       select count(*) as n from gone`,
      [series.market, series.interval, beforeMs, limit],
    )
    return Number(rows[0]?.n ?? 0)
  }

  protected async closeStore(): Promise<void> {
    // The driver belongs to the caller.
  }
}

/** The candle archive of a storage location: a SQLite file beside an embedded database. */
export function openCandleArchive(location: StorageLocation, driver: SqlDriver): CandleArchive {
  if (location.kind === 'postgres') return new SqlCandleArchive(driver)
  if (location.dataDir === undefined) return new SqliteCandleArchive(undefined)
  mkdirSync(location.dataDir, { recursive: true })
  return new SqliteCandleArchive(join(location.dataDir, 'candles.sqlite'))
}
