// Prometheus metrics at /metrics: process and event-loop figures (prom-client's defaults,
// including event-loop lag), plus the exchange's own counters and gauges.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

export type ExchangeMetrics = {
  registry: Registry
  /** Counts a command submitted to the core: its kind, and `accepted` or its errorCode. */
  countCommand(kind: string, outcome: string): void
  openSockets: Gauge
  /** From a WebSocket request's arrival (the message read) to its reply handed to the socket. */
  wsRequestSeconds: Histogram
  /** Times a connection was read no further until its requests in flight were answered. */
  wsPauses: Counter
}

/**
 * Buckets of `polder_ws_request_seconds`, from half a millisecond (a request with nothing to wait
 * for) to a second (a server far behind).
 */
export const wsRequestBucketsSeconds = [
  0.0005, 0.001, 0.002, 0.003, 0.005, 0.0075, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1,
]

export function createMetrics(): ExchangeMetrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry, prefix: 'polder_' })
  // Commands are tallied as plain numbers and added to the counter when /metrics is read:
  // prom-client builds a key from the labels at every `inc`, some 1.5% of the main thread at
  // 20,000 commands a second.
  const tally = new Map<string, Map<string, number>>()
  new Counter({
    name: 'polder_commands_total',
    help: 'Commands submitted to the core, by kind and outcome (accepted or the errorCode).',
    labelNames: ['kind', 'outcome'],
    registers: [registry],
    collect() {
      for (const [kind, outcomes] of tally)
        for (const [outcome, count] of outcomes) if (count > 0) this.inc({ kind, outcome }, count)
      tally.clear()
    },
  })
  return {
    registry,
    countCommand(kind, outcome) {
      const outcomes = tally.get(kind) ?? new Map<string, number>()
      outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1)
      tally.set(kind, outcomes)
    },
    openSockets: new Gauge({
      name: 'polder_websocket_connections',
      help: 'Open WebSocket connections.',
      registers: [registry],
    }),
    wsRequestSeconds: new Histogram({
      name: 'polder_ws_request_seconds',
      help: "WebSocket requests, from the message's arrival to its reply handed to the socket (a command's includes its journal commit).",
      buckets: wsRequestBucketsSeconds,
      registers: [registry],
    }),
    wsPauses: new Counter({
      name: 'polder_websocket_pauses_total',
      help: 'Times a WebSocket connection with 1,000 requests awaiting replies was read no further until half were answered.',
      registers: [registry],
    }),
  }
}

/**
 * How many events each archive holds not yet written (public trades, fills, closed orders,
 * deposits and withdrawals): a number that keeps growing means its writes fail or fall behind,
 * and what a crash could cost.
 */
export function watchArchives(
  metrics: ExchangeMetrics,
  archives: Record<string, { readonly waitingCount: number }>,
): void {
  new Gauge({
    name: 'polder_archive_waiting',
    help: 'Events waiting to be written to each archive (trades, candles, fills, orders, transfers).',
    labelNames: ['archive'],
    registers: [metrics.registry],
    collect() {
      for (const [archive, queue] of Object.entries(archives))
        this.set({ archive }, queue.waitingCount)
    },
  })
}

/**
 * Connections waiting for their slice of a broadcast's writes: above zero for a turn or a few
 * at each book flush with many subscribers; one that stays high means the fan-out falls behind.
 */
export function watchFanOut(metrics: ExchangeMetrics, queue: { readonly waiting: number }): void {
  new Gauge({
    name: 'polder_websocket_fanout_waiting',
    help: "Connections waiting for their slice of a broadcast's writes.",
    registers: [metrics.registry],
    collect() {
      this.set(queue.waiting)
    },
  })
}

/**
 * Book flushes by what set them off: the leading edge of a quiet market's batch, or the 100 ms
 * timer. A busy market with many subscribers should show almost only the timer's.
 */
export function watchBookFlushes(
  metrics: ExchangeMetrics,
  hub: { readonly flushes: { readonly leading: number; readonly timer: number } },
): void {
  new Counter({
    name: 'polder_book_flushes_total',
    help: 'Books flushed (one book event each, when anything changed): at the leading edge of a batch, or by the timer.',
    labelNames: ['edge'],
    registers: [metrics.registry],
    collect() {
      this.reset()
      this.inc({ edge: 'leading' }, hub.flushes.leading)
      this.inc({ edge: 'timer' }, hub.flushes.timer)
    },
  })
}

/** The journal's records and commits: records per commit is what group commit gains. */
export function watchJournal(
  metrics: ExchangeMetrics,
  journal: { readonly recordsWritten: number; readonly batchesWritten: number },
): void {
  for (const [name, help, read] of [
    [
      'polder_journal_records_total',
      'Commands written durably to the journal.',
      () => journal.recordsWritten,
    ],
    [
      'polder_journal_commits_total',
      'Journal transactions committed (each holds one or more records).',
      () => journal.batchesWritten,
    ],
  ] as const)
    new Counter({
      name,
      help,
      registers: [metrics.registry],
      collect() {
        this.reset()
        this.inc(read())
      },
    })
}
