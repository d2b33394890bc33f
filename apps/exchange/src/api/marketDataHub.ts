// Publishes engine events (only once durable: the service calls us after the journal commit) to the
// WebSocket connections that subscribed to them. Each message is serialised and framed once and the
// same bytes go to every subscriber. Book changes are conflated: a timer flushes each touched
// market about every 100 ms as one `book` event whose nonce is the previous one + 1. A market that
// has been quiet for a whole interval is flushed at once instead, normally in the same journal
// commit as the change (the leading edge of its window): on most of the 200 markets a change is the
// only one for a while, and waiting for the timer would only delay it. Its later changes wait for
// the timer, at least half an interval after it. A book with more subscribers than one slice of a
// fan-out (1,000) stays with the timer: its broadcast is a round of writes that takes several
// turns, and the timer publishes all the touched books together, in one write to a subscriber of
// several. (A leading edge for every market was measured worse with 10,000 subscribers to five busy
// books: the load generator's pauses left each book quiet now and then, its next change went out in
// a fan-out of its own, and fill → delta p99 rose from 1.3-1.6 s to 1.5-2.7 s over five interleaved
// pairs of runs.) A flush a second also pushes the changed 24-hour tickers, once the books' flush
// is durable and published, so that a subscriber to both gets them in the same write as its book
// events: one system call a second fewer for each such connection.
import { type EngineEvent, formatAmount, formatPrice, type MarketSpec } from '@polder/engine'
import { ExchangeHaltedError, type ExchangeService } from '../core/exchangeService.ts'
import { candleIntervals } from '../core/marketStats.ts'
import {
  candleToWire,
  fillEventToWire,
  levelsToWire,
  orderEventText,
  ticker24hToWire,
  tradeToWire,
} from './wireFormat.ts'
import { frameText, type WsConnection } from './wsConnection.ts'

export const bookFlushIntervalMs = 100
/** Most subscribers a book may have for its change after a quiet interval to be flushed at once. */
export const leadingFlushSubscribersMax = 1_000
/** How often changed 24-hour tickers are pushed (protocol: about once a second). */
export const ticker24hIntervalMs = 1_000

export class MarketDataHub {
  readonly connections = new Set<WsConnection>()
  /** Subscribers per topic ('book BTC-EUR', 'candles 1m BTC-EUR', 'account 7 BTC-EUR', 'account 7 *'). */
  readonly #byTopic = new Map<string, Set<WsConnection>>()
  readonly #topicsOf = new Map<WsConnection, string[]>()
  readonly #service: ExchangeService
  /** Markets whose book changed since their last flush, for the timer. */
  readonly #touched = new Set<string>()
  /** Quiet markets whose change is flushed at the next microtask checkpoint (the leading edge). */
  readonly #leading = new Set<string>()
  /** When each market was last flushed (performance.now()). */
  readonly #flushedAt = new Map<string, number>()
  readonly #intervalMs: number
  readonly #leadingSubscribersMax: number
  /** Books flushed so far: at the leading edge of a batch, and by the timer (for /metrics). */
  readonly flushes = { leading: 0, timer: 0 }
  /** Per order event of a watched account, what its order held once its command was applied. */
  readonly #heldAtEvent = new WeakMap<EngineEvent, bigint>()
  readonly #tickerChanged = new Set<string>()
  /** When the 24-hour tickers were last pushed (performance.now(): the cadence, not a timestamp). */
  #tickersPushedAt = 0
  /** The minute (of the clock) of the last push of the 24-hour tickers. */
  #tickersMinute: number | undefined
  /** Per market, the 24-hour figures last pushed (but the time), to tell a window's change. */
  readonly #tickerFiguresSent = new Map<string, string>()
  readonly #decimalsOf: (asset: string) => number
  readonly #nowMs: () => number
  #timer: ReturnType<typeof setInterval> | undefined
  #flushing = false

  constructor(
    service: ExchangeService,
    decimalsOf: (asset: string) => number,
    nowMs: () => number,
    options: { bookFlushIntervalMs?: number; leadingFlushSubscribersMax?: number } = {},
  ) {
    this.#service = service
    this.#decimalsOf = decimalsOf
    this.#nowMs = nowMs
    this.#intervalMs = options.bookFlushIntervalMs ?? bookFlushIntervalMs
    this.#leadingSubscribersMax = options.leadingFlushSubscribersMax ?? leadingFlushSubscribersMax
    // As each command is applied, before it is durable: a flush submitted now is applied after
    // it and journaled in the same commit, so its book event is published with the change.
    service.onOutcome((_command, outcome) => {
      if (outcome.ok) this.#noteChanges(outcome.events)
    })
    service.onEvents((events) => this.publish(events))
  }

