// Matching-engine benchmark in the style of exchange-core's: a seeded workload of 1,000,000
// commands (about 70% limit placements near the touch, 20% cancels of resting orders, 10% market
// orders, a few thousand resting orders) on 1 market and on 200 markets, run through
// @polder/engine (fast book) and through the npm package nodejs-order-book in the same process.
//
//   npm exec -- node bench/engine/engine.bench.ts [--quick]
//
// Prints commands/s, per-command latency p50/p99/p99.9 (process.hrtime.bigint around each engine
// call, in a separate pass so the timer does not slow the throughput pass), heap used after GC
// across repeated runs, and the ratio against the peer.

import { cpus } from 'node:os'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { OrderBook } from 'nodejs-order-book'
import {
  type BookDelta,
  type Command,
  Engine,
  type EngineSink,
  EventLog,
  type MarketConfig,
  type Order,
  type Ticker,
  type Trade,
} from '../../packages/engine/src/index.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const quick = process.argv.includes('--quick')
const commandCount = quick ? 200_000 : 1_000_000
const runs = quick ? 2 : 3
// --markets=N runs one scenario only; --engine-only skips the peer (for profiling).
const marketsArgument = process.argv.find((argument) => argument.startsWith('--markets='))
const engineOnly = process.argv.includes('--engine-only')
const seed = 20261122

const Kind = { limit: 0, cancel: 1, market: 2 } as const

