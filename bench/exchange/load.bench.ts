// Open-loop load on a real exchange server over loopback. Starts the server in its own process
// (embedded database, temporary data directory), opens --traders authenticated WebSocket
// connections that place and cancel orders at a fixed --rate, and --subscribers public
// connections subscribed to the book of the busiest --markets. Requests are sent at planned
// times and latency is measured from the planned time (so queueing is not hidden), into HDR
// histograms. Prints acknowledged orders/s, acknowledgement latency p50/p99 (and the same split
// into the generator's lag in sending and the round trip from the actual send), the delay from a
// fill to the book delta arriving at public subscribers p50/p99, the event-loop delay of the
// server and of the generator itself (its 1 ms timer and its own work are part of what it
// measures), the CPU the server's main thread, its other threads by kind, the whole server and
// the generator used during the load, how long the server's main thread waited for a CPU and
// how often it was preempted, and server memory per idle connection. The sockets are `ws`
// clients, as most Node clients of the v2 API use. Bounded in time; ends the server it started.
//
// Run: npm exec -- node bench/exchange/load.bench.ts [--rate 5000] [--seconds 10] [--traders 20]
//        [--subscribers 1000] [--markets 5] [--warmup 3] [--no-simulator] [--server-cpus 0]
//        [--attribute] [--stall-profile] [--allocation] [--in-flight-max N] [--traders-watch-books]
// --in-flight-max N is a capacity mode: a trader with N requests unanswered skips its planned
// sends until replies come (they are counted as held back), so that a rate above what the
// server can do measures what it does, steadily, instead of growing a backlog until the
// server's own limit (1,000 in flight per connection) cuts the traders off. Its latencies then
// leave out the wait of the held-back requests: read them from an open-loop run.
// --attribute records the server's and the generator's pauses (stallMonitor.ts) and says, for
// the requests slower than 5 ms, what each one overlapped: a GC of the server, another stall of
// its event loop (busy, or waiting for a CPU), a stall of the generator, or none of these.
// --stall-profile does that too, profiles the server (--cpu-prof, a sample every ms) and says which tasks and functions its stalls without a GC were busy in
// (stallProfile.ts). The profile costs the server some CPU: read its latencies from a run without.
// --allocation samples what the server's main thread allocates in the measured window
// (allocationSampler.ts, V8's sampling heap profiler) and prints it per request answered, with
// the functions that allocate most.
// --traders-watch-books subscribes the traders to the books they trade in, after the
// subscribers: the last connections of every book broadcast, as a trader who opened the app last.
// (--server-cpus pins the server with taskset; run the bench itself under `taskset -c 1` too.
// Measured here, pinning hurt: the server's own threads then share one core with it.)
import { type ChildProcess, spawn } from 'node:child_process'
import { createHmac } from 'node:crypto'
import { createWriteStream, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { assetBySymbol, marketById } from '@polder/catalogue'
import * as hdr from 'hdr-histogram-js'
import { WebSocket } from 'ws'
import { bookFlushIntervalMs as bookBatchMs } from '../../apps/exchange/src/api/marketDataHub.ts'
import { serverNodeFlags } from '../../apps/exchange/src/nodeFlags.ts'
import type { AllocationSummary } from './allocationSampler.ts'
import { cpuSecondsByThreadKind, cpuSecondsOf } from './procStat.ts'
import { attribution, monitorStalls, readPauses, type Timed } from './stallMonitor.ts'
import { type CpuProfile, stallProfile } from './stallProfile.ts'

const { values } = parseArgs({
  allowNegative: true,
  options: {
    rate: { type: 'string', default: '5000' },
    seconds: { type: 'string', default: '10' },
    warmup: { type: 'string', default: '3' },
    traders: { type: 'string', default: '20' },
    subscribers: { type: 'string', default: '1000' },
    markets: { type: 'string', default: '5' },
    'server-cpus': { type: 'string' },
    // Prints acknowledgement p50/p99 for each second of the measurement too.
    timeline: { type: 'boolean', default: false },
    // The market simulator runs beside the load unless --no-simulator.
    simulator: { type: 'boolean', default: true },
    attribute: { type: 'boolean', default: false },
    'stall-profile': { type: 'boolean', default: false },
    allocation: { type: 'boolean', default: false },
    'in-flight-max': { type: 'string' },
    'traders-watch-books': { type: 'boolean', default: false },
  },
})
const inFlightMax =
  values['in-flight-max'] === undefined
    ? Number.POSITIVE_INFINITY
    : Math.max(1, Number(values['in-flight-max']))
const ratePerSecond = Number(values.rate)
const durationSeconds = Math.min(Number(values.seconds), 120)
// The same load runs this long first, unmeasured: a server just started is still compiling its
// hot paths (the first seconds' latencies were several times the steady state's).
const warmupSeconds = Math.min(Number(values.warmup), 30)
const traderCount = Number(values.traders)
const subscriberCount = Math.min(Number(values.subscribers), 20_000)
const marketIds = [
  'BTC-EUR',
  'ETH-EUR',
  'SOL-EUR',
  'XRP-EUR',
  'ADA-EUR',
  'DOGE-EUR',
  'DOT-EUR',
].slice(0, Number(values.markets))
const root = join(import.meta.dirname, '..', '..')
/** performance.now() and wall-clock ms from which requests and fills are measured. */
let measureFrom = Number.POSITIVE_INFINITY
let measureFromWallMs = Number.POSITIVE_INFINITY
const dataDir = mkdtempSync(join(tmpdir(), 'polder-load-'))
const stallLogs = {
  server: join(dataDir, '..', `${basename(dataDir)}-server-stalls.log`),
  generator: join(dataDir, '..', `${basename(dataDir)}-generator-stalls.log`),
}
const allocationLog = join(dataDir, '..', `${basename(dataDir)}-allocation.json`)
const profileDir = join(dataDir, '..', `${basename(dataDir)}-profile`)
if (values['stall-profile']) values.attribute = true
/** The measured window (wall-clock ms), for the stall profile read once the server has exited. */
let measuredWallMs: { fromMs: number; toMs: number } | undefined

function startServer(): Promise<{ child: ChildProcess; url: string }> {
  // --server-cpus pins the server to those CPUs (taskset), e.g. the generator on one core and
  // the server on the other, so that neither preempts the other when a socket wakes it.
  const pinned = values['server-cpus'] === undefined ? [] : ['-c', values['server-cpus']]
  const child = spawn(
    pinned.length > 0 ? 'taskset' : process.execPath,
    [
      ...(pinned.length > 0 ? [...pinned, process.execPath] : []),
      ...serverNodeFlags,
      // e.g. POLDER_SERVER_NODE_OPTIONS='--cpu-prof --cpu-prof-dir=/tmp/prof' to profile the
      // server, or '--max-semi-space-size=64' to override the flag above (the last one counts)
      ...(process.env.POLDER_SERVER_NODE_OPTIONS?.split(' ').filter(Boolean) ?? []),
      ...(values.attribute ? ['--import', join(import.meta.dirname, 'stallMonitor.ts')] : []),
      ...(values['stall-profile']
        ? ['--cpu-prof', '--cpu-prof-interval', '1000', '--cpu-prof-dir', profileDir]
        : []),
      ...(values.allocation ? ['--import', join(import.meta.dirname, 'allocationSampler.ts')] : []),
      join(root, 'apps/exchange/src/main.ts'),
      'serve',
      '--port',
      '0',
      '--data',
      dataDir,
      '--log-level',
      'error',
      ...(values.simulator ? [] : ['--no-simulator']),
    ],
    // The load comes from a handful of keys, far above the per-key budget of real clients, and
    // from one address.
    {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: {
        ...process.env,
        POLDER_SUPERVISED: '1',
        POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE: '100000000',
        // Every trader and subscriber comes from 127.0.0.1.
        POLDER_WS_CONNECTIONS_PER_IP_MAX: '1000000',
        // A trader sends far more than the protocol's 100 new orders a second.
        POLDER_NEW_ORDERS_PER_SECOND_MAX: '1000000',
        POLDER_NEW_ORDERS_PER_DAY_MAX: '1000000000',
        ...(values.attribute ? { POLDER_STALL_LOG: stallLogs.server } : {}),
        ...(values.allocation ? { POLDER_ALLOCATION_LOG: allocationLog } : {}),
      },
    },
  )
  return new Promise((resolve, reject) => {
    let output = ''
    // POLDER_SERVER_LOG=file keeps what the server prints (e.g. with --trace-gc in its options).
    const log = process.env.POLDER_SERVER_LOG
    if (log !== undefined) child.stdout!.pipe(createWriteStream(log))
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const line = output.split('\n').find((text) => text.startsWith('POLDER_READY '))
      if (line) {
        const urls = JSON.parse(line.slice('POLDER_READY '.length)).urls as { url: string }[]
        resolve({ child, url: urls[0]!.url.replace(/\/v2$/, '') })
      }
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
}

async function admin(url: string, path: string, body: unknown): Promise<Record<string, unknown>> {
  const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim()
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`${path}: ${await response.text()}`)
  return (await response.json()) as Record<string, unknown>
}

/** p50, p90, p99, p99.9 and max of a histogram of microseconds, in ms. */
function percentiles(histogram: hdr.Histogram): string {
  const at = (percentile: number) => (histogram.getValueAtPercentile(percentile) / 1000).toFixed(2)
  return `p50 ${at(50)} ms, p90 ${at(90)} ms, p99 ${at(99)} ms, p99.9 ${at(99.9)} ms, max ${(histogram.maxValue / 1000).toFixed(2)} ms`
}

function openSocket(url: string): Promise<WebSocket> {
  const socket = new WebSocket(`${url.replace('http', 'ws')}/v2`)
  return new Promise((resolve, reject) => {
    socket.onopen = () => resolve(socket)
    socket.onerror = () => reject(new Error('socket failed to open'))
  })
}

/**
 * From the server's /metrics: its event-loop delay since the previous scrape, in ms, the
 * journal's records and commits so far, and its WebSocket request-time histogram (cumulative
 * counts by upper bound in seconds).
 */
async function serverMetrics(base: string): Promise<{
  loopDelay: { p50: string; p99: string; max: string }
  journal: { records: number; commits: number }
  requestBuckets: Map<string, number>
}> {
  const text = await (await fetch(`${base}/metrics`)).text()
  const value = (name: string) => Number(new RegExp(`^${name} (\\S+)$`, 'm').exec(text)?.[1])
  const ms = (name: string) =>
    (value(`polder_nodejs_eventloop_lag_${name}_seconds`) * 1000).toFixed(1)
  return {
    loopDelay: { p50: ms('p50'), p99: ms('p99'), max: ms('max') },
    journal: {
      records: value('polder_journal_records_total'),
      commits: value('polder_journal_commits_total'),
    },
    requestBuckets: new Map(
      [...text.matchAll(/^polder_ws_request_seconds_bucket\{le="([^"]+)"\} (\d+)$/gm)].map(
        (match) => [match[1]!, Number(match[2])],
      ),
    ),
  }
}

/**
 * The bound below which `percentile` of the requests between two scrapes of the request-time
 * histogram fell, in ms ("over 1000" past the last bucket): as fine as the buckets, no finer.
 */
function bucketPercentile(
  before: Map<string, number>,
  after: Map<string, number>,
  percentile: number,
): string {
  const total = (after.get('+Inf') ?? 0) - (before.get('+Inf') ?? 0)
  for (const [le, count] of after) {
    if (le === '+Inf') continue
    if (count - (before.get(le) ?? 0) >= (percentile / 100) * total)
      return `≤ ${Number(le) * 1000} ms`
  }
  return 'over 1000 ms'
}

/** A JSON file another process is writing, read once it is there (at most 10 s). */
async function readWhenWritten<T>(path: string): Promise<T> {
  const deadline = performance.now() + 10_000
  for (;;) {
    try {
      return JSON.parse(readFileSync(path, 'utf8')) as T
    } catch (error) {
      if (performance.now() > deadline) throw error
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}

/** Subscribers below which the memory per idle connection is not told. */
const idleMemorySubscribersMin = 1_000

function serverRssBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024
}

/**
 * Counters so far, from /proc: CPU time in seconds of the server's main thread (its event loop),
 * the whole server process (with its GC, database and checkpoint threads) and this generator;
 * how long the server's main thread has waited, runnable, for a CPU (seconds, from schedstat),
 * how often it was preempted (nonvoluntary context switches), and the server's write calls.
 */
function processCounters(pid: number): {
  serverMain: number
  server: number
  generator: number
  serverMainRunQueue: number
  serverMainPreempted: number
  serverWrites: number
  threads: ReturnType<typeof cpuSecondsByThreadKind>
} {
  const own = process.cpuUsage()
  const threads = cpuSecondsByThreadKind(pid)
  return {
    threads,
    serverMain: threads.main,
    server: cpuSecondsOf(`/proc/${pid}/stat`),
    generator: (own.user + own.system) / 1e6,
    serverMainRunQueue:
      Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9,
    // Write system calls (write, writev: replies, fan-out, files) of the whole server.
    serverWrites: Number(/^syscw: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))?.[1]),
    serverMainPreempted: Number(
      /nonvoluntary_ctxt_switches:\s+(\d+)/.exec(
        readFileSync(`/proc/${pid}/task/${pid}/status`, 'utf8'),
      )?.[1],
    ),
  }
}

const { child, url } = await startServer()
try {
  // Accounts: each trader gets EUR and every benchmarked base asset.
  const traders: {
    socket: WebSocket
    pending: Map<number, number>
    open: Map<string, string[]>
    /** Limit orders sent and not yet answered, by market, and the requests that carry them. */
    placing: Map<string, number>
    placingRequests: Map<number, string>
  }[] = []
  for (let index = 0; index < traderCount; index += 1) {
    const account = await admin(url, '/admin/accounts', {
      email: `trader${index}@load.test`,
      password: 'load test password',
      eur: '100000000',
    })
    for (const market of marketIds) {
      const base = market.split('-')[0]!
      await admin(url, '/admin/deposits', {
        accountId: account.accountId,
        asset: base,
        amount: '1000000',
      })
    }
    const socket = await openSocket(url)
    const timestamp = Date.now()
    const signature = createHmac('sha256', String(account.secret))
      .update(`${timestamp}GET/v2/websocket`)
      .digest('hex')
    socket.send(JSON.stringify({ action: 'authenticate', key: account.key, signature, timestamp }))
    traders.push({
      socket,
      pending: new Map(),
      open: new Map(marketIds.map((market) => [market, []])),
      placing: new Map(marketIds.map((market) => [market, 0])),
      placingRequests: new Map(),
    })
  }

  const rssBeforeSubscribers = serverRssBytes(child.pid!)
  const fillsByMarket = new Map<string, number[]>(marketIds.map((market) => [market, []]))
  const bookDelayMs = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000,
    numberOfSignificantValueDigits: 3,
  })
  // Delay from a batch's publication (the book event's timestamp) to its arrival: the fan-out
  // alone, without the conflation window that the fill → delta figure includes.
  const fanOutDelayMs = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 60_000,
    numberOfSignificantValueDigits: 3,
  })
  let ticker24hEvents = 0
  // Each book event (by market and nonce) with the delay of each of its deliveries after its
  // publication. Which fills an event is the first to show is settled after the run: a fill is
  // known from its order's reply, which may reach the generator after the event (a quiet
  // market's event leaves in the same turn as the reply).
  // (Deliveries are counted by delay, so that thousands of subscribers cost a few hundred
  // entries an event. Timestamps are whole milliseconds: a fill in the same millisecond as the
  // flush before it, but applied after it, counts as shown by that flush, and is not measured.)
  const bookEvents = new Map<
    string,
    Map<number, { timestamp: number; deliveriesByDelayMs: Map<number, number> }>
  >(marketIds.map((market) => [market, new Map()]))
  const subscribers: WebSocket[] = []
  for (let index = 0; index < subscriberCount; index += 1) {
    const socket = await openSocket(url)
    // Thousands of these share the generator's core with everything else: each message is read
    // from its bytes (the server writes `{"event":"book","market":M,"nonce":N,...,"timestamp":T}`),
    // not parsed whole, so that the instrument costs little next to what it measures.
    socket.on('message', (data: Buffer) => {
      const head = data.toString('latin1', 0, 64)
      if (head.startsWith('{"event":"ticker24h"')) {
        ticker24hEvents += 1
        return
      }
      if (!head.startsWith('{"event":"book","market":"')) return
      const marketEnd = head.indexOf('"', 26)
      const market = head.slice(26, marketEnd)
      const nonceStart = marketEnd + 10 // past `","nonce":`
      const nonce = Number(head.slice(nonceStart, head.indexOf(',', nonceStart)))
      const tail = data.toString('latin1', data.length - 32)
      const timestamp = Number(tail.slice(tail.lastIndexOf(':') + 1, -1))
      const delayMs = Math.max(0, Date.now() - timestamp)
      if (timestamp >= measureFromWallMs) fanOutDelayMs.recordValue(Math.max(1, delayMs))
      const events = bookEvents.get(market)
      if (events === undefined) return
      let event = events.get(nonce)
      if (event === undefined) {
        event = { timestamp, deliveriesByDelayMs: new Map() }
        events.set(nonce, event)
      }
      if (timestamp < measureFromWallMs) return
      const deliveries = event.deliveriesByDelayMs
      deliveries.set(delayMs, (deliveries.get(delayMs) ?? 0) + 1)
    })
    // As a market-data client does: the book and the 24-hour ticker of each market it shows.
    socket.send(
      JSON.stringify({
        action: 'subscribe',
        channels: [
          { name: 'book', markets: marketIds },
          { name: 'ticker24h', markets: marketIds },
        ],
      }),
    )
    subscribers.push(socket)
  }
  // As the trading app does, the traders may watch the books they trade in too: subscribed
  // after everyone else, they are the last of each broadcast's fan-out.
  if (values['traders-watch-books'])
    for (const trader of traders)
      trader.socket.send(
        JSON.stringify({ action: 'subscribe', channels: [{ name: 'book', markets: marketIds }] }),
      )
  await new Promise((resolve) => setTimeout(resolve, 1_000))
  const rssAfterSubscribers = serverRssBytes(child.pid!)

  const microseconds = () =>
    hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 60_000_000,
      numberOfSignificantValueDigits: 3,
    })
  const ackLatencyUs = microseconds()
  // The same split in two: the generator's own lag in sending (its 1 ms timer, its loop busy
  // with replies, its pauses) and the round trip from the actual send.
  const sendLagUs = microseconds()
  const fromSendUs = microseconds()
  /** When each measured request actually went out, by requestId. */
  const sentAt = new Map<number, number>()
  // biome-ignore lint/suspicious/noExplicitAny: wire JSON
  function trackOpenOrders(trader: (typeof traders)[number], reply: any): void {
    const order = reply.response
    if (reply.errorCode !== undefined || reply.action !== 'privateCreateOrder' || !order) return
    if (order.status === 'new' || order.status === 'partiallyFilled')
      trader.open.get(order.market)?.push(order.orderId)
    for (const fill of order.fills ?? []) fillsByMarket.get(order.market)?.push(fill.timestamp)
  }
  let acknowledged = 0
  const secondLatenciesMs: number[][] = []
  /** --attribute: every measured request, and what counts as slow (the goal's 5 ms). */
  const slowMs = 5
  const timedRequests: Timed[] = []
  const stopGeneratorMonitor = values.attribute ? monitorStalls(stallLogs.generator) : undefined
  let refused = 0
  let closing = false
  const closedByServer: string[] = []
  const refusedByCode = new Map<number, number>()
  let requestId = 0
  for (const trader of traders) {
    // A trader cut off by the server (1008: more requests in flight than it allows, when the
    // offered rate outruns the server for long enough) is told once, not by each lost reply.
    trader.socket.onclose = (event) => {
      if (!closing) closedByServer.push(`${event.code} ${event.reason}`)
    }
    trader.socket.onmessage = (message) => {
      const text = String(message.data)
      // Book events (--traders-watch-books) are not replies: not worth parsing here.
      if (text.startsWith('{"event"')) return
      const reply = JSON.parse(text)
      const planned = trader.pending.get(reply.requestId)
      if (planned === undefined) return
      trader.pending.delete(reply.requestId)
      const placedIn = trader.placingRequests.get(reply.requestId)
      if (placedIn !== undefined) {
        trader.placingRequests.delete(reply.requestId)
        trader.placing.set(placedIn, trader.placing.get(placedIn)! - 1)
      }
      if (planned < measureFrom) {
        trackOpenOrders(trader, reply)
        return
      }
      const latencyMs = performance.now() - planned
      if (values.attribute)
        timedRequests.push({ plannedMs: performance.timeOrigin + planned, latencyMs })
      ackLatencyUs.recordValue(Math.max(1, Math.round(latencyMs * 1000)))
      const sentMs = sentAt.get(reply.requestId)!
      sentAt.delete(reply.requestId)
      sendLagUs.recordValue(Math.max(1, Math.round((sentMs - planned) * 1000)))
      fromSendUs.recordValue(Math.max(1, Math.round((latencyMs - (sentMs - planned)) * 1000)))
      if (values.timeline) {
        const second = Math.floor((planned - measureFrom) / 1000)
        secondLatenciesMs[second] ??= []
        secondLatenciesMs[second]!.push(latencyMs)
      }
      if (reply.errorCode !== undefined) {
        refused += 1
        refusedByCode.set(reply.errorCode, (refusedByCode.get(reply.errorCode) ?? 0) + 1)
        return
      }
      acknowledged += 1
      trackOpenOrders(trader, reply)
    }
  }

  // Seeded choices so runs are comparable.
  let seed = 20261122
  const random = () => {
    seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31
    return seed / 2 ** 31
  }
  function nextRequest(trader: (typeof traders)[number]): Record<string, unknown> {
    const market = marketIds[Math.floor(random() * marketIds.length)]!
    const spec = marketById(market)!
    const reference = Number(assetBySymbol(spec.base)!.referencePriceEur)
    const tick = Number(spec.tickSize)
    const roll = random()
    const open = trader.open.get(market)!
    // The exchange allows 100 open orders per market and account: a trader near it, counting
    // the limit orders it has sent and not yet had answered (many, when acknowledgements lag),
    // cancels its oldest instead of being refused. (Sending market orders instead, when it knows
    // of none to cancel, made a lagging server's load heavier: more fills a request.)
    const full = open.length + trader.placing.get(market)! >= 90
    if ((roll < 0.2 && open.length > 0) || (full && open.length > 0)) {
      const index = full ? 0 : Math.floor(random() * open.length)
      return { action: 'privateCancelOrder', market, orderId: open.splice(index, 1)[0] }
    }
    const side = random() < 0.5 ? 'buy' : 'sell'
    const decimals = spec.quantityDecimals
    const amount = (Number(spec.minOrderInBaseAsset) * (1 + Math.floor(random() * 3))).toFixed(
      decimals,
    )
    if (roll < 0.3)
      return { action: 'privateCreateOrder', market, side, orderType: 'market', amount }
    const offsetTicks = Math.floor(random() * 20) * (side === 'buy' ? -1 : 1)
    const priceDecimals = Math.max(0, (spec.tickSize.split('.')[1] ?? '').length)
    const price = (Math.round(reference / tick) * tick + offsetTicks * tick).toFixed(priceDecimals)
    return { action: 'privateCreateOrder', market, side, orderType: 'limit', amount, price }
  }

  // The generator's own event-loop delay: latency it adds to what it measures.
  const generatorLoopDelay = monitorEventLoopDelay({ resolution: 1 })
  setTimeout(() => generatorLoopDelay.enable(), warmupSeconds * 1000)
  const total = Math.round(ratePerSecond * (warmupSeconds + durationSeconds))
  const intervalMs = 1000 / ratePerSecond
  const startedAt = performance.now()
  measureFrom = startedAt + warmupSeconds * 1000
  measureFromWallMs = Date.now() + warmupSeconds * 1000
  // prom-client resets its event-loop delay histogram on every scrape: this one starts the window.
  let countersAtWindowStart: ReturnType<typeof processCounters> | undefined
  const windowStarted = new Promise<Awaited<ReturnType<typeof serverMetrics>>>((resolve) =>
    setTimeout(() => {
      countersAtWindowStart = processCounters(child.pid!)
      if (values.allocation) child.kill('SIGUSR2') // the sampler starts
      void serverMetrics(url).then(resolve)
    }, warmupSeconds * 1000),
  )
  let sent = 0
  /** Planned sends skipped in the measured window (--in-flight-max). */
  let heldBack = 0
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now()
      while (sent < total && startedAt + sent * intervalMs <= now) {
        const trader = traders[sent % traders.length]!
        if (trader.pending.size >= inFlightMax) {
          if (startedAt + sent * intervalMs >= measureFrom) heldBack += 1
          sent += 1
          continue
        }
        requestId += 1
        trader.pending.set(requestId, startedAt + sent * intervalMs)
        const next = nextRequest(trader)
        const request = { ...next, requestId }
        if (next.orderType === 'limit') {
          const market = next.market as string
          trader.placing.set(market, trader.placing.get(market)! + 1)
          trader.placingRequests.set(requestId, market)
        }
        if (process.env.DEBUG_LOAD) console.error(JSON.stringify(request))
        trader.socket.send(JSON.stringify(request))
        if (startedAt + sent * intervalMs >= measureFrom) sentAt.set(requestId, now)
        sent += 1
      }
      if (sent < total) setTimeout(tick, 1)
      else resolve()
    }
    tick()
  })
  const countersAtWindowEnd = processCounters(child.pid!)
  if (values.allocation) child.kill('SIGUSR2') // the sampler stops and writes its summary
  const sendingSeconds = (performance.now() - measureFrom) / 1000
  const deadline = performance.now() + 10_000
  while (traders.some((trader) => trader.pending.size > 0) && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  const unanswered = traders.reduce((sum, trader) => sum + trader.pending.size, 0)
  if (closedByServer.length > 0 || unanswered > 0) {
    const reasons = new Map<string, number>()
    for (const reason of closedByServer) reasons.set(reason, (reasons.get(reason) ?? 0) + 1)
    console.error(
      `load: ${unanswered} requests unanswered; ${closedByServer.length} of ${traders.length} traders disconnected by the server ${JSON.stringify(Object.fromEntries(reasons))}: the figures below are not a steady state`,
    )
  }
  const elapsedSeconds = (performance.now() - measureFrom) / 1000
  const atWindowStart = await windowStarted
  const { loopDelay, journal, requestBuckets } = await serverMetrics(url)
  const journalRecords = journal.records - atWindowStart.journal.records
  const journalCommits = journal.commits - atWindowStart.journal.commits
  await new Promise((resolve) => setTimeout(resolve, 500)) // last book flush

  const fills = [...fillsByMarket.values()].reduce((sum, list) => sum + list.length, 0)
  // An event is the first to show the fills after its predecessor's flush, up to its own: the
  // oldest of them is measured, from its time to the event's arrival at each subscriber.
  for (const [market, events] of bookEvents) {
    const fills = fillsByMarket.get(market)!.sort((a, b) => a - b)
    for (const [nonce, event] of events) {
      const previous = events.get(nonce - 1)
      if (previous === undefined) continue
      let low = 0
      let high = fills.length
      while (low < high) {
        const middle = (low + high) >> 1
        if (fills[middle]! <= previous.timestamp) low = middle + 1
        else high = middle
      }
      const oldest = fills[low]
      if (oldest === undefined || oldest > event.timestamp || oldest < measureFromWallMs) continue
      for (const [delayMs, count] of event.deliveriesByDelayMs)
        bookDelayMs.recordValueWithCount(Math.max(1, delayMs + event.timestamp - oldest), count)
    }
  }
  console.log(
    `load: ${traderCount} traders, ${subscriberCount} book subscribers on ${marketIds.join(', ')}`,
  )
  console.log(
    `  planned ${ratePerSecond} requests/s for ${durationSeconds} s after ${warmupSeconds} s of warm-up at the same rate (70% limit, 10% market, 20% cancel)${Number.isFinite(inFlightMax) ? `; at most ${inFlightMax} unanswered a trader: ${heldBack} held back (capacity mode: latencies leave out their wait)` : ''}`,
  )
  console.log(
    `  acknowledged ${acknowledged} (${(acknowledged / elapsedSeconds).toFixed(0)}/s), refused ${refused} ${JSON.stringify(Object.fromEntries(refusedByCode))}, fills ${fills}`,
  )
  console.log(`  acknowledgement latency from planned send: ${percentiles(ackLatencyUs)}`)
  console.log(`    the generator's lag in sending: ${percentiles(sendLagUs)}`)
  console.log(`    from the actual send to the reply: ${percentiles(fromSendUs)}`)
  console.log(
    `  fill → book delta at subscribers: p50 ${bookDelayMs.getValueAtPercentile(50)} ms, p99 ${bookDelayMs.getValueAtPercentile(99)} ms (${bookDelayMs.totalCount} deliveries; includes the wait for the next ${bookBatchMs} ms batch)`,
  )
  console.log(
    `  book batch published → arrived at subscribers: p50 ${fanOutDelayMs.getValueAtPercentile(50)} ms, p99 ${fanOutDelayMs.getValueAtPercentile(99)} ms (${fanOutDelayMs.totalCount} book events, ${ticker24hEvents} ticker24h events)`,
  )
  console.log(
    `  server event-loop delay during the load: p50 ${loopDelay.p50} ms, p99 ${loopDelay.p99} ms, max ${loopDelay.max} ms`,
  )
  console.log(
    `  journal from the end of the warm-up: ${journalRecords} records in ${journalCommits} commits (${(journalRecords / journalCommits).toFixed(2)} a commit)`,
  )
  const inServer = (percentile: number) =>
    bucketPercentile(atWindowStart.requestBuckets, requestBuckets, percentile)
  console.log(
    `  inside the server, a request's arrival → its reply handed to the socket (from /metrics buckets): p50 ${inServer(50)}, p90 ${inServer(90)}, p99 ${inServer(99)}, p99.9 ${inServer(99.9)}`,
  )
  if (countersAtWindowStart !== undefined) {
    type Counter = Exclude<keyof ReturnType<typeof processCounters>, 'threads'>
    const share = (key: Counter) =>
      `${((100 * (countersAtWindowEnd[key] - countersAtWindowStart![key])) / sendingSeconds).toFixed(0)}%`
    const threadShare = (kind: keyof ReturnType<typeof cpuSecondsByThreadKind>) =>
      `${((100 * (countersAtWindowEnd.threads[kind] - countersAtWindowStart!.threads[kind])) / sendingSeconds).toFixed(0)}%`
    const mainMicroseconds =
      ((countersAtWindowEnd.serverMain - countersAtWindowStart.serverMain) * 1e6) /
      (acknowledged + refused)
    console.log(
      `  CPU during the load (of one core): server main thread ${share('serverMain')} (${mainMicroseconds.toFixed(0)} µs a request answered), whole server ${share('server')}, generator ${share('generator')}`,
    )
    console.log(
      `    the server's other threads: V8's (GC helpers, compilers) ${threadShare('v8')}, worker threads (database, archives) ${threadShare('workers')}, libuv's pool ${threadShare('libuv')}, others ${threadShare('other')}`,
    )
    const preempted =
      countersAtWindowEnd.serverMainPreempted - countersAtWindowStart.serverMainPreempted
    console.log(
      `  the server's main thread waited for a CPU ${share('serverMainRunQueue')} of the time, preempted ${(preempted / sendingSeconds).toFixed(0)} times a second; the server made ${((countersAtWindowEnd.serverWrites - countersAtWindowStart.serverWrites) / sendingSeconds).toFixed(0)} write system calls a second`,
    )
  }
  if (values.allocation) {
    const summary = await readWhenWritten<AllocationSummary>(allocationLog)
    const answered = acknowledged + refused
    console.log(
      `  the server's main thread allocated ${(summary.totalBytes / answered / 1024).toFixed(1)} KiB a request answered (${(summary.totalBytes / 2 ** 20).toFixed(0)} MiB in the window, sampled by V8, collected objects included); most by:`,
    )
    for (const { site, bytes } of summary.sites.slice(0, 15))
      console.log(
        `    ${((100 * bytes) / summary.totalBytes).toFixed(1).padStart(5)}% ${(bytes / answered).toFixed(0).padStart(5)} B a request  ${site}`,
      )
  }
  generatorLoopDelay.disable()
  if (values.timeline) {
    const at = (sorted: number[], percentile: number) =>
      sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * percentile) / 100))]!
    for (const [second, latencies] of secondLatenciesMs.entries()) {
      const sorted = (latencies ?? []).sort((a, b) => a - b)
      if (sorted.length > 0)
        console.log(
          `  second ${second + 1}: ${sorted.length} answered, p50 ${at(sorted, 50).toFixed(2)} ms, p99 ${at(sorted, 99).toFixed(2)} ms, max ${sorted.at(-1)!.toFixed(2)} ms`,
        )
    }
  }
  console.log(
    `  generator event-loop delay: p50 ${(generatorLoopDelay.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(generatorLoopDelay.percentile(99) / 1e6).toFixed(1)} ms, max ${(generatorLoopDelay.max / 1e6).toFixed(1)} ms (1 ms resolution)`,
  )
  // The server's resident memory moves by megabytes on its own (the simulator, the heap's
  // growth): divided among a few connections that is noise (21 to 623 KiB seen with 10).
  // A collection while they connect can shrink the heap by more than they add: the difference
  // then says nothing (-0.7 KiB seen at 10,000), and is told as such.
  const grownBytes = rssAfterSubscribers - rssBeforeSubscribers
  console.log(
    subscriberCount < idleMemorySubscribersMin
      ? `  server memory per idle subscriber connection: not measured (needs --subscribers ${idleMemorySubscribersMin} or more)`
      : grownBytes > 0
        ? `  server memory per idle subscriber connection: ${(grownBytes / subscriberCount / 1024).toFixed(1)} KiB`
        : `  server memory per idle subscriber connection: not measured in this run (the server's resident memory fell by ${(-grownBytes / 2 ** 20).toFixed(1)} MiB while they connected: its heap shrank)`,
  )
  if (stopGeneratorMonitor) {
    stopGeneratorMonitor()
    await new Promise((resolve) => setTimeout(resolve, 1_200)) // the server writes its every second
    const fromMs = performance.timeOrigin + measureFrom
    measuredWallMs = { fromMs, toMs: fromMs + elapsedSeconds * 1000 }
    for (const line of attribution(
      timedRequests,
      slowMs,
      readPauses(readFileSync(stallLogs.server, 'utf8')),
      readPauses(readFileSync(stallLogs.generator, 'utf8')),
      fromMs,
      fromMs + elapsedSeconds * 1000,
    ))
      console.log(line)
  }
  closing = true
  for (const socket of [...subscribers, ...traders.map((trader) => trader.socket)]) socket.close()
} finally {
  child.kill('SIGTERM')
  await new Promise((resolve) => child.once('exit', resolve))
  // The server writes its profiles as it exits, one a thread: the main thread's is thread 0
  // (CPU.<date>.<time>.<pid>.<thread>.<sequence>.cpuprofile).
  if (values['stall-profile'] && measuredWallMs !== undefined)
    for (const file of readdirSync(profileDir).filter((name) => name.split('.')[4] === '0'))
      for (const line of stallProfile(
        readFileSync(stallLogs.server, 'utf8'),
        JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile,
        measuredWallMs.fromMs,
        measuredWallMs.toMs,
      ))
        console.log(line)
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(profileDir, { recursive: true, force: true })
  for (const log of [...Object.values(stallLogs), allocationLog]) rmSync(log, { force: true })
}