  add(connection: WsConnection): void {
    this.connections.add(connection)
  }

  remove(connection: WsConnection): void {
    this.connections.delete(connection)
    this.#unindex(connection)
  }

  /**
   * Re-files a connection under its topics after its subscriptions or authentication changed; a
   * connection removed already (closed while a request of it waited, an authenticate's lookup
   * say) is not filed again, or it would be kept and written to for good.
   */
  index(connection: WsConnection): void {
    if (!this.connections.has(connection)) return
    this.#unindex(connection)
    const topics: string[] = []
    const described = connection.subscriptions.describe() as Record<string, unknown>
    for (const [channel, value] of Object.entries(described)) {
      if (channel === 'candles') {
        for (const [interval, markets] of Object.entries(value as Record<string, string[]>)) {
          for (const market of markets) topics.push(`candles ${interval} ${market}`)
        }
      } else if (channel === 'account') {
        const accountId = connection.caller?.accountId
        if (accountId === undefined) continue
        if (value === '*') topics.push(`account ${accountId} *`)
        else for (const market of value as string[]) topics.push(`account ${accountId} ${market}`)
      } else {
        for (const market of value as string[]) topics.push(`${channel} ${market}`)
      }
    }
    for (const topic of topics) {
      let set = this.#byTopic.get(topic)
      if (set === undefined) {
        set = new Set()
        this.#byTopic.set(topic, set)
      }
      set.add(connection)
    }
    this.#topicsOf.set(connection, topics)
  }