function mulberry32(initial: number): () => number {
  let state = initial >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function marketConfig(index: number): MarketConfig {
  return {
    market: `M${index}-EUR`,
    base: `M${index}`,
    quote: 'EUR',
    tickSize: '1',
    quantityDecimals: 0,
    notionalDecimals: 2,
    minOrderInBaseAsset: '1',
    maxOrderInBaseAsset: '1000000',
    minOrderInQuoteAsset: '0',
    maxOrderInQuoteAsset: '100000000000',
    maxPrice: '10000000',
    // The peer has no per-account limit; 10,000 accounts never reach ours either.
    maxOpenOrders: 1_000,
  }
}

interface Workload {
  readonly marketCount: number
  readonly engineCommands: Command[]
  readonly peerCommands: PeerCommand[]
  readonly kinds: Uint8Array
  readonly markets: Uint16Array
  readonly restingAtEnd: number
}

type PeerCommand =
  | {
      readonly kind: 0
      readonly market: number
      readonly options: { id: string; side: 'buy' | 'sell'; size: number; price: number }
    }
  | { readonly kind: 1; readonly market: number; readonly id: string }
  | {
      readonly kind: 2
      readonly market: number
      readonly options: { side: 'buy' | 'sell'; size: number }
    }

/** Tracks which orders rest, so generated cancels target live orders (an untimed pre-pass). */
class LiveOrders implements EngineSink {
  readonly live: string[][]
  readonly where = new Map<string, number>()

  constructor(marketCount: number) {
    this.live = Array.from({ length: marketCount }, () => [])
  }

  order(order: Order): void {
    const market = Number(order.market.slice(1, order.market.indexOf('-')))
    const list = this.live[market] as string[]
    const resting = order.status === 'new' || order.status === 'partiallyFilled'
    const index = this.where.get(order.orderId)
    if (resting && index === undefined) {
      this.where.set(order.orderId, list.length)
      list.push(order.orderId)
    } else if (!resting && index !== undefined) {
      const last = list.pop() as string
      if (last !== order.orderId) {
        list[index] = last
        this.where.set(last, index)
      }
      this.where.delete(order.orderId)
    }
  }
  trade(): void {}
  ticker(): void {}
  book(): void {}
}

function generate(marketCount: number, count: number, restingTarget: number): Workload {
  const random = mulberry32(seed + marketCount)
  const tracker = new LiveOrders(marketCount)
  const engine = new Engine({ sink: tracker })
  for (let index = 0; index < marketCount; index++) {
    engine.addMarket({ type: 'addMarket', timestamp: 0, config: marketConfig(index) })
  }
  const engineCommands: Command[] = []
  const peerCommands: PeerCommand[] = []
  const kinds = new Uint8Array(count)
  const markets = new Uint16Array(count)
  const perMarketTarget = Math.max(8, Math.floor(restingTarget / marketCount))
  let nextId = 0
  for (let index = 0; index < count; index++) {
    const market = Math.floor(random() * marketCount)
    const name = `M${market}-EUR`
    const live = tracker.live[market] as string[]
    const ticker = engine.ticker(name) as Ticker
    const mid =
      ticker.bestBid !== 0 && ticker.bestAsk !== 0
        ? Math.floor((ticker.bestBid + ticker.bestAsk) / 2)
        : ticker.bestBid !== 0
          ? ticker.bestBid + 1
          : ticker.bestAsk !== 0
            ? ticker.bestAsk - 1
            : 100_000
    const side: 'buy' | 'sell' = random() < 0.5 ? 'buy' : 'sell'
    const roll = random()
    let command: Command
    let peer: PeerCommand
    if (roll < 0.2 && live.length > 0) {
      const orderId = live[Math.floor(random() * live.length)] as string
      command = {
        type: 'cancelOrder',
        timestamp: index,
        market: name,
        accountId: accountOf(orderId),
        orderId,
      }
      peer = { kind: Kind.cancel, market, id: orderId }
      kinds[index] = Kind.cancel
    } else if (roll < 0.3) {
      const amount = 1 + Math.floor(random() * 60)
      command = {
        type: 'placeOrder',
        timestamp: index,
        market: name,
        orderId: String(++nextId),
        accountId: 1 + (nextId % 10_000),
        side,
        orderType: 'market',
        amount,
        makerFeePpm: 1_000,
        takerFeePpm: 2_500,
        feeRules: 2,
      }
      peer = { kind: Kind.market, market, options: { side, size: amount } }
      kinds[index] = Kind.market
    } else {
      // Near the touch: mostly passive within 20 ticks; about 10% crossing. Above the target
      // depth, placements cross deeper and larger, which keeps the book at a few thousand orders.
      const crowded = live.length > perMarketTarget
      const crossing = random() < (crowded ? 0.5 : 0.1)
      const distance = crossing
        ? Math.floor(random() * (crowded ? 6 : 3))
        : 1 + Math.floor(random() * random() * 20)
      const price =
        side === 'buy'
          ? crossing
            ? mid + distance
            : mid - distance
          : crossing
            ? mid - distance
            : mid + distance
      const amount = 1 + Math.floor(random() * (crossing && crowded ? 400 : 100))
      const orderId = String(++nextId)
      command = {
        type: 'placeOrder',
        timestamp: index,
        market: name,
        orderId,
        accountId: 1 + (nextId % 10_000),
        side,
        orderType: 'limit',
        amount,
        price,
        makerFeePpm: 1_000,
        takerFeePpm: 2_500,
        feeRules: 2,
      }
      peer = { kind: Kind.limit, market, options: { id: orderId, side, size: amount, price } }
      kinds[index] = Kind.limit
    }
    markets[index] = market
    engine.execute(command)
    engineCommands.push(command)
    peerCommands.push(peer)
  }
  let restingAtEnd = 0
  for (const list of tracker.live) restingAtEnd += list.length
  return { marketCount, engineCommands, peerCommands, kinds, markets, restingAtEnd }
}

function accountOf(orderId: string): number {
  return 1 + (Number(orderId) % 10_000)
}

class CountingSink implements EngineSink {
  orders = 0
  trades = 0
  tickers = 0
  books = 0
  order(_order: Order): void {
    this.orders++
  }
  trade(_trade: Trade): void {
    this.trades++
  }
  ticker(_ticker: Ticker): void {
    this.tickers++
  }
  book(_delta: BookDelta): void {
    this.books++
  }
}

// The server conflates book changes for about 100 ms; at 2M commands/s that is 200,000 commands.
// Every market is flushed every 100,000 commands (50 ms at that rate), inside the timed loop.
const flushEvery = 100_000

function newEngine(workload: Workload, sink: EngineSink): Engine {
  const engine = new Engine({ sink })
  for (let index = 0; index < workload.marketCount; index++) {
    engine.addMarket({ type: 'addMarket', timestamp: 0, config: marketConfig(index) })
  }
  return engine
}

function flushAll(engine: Engine, workload: Workload, timestamp: number): void {
  for (let index = 0; index < workload.marketCount; index++) {
    engine.flushBook({ type: 'flushBook', timestamp, market: `M${index}-EUR` })
  }
}

/** Throughput pass: no timer inside the loop. Returns commands per second. */
function engineThroughput(
  workload: Workload,
  sink: EngineSink,
  log?: EventLog,
): { rate: number; engine: Engine } {
  const engine = newEngine(workload, sink)
  const commands = workload.engineCommands
  const start = process.hrtime.bigint()
  for (let index = 0; index < commands.length; index++) {
    engine.execute(commands[index] as Command)
    if (log !== undefined) log.events.length = 0
    if (index % flushEvery === flushEvery - 1) flushAll(engine, workload, index)
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  return { rate: commands.length / seconds, engine }
}

function engineLatency(workload: Workload, samples: BigInt64Array): void {
  const engine = newEngine(workload, new CountingSink())
  const commands = workload.engineCommands
  for (let index = 0; index < commands.length; index++) {
    const command = commands[index] as Command
    const before = process.hrtime.bigint()
    engine.execute(command)
    samples[index] = process.hrtime.bigint() - before
    if (index % flushEvery === flushEvery - 1) flushAll(engine, workload, index)
  }
}

function newPeers(workload: Workload): OrderBook[] {
  return Array.from({ length: workload.marketCount }, () => new OrderBook())
}

function peerStep(books: OrderBook[], command: PeerCommand): void {
  const book = books[command.market] as OrderBook
  switch (command.kind) {
    case Kind.limit:
      book.limit(command.options as never)
      break
    case Kind.cancel:
      book.cancel(command.id)
      break
    case Kind.market:
      book.market(command.options as never)
      break
  }
}

function peerThroughput(workload: Workload): { rate: number; books: OrderBook[] } {
  const books = newPeers(workload)
  const commands = workload.peerCommands
  const start = process.hrtime.bigint()
  for (let index = 0; index < commands.length; index++)
    peerStep(books, commands[index] as PeerCommand)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  return { rate: commands.length / seconds, books }
}

function peerLatency(workload: Workload, samples: BigInt64Array): void {
  const books = newPeers(workload)
  const commands = workload.peerCommands
  for (let index = 0; index < commands.length; index++) {
    const command = commands[index] as PeerCommand
    const before = process.hrtime.bigint()
    peerStep(books, command)
    samples[index] = process.hrtime.bigint() - before
  }
}

function percentiles(samples: BigInt64Array): {
  p50: number
  p99: number
  p999: number
  max: number
} {
  const sorted = samples.slice().sort()
  const at = (fraction: number) =>
    Number(sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))]) / 1000
  return {
    p50: at(0.5),
    p99: at(0.99),
    p999: at(0.999),
    max: Number(sorted[sorted.length - 1]) / 1000,
  }
}

