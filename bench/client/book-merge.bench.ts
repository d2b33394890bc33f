// Order-book merge benchmark (issue 3, "Performance"): a seeded stream of 1,000,000 level updates
// on a book of 200 levels per side, replayed through @polder/client's merge (exact decimal-string
// prices), in `book` events of 10 levels with consecutive nonces.
//
//   npm exec -- node bench/client/book-merge.bench.ts [--quick]
//
// Stream: per side 60 % amount changes of a resting level and 40 % structural changes: a removal
// (amount "0") when the side holds 200 levels, else the insertion of a new price inside the
// book's price range, so the depth stays at 199-200. Prices have two
// decimals ("30000.15"). The stream is generated before timing; the timed loop only merges.
// Prints level updates per second (best and median of the runs) and the heap growth after GC
// between the first and the last run (growth with depth or with the update count would show).

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { type BookUpdate, OrderBook } from '../../packages/client/src/index.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

const quick = process.argv.includes('--quick')
const levelUpdateCount = quick ? 200_000 : 1_000_000
const levelsPerSide = 200
const levelsPerEvent = 10
const runs = quick ? 3 : 5
const seed = 20261122

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

/** Price in cents → decimal string with two decimals. */
function priceText(cents: number): string {
  const euros = Math.floor(cents / 100)
  const rest = cents % 100
  return `${euros}.${rest < 10 ? '0' : ''}${rest}`
}

type Stream = {
  snapshot: { bids: [string, string][]; asks: [string, string][] }
  events: BookUpdate[]
}

function generate(): Stream {
  const random = mulberry32(seed)
  const mid = 3_000_000 // 30000.00 EUR in cents
  const bidCents = new Set<number>()
  const askCents = new Set<number>()
  for (let index = 1; index <= levelsPerSide; index += 1) {
    bidCents.add(mid - index * 5)
    askCents.add(mid + index * 5)
  }
  const amount = (): string => `${1 + Math.floor(random() * 5000)}.${Math.floor(random() * 1000)}`
  const snapshot = {
    bids: [...bidCents].map((cents): [string, string] => [priceText(cents), amount()]),
    asks: [...askCents].map((cents): [string, string] => [priceText(cents), amount()]),
  }
  const bidList = [...bidCents]
  const askList = [...askCents]
  const events: BookUpdate[] = []
  let nonce = 1
  const nextLevel = (list: number[], set: Set<number>, sign: 1 | -1): [string, string] => {
    const roll = random()
    const index = Math.floor(random() * list.length)
    const cents = list[index]!
    if (roll < 0.6) return [priceText(cents), amount()]
    if (list.length >= levelsPerSide) {
      list[index] = list[list.length - 1]!
      list.pop()
      set.delete(cents)
      return [priceText(cents), '0']
    }
    let fresh = mid + sign * (1 + Math.floor(random() * levelsPerSide * 5))
    while (set.has(fresh)) fresh += sign
    list.push(fresh)
    set.add(fresh)
    return [priceText(fresh), amount()]
  }
  for (let produced = 0; produced < levelUpdateCount; produced += levelsPerEvent) {
    const bids: [string, string][] = []
    const asks: [string, string][] = []
    for (let index = 0; index < levelsPerEvent; index += 1) {
      if (random() < 0.5) bids.push(nextLevel(bidList, bidCents, -1))
      else asks.push(nextLevel(askList, askCents, 1))
    }
    events.push({ nonce, bids, asks })
    nonce += 1
  }
  return { snapshot, events }
}

function run(stream: Stream): { seconds: number; book: OrderBook } {
  const book = new OrderBook('BTC-EUR')
  book.loadSnapshot({ nonce: 0, ...stream.snapshot })
  const start = process.hrtime.bigint()
  const events = stream.events
  for (let index = 0; index < events.length; index += 1) book.merge(events[index]!)
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  return { seconds, book }
}

const generateStart = performance.now()
const stream = generate()
console.log(
  `stream: ${levelUpdateCount.toLocaleString('en-GB')} level updates in ${stream.events.length.toLocaleString('en-GB')} events, ${levelsPerSide} levels per side (generated in ${Math.round(performance.now() - generateStart)} ms)`,
)

run(stream) // warm-up
gc()
const heapBefore = process.memoryUsage().heapUsed
const rates: number[] = []
let lastBook: OrderBook | undefined
for (let index = 0; index < runs; index += 1) {
  const { seconds, book } = run(stream)
  rates.push(levelUpdateCount / seconds)
  lastBook = book
}
gc()
const heapAfter = process.memoryUsage().heapUsed
rates.sort((a, b) => b - a)
const format = (rate: number): string => `${(rate / 1e6).toFixed(2)}M`
console.log(`node ${process.version}, ${runs} runs`)
console.log(
  `level updates/s: best ${format(rates[0]!)}, median ${format(rates[Math.floor(rates.length / 2)]!)}, worst ${format(rates.at(-1)!)}`,
)
console.log(
  `final depth: ${lastBook!.bids.size} bids, ${lastBook!.asks.size} asks; heap growth after GC across ${runs} runs: ${((heapAfter - heapBefore) / 1024).toFixed(0)} KiB`,
)
console.log(
  `goal 2.50M level updates/s: ${rates[Math.floor(rates.length / 2)]! >= 2_500_000 ? 'met' : 'NOT met'}`,
)