  #unindex(connection: WsConnection): void {
    for (const topic of this.#topicsOf.get(connection) ?? []) {
      const set = this.#byTopic.get(topic)
      set?.delete(connection)
      if (set?.size === 0) this.#byTopic.delete(topic)
    }
    this.#topicsOf.delete(connection)
  }

  start(): void {
    // Changes applied but not published before a stop (or a crash) are back in the restored
    // books, and no command will tell of them again: the first tick publishes them, or a quiet
    // market's subscribers and getBook would go on without them until its next change.
    const engine = this.#service.core.engine
    for (const market of engine.marketIds())
      if (engine.hasUnpublishedChanges(market)) this.#touched.add(market)
    this.#timer ??= setInterval(() => {
      // A halted exchange refuses the flushes, and the service has reported why already.
      this.#tick().catch((error) => {
        if (!(error instanceof ExchangeHaltedError)) throw error
      })
    }, this.#intervalMs)
  }

  stop(): void {
    clearInterval(this.#timer)
    this.#timer = undefined
  }

  /**
   * One timer tick: the books' flush, and after it the 24-hour tickers once a second (by the
   * time since the last push: a busy loop fires the timer late, and counting ticks would push
   * less often than the protocol's once a second).
   */
  async #tick(): Promise<void> {
    const now = performance.now()
    // Due at the tick nearest to a second since the last push, not the first one after it.
    const tickersDue = now - this.#tickersPushedAt >= ticker24hIntervalMs - this.#intervalMs / 2
    if (tickersDue) this.#tickersPushedAt = now
    try {
      await this.flushBooks()
    } finally {
      // Still in the turn whose commit published the books: the same corked writes.
      if (tickersDue) this.publishTickers24h()
    }
  }

  /**
   * The `ticker24h` event for one market, as a new subscriber is sent it. Its figures count as
   * sent when none were before: the next minute pushes them only if they changed.
   */
  ticker24hMessage(market: string): string | undefined {
    const entry = this.#ticker24hEntry(market)
    if (entry === undefined) return undefined
    if (!this.#tickerFiguresSent.has(market))
      this.#tickerFiguresSent.set(market, figuresText(entry))
    return JSON.stringify({ event: 'ticker24h', data: [entry] })
  }

  #ticker24hEntry(market: string): Record<string, unknown> | undefined {
    const engine = this.#service.core.engine
    const spec = engine.market(market)
    if (spec === null) return undefined
    const nowMs = this.#service.core.stats.windowEndMs(this.#nowMs())
    return ticker24hToWire(
      spec,
      this.#service.core.stats.stats24h(market, nowMs),
      engine.ticker(market),
      nowMs,
    )
  }

  /**
   * Pushes the 24-hour tickers of the markets that changed since the last push: by a trade or a
   * best price, and, once a minute, by the window's moving on (its figures are summed by the
   * minute: a minute that leaves it takes its trades along, on a market quiet since).
   */
  publishTickers24h(): void {
    const minute = Math.floor(this.#nowMs() / 60_000)
    const minutePassed = minute !== this.#tickersMinute
    this.#tickersMinute = minute
    const markets = new Set(this.#tickerChanged)
    if (minutePassed)
      for (const topic of this.#byTopic.keys())
        if (topic.startsWith('ticker24h ')) markets.add(topic.slice('ticker24h '.length))
    for (const market of markets) {
      // Built only for someone: a rolling 24-hour figure reads a day of candles.
      if (!this.#byTopic.has(`ticker24h ${market}`)) {
        this.#tickerFiguresSent.delete(market)
        continue
      }
      const entry = this.#ticker24hEntry(market)
      if (entry === undefined) continue
      const figures = figuresText(entry)
      if (!this.#tickerChanged.has(market) && this.#tickerFiguresSent.get(market) === figures)
        continue
      this.#tickerFiguresSent.set(market, figures)
      this.#toChannel('ticker24h', market, JSON.stringify({ event: 'ticker24h', data: [entry] }))
    }
    this.#tickerChanged.clear()
  }

  /**
   * Journals one flushBook per market whose book changed since its last flush, but for a market
   * flushed less than half an interval ago (at its leading edge), which waits for the next tick.
   */
  async flushBooks(): Promise<void> {
    if (this.#flushing || this.#touched.size === 0) return
    this.#flushing = true
    const now = performance.now()
    const markets: string[] = []
    for (const market of this.#touched) {
      if (now - (this.#flushedAt.get(market) ?? -Infinity) < this.#intervalMs / 2) continue
      markets.push(market)
      this.#touched.delete(market)
      this.#flushedAt.set(market, now)
    }
    this.flushes.timer += markets.length
    try {
      await Promise.all(
        markets.map((market) =>
          this.#service.submit({ type: 'flushBook', timestamp: this.#nowMs(), market }),
        ),
      )
    } finally {
      this.#flushing = false
    }
  }

  /**
   * Files the markets whose books a command just changed: one quiet for a whole interval, with
   * at most `leadingFlushSubscribersMax` subscribers to its book, is flushed at the next
   * microtask checkpoint (so that everything applied until then goes into the one event, and
   * the flush normally into the same journal commit), the others wait for the timer.
   */
  #noteChanges(events: readonly EngineEvent[]): void {
    for (const event of events) {
      if (event.type !== 'order') continue
      // What the order holds as its command left it, for its event published after the commit:
      // by then a later command of the same commit (a cancel) may have changed it.
      if (this.#watchesAccount(event.accountId, event.market))
        this.#heldAtEvent.set(event, this.#service.core.heldFor(event.market, event.orderId))
      const market = event.market
      if (this.#touched.has(market) || this.#leading.has(market)) continue
      const atOnce =
        this.#timer !== undefined &&
        performance.now() - (this.#flushedAt.get(market) ?? -Infinity) >= this.#intervalMs &&
        (this.#byTopic.get(`book ${market}`)?.size ?? 0) <= this.#leadingSubscribersMax
      if (!atOnce) {
        this.#touched.add(market)
        continue
      }
      if (this.#leading.size === 0) queueMicrotask(() => this.#flushLeading())
      this.#leading.add(market)
    }
  }

  #flushLeading(): void {
    const now = performance.now()
    // Taken out first: a submit below may apply other commands before its own (the cancels of
    // an expired cancel-on-disconnect countdown), and a change they make to a market still
    // listed here must find it flushed just now and wait for the timer, not be passed over.
    const markets = [...this.#leading]
    this.#leading.clear()
    for (const market of markets) this.#flushedAt.set(market, now)
    this.flushes.leading += markets.length
    for (const market of markets) {
      this.#service
        .submit({ type: 'flushBook', timestamp: this.#nowMs(), market })
        .catch((error) => {
          // As in start(): only a halt is expected here, and the service has reported it.
          if (!(error instanceof ExchangeHaltedError)) throw error
        })
    }
  }

  publish(events: readonly EngineEvent[]): void {
    const engine = this.#service.core.engine
    for (const event of events) {
      const spec = engine.market(event.market)
      if (spec === null) continue
      switch (event.type) {
        case 'order': {
          // Messages are built only for someone: most orders have no account subscriber.
          if (!this.#watchesAccount(event.accountId, event.market)) break
          this.#toAccount(
            event.accountId,
            event.market,
            orderEventText(
              spec,
              event,
              this.#heldAtEvent.get(event) ??
                this.#service.core.heldFor(event.market, event.orderId),
              this.#decimalsOf,
            ),
          )
          break
        }
        case 'fill':
          if (!this.#watchesAccount(event.accountId, event.market)) break
          this.#toAccount(
            event.accountId,
            event.market,
            JSON.stringify(fillEventToWire(spec, event)),
          )
          break
        case 'trade': {
          this.#tickerChanged.add(event.market)
          if (this.#byTopic.has(`trades ${event.market}`))
            this.#toChannel(
              'trades',
              event.market,
              JSON.stringify({ event: 'trade', market: event.market, ...tradeToWire(spec, event) }),
            )
          // The candle the trade went into, once per interval that anyone watches here (not the
          // newest one: a later trade of the same commit may have begun the next).
          for (const interval of candleIntervals) {
            const subscribers = this.#byTopic.get(`candles ${interval} ${event.market}`)
            if (subscribers === undefined) continue
            const stats = this.#service.core.stats
            const candle = stats.candleAt(event.market, interval, event.timestamp)
            if (candle === undefined) continue
            const text = JSON.stringify({
              event: 'candle',
              market: event.market,
              interval,
              candle: [candleToWire(spec, candle)],
            })
            broadcast(subscribers, text)
          }
          break
        }
        case 'ticker':
          this.#tickerChanged.add(event.market)
          if (this.#byTopic.has(`ticker ${event.market}`))
            this.#toChannel('ticker', event.market, JSON.stringify(tickerToWire(spec, event)))
          break
        case 'book': {
          const subscribers = this.#byTopic.get(`book ${event.market}`)
          if (subscribers === undefined) break
          const frame = frameText(
            JSON.stringify({
              event: 'book',
              market: event.market,
              nonce: event.nonce,
              bids: levelsToWire(spec, event.bids),
              asks: levelsToWire(spec, event.asks),
              timestamp: event.timestamp,
            }),
          )
          // With its nonce: a subscriber's getBook answer of this market goes out between the
          // event it shows and the next one (see WsConnection.sendBookFrame).
          for (const connection of subscribers)
            connection.sendBookFrame(frame, event.market, event.nonce)
          break
        }
      }
    }
  }

  #toChannel(channel: 'trades' | 'ticker' | 'ticker24h', market: string, text: string): void {
    const subscribers = this.#byTopic.get(`${channel} ${market}`)
    if (subscribers === undefined) return
    broadcast(subscribers, text)
  }

  #watchesAccount(accountId: number, market: string): boolean {
    return (
      this.#byTopic.has(`account ${accountId} ${market}`) ||
      this.#byTopic.has(`account ${accountId} *`)
    )
  }

  #toAccount(accountId: number, market: string, text: string): void {
    for (const topic of [`account ${accountId} ${market}`, `account ${accountId} *`]) {
      for (const connection of this.#byTopic.get(topic) ?? []) connection.send(text)
    }
  }
}

/** Encoded and framed once: every subscriber gets the same bytes. */
function broadcast(subscribers: Iterable<WsConnection>, text: string): void {
  const frame = frameText(text)
  for (const connection of subscribers) connection.sendFrame(frame)
}

function tickerToWire(
  spec: MarketSpec,
  ticker: {
    market: string
    bestBid: number | null
    bestBidSize: number | null
    bestAsk: number | null
    bestAskSize: number | null
    lastPrice: number | null
  },
): Record<string, unknown> {
  const price = (units: number | null) => (units === null ? null : formatPrice(spec, units))
  const size = (units: number | null) => (units === null ? null : formatAmount(spec, units))
  return {
    event: 'ticker',
    market: ticker.market,
    bestBid: price(ticker.bestBid),
    bestBidSize: size(ticker.bestBidSize),
    bestAsk: price(ticker.bestAsk),
    bestAskSize: size(ticker.bestAskSize),
    lastPrice: price(ticker.lastPrice),
  }
}

/** A 24-hour ticker's figures, but the time it was read at: what tells that it changed. */
function figuresText(entry: Record<string, unknown>): string {
  const { timestamp: _now, startTimestamp: _start, ...figures } = entry
  return JSON.stringify(figures)
}