function heapMb(): number {
  gc()
  gc()
  return process.memoryUsage().heapUsed / 1_048_576
}

const format = (value: number, digits = 0) =>
  value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })

function scenario(marketCount: number): void {
  const workload = generate(marketCount, commandCount, 3_000)
  const limits = workload.kinds.filter((kind) => kind === Kind.limit).length
  const cancels = workload.kinds.filter((kind) => kind === Kind.cancel).length
  const marketOrders = workload.kinds.filter((kind) => kind === Kind.market).length
  console.log(
    `\n== ${format(commandCount)} commands on ${marketCount} market${marketCount > 1 ? 's' : ''} ==`,
  )
  console.log(
    `mix: ${format((100 * limits) / commandCount, 1)}% limit, ${format((100 * cancels) / commandCount, 1)}% cancel, ${format((100 * marketOrders) / commandCount, 1)}% market; resting orders at the end: ${format(workload.restingAtEnd)}`,
  )
  const samples = new BigInt64Array(commandCount)

  if (engineOnly) {
    // Profiling mode: engine throughput only, several runs.
    for (let run = 0; run < 6; run++)
      console.log(format(engineThroughput(workload, new CountingSink()).rate))
    return
  }
  // Warm-up (JIT) on both, then measured runs. A fresh engine per run; heap after GC per run.
  // The warm-up instances stay referenced until the scenario ends, for both sides alike: the
  // forced GC before each measured run would otherwise collect the hidden classes of their
  // objects, which deoptimises the code compiled for them, and every measured run would pay for
  // recompiling (a fresh-process artefact; a server's engine lives on).
  const warm = {
    engine: engineThroughput(workload, new CountingSink()).engine,
    peer: peerThroughput(workload).books,
  }
  const heapBefore = heapMb()
  const heaps: number[] = []
  const rates: number[] = []
  let sink = new CountingSink()
  for (let run = 0; run < runs; run++) {
    sink = new CountingSink()
    rates.push(engineThroughput(workload, sink).rate)
    heaps.push(heapMb())
  }
  const engineRate = Math.max(...rates)
  console.log(
    `engine (fast book, counting sink): ${format(engineRate)} cmd/s (best of ${runs}: ${rates.map((rate) => format(rate)).join(', ')})`,
  )
  console.log(
    `  per run: ${format(sink.trades)} trades, ${format(sink.orders)} order events, ${format(sink.books)} book batches`,
  )
  const logged = new EventLog()
  const loggedRate = engineThroughput(workload, logged, logged).rate
  console.log(
    `engine with EventLog (every event copied to a plain object): ${format(loggedRate)} cmd/s`,
  )
  engineLatency(workload, samples)
  const ours = percentiles(samples)
  console.log(
    `engine latency per command: p50 ${format(ours.p50, 2)} µs, p99 ${format(ours.p99, 2)} µs, p99.9 ${format(ours.p999, 2)} µs, max ${format(ours.max, 0)} µs`,
  )
  console.log(
    `heap used after GC: before ${format(heapBefore, 1)} MB (workload held in memory), after each run ${heaps.map((heap) => format(heap, 1)).join(' / ')} MB`,
  )

  if (engineOnly) return
  const peerRates: number[] = []
  for (let run = 0; run < runs; run++) peerRates.push(peerThroughput(workload).rate)
  const peerRate = Math.max(...peerRates)
  console.log(
    `nodejs-order-book: ${format(peerRate)} cmd/s (best of ${runs}: ${peerRates.map((rate) => format(rate)).join(', ')})`,
  )
  peerLatency(workload, samples)
  const theirs = percentiles(samples)
  console.log(
    `nodejs-order-book latency: p50 ${format(theirs.p50, 2)} µs, p99 ${format(theirs.p99, 2)} µs, p99.9 ${format(theirs.p999, 2)} µs, max ${format(theirs.max, 0)} µs`,
  )
  console.log(`ratio engine / nodejs-order-book: ${format(engineRate / peerRate, 2)}x`)
  // Keeps the warm-up instances referenced up to here (see above).
  if (warm.engine.marketIds().length !== marketCount || warm.peer.length !== marketCount) {
    throw new Error('warm-up instances lost')
  }
}

console.log(
  `Polder engine benchmark · Node ${process.version} · ${cpus()[0]?.model ?? 'unknown CPU'} × ${cpus().length} · ${quick ? 'quick' : 'full'} run`,
)
if (marketsArgument === undefined) {
  scenario(1)
  scenario(200)
} else {
  scenario(Number(marketsArgument.slice('--markets='.length)))
}
