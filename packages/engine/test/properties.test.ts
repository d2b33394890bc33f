import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import {
  type Command,
  Engine,
  type EngineEvent,
  EventLog,
  type FillEvent,
  feeFor,
  marketSpecFromConfig,
  type OrderEvent,
} from '../src/index.ts'
import { CommandGenerator, fromDraws, randomMarkets } from './generate.ts'

// Invariants over random command streams. fast-check draws the stream (a list of small integers
// decoded by the same generator as the differential test), with a fixed seed and bounded runs.
const settings = { seed: 42, numRuns: 60 } as const
const streams = fc.array(fc.nat({ max: 1_000_000 }), { minLength: 1, maxLength: 2_000 })

/** ceil(a / b) for b > 0, exactly. */
function roundedUp(a: bigint, b: bigint): number {
  const quotient = a / b // truncates towards zero
  return Number(quotient * b < a ? quotient + 1n : quotient)
}

function commandsFrom(draws: readonly number[], count: number): Command[] {
  const generator = new CommandGenerator(fromDraws(draws))
  return Array.from({ length: count }, () => generator.next())
}

// A tiny closed-order memory, so that eviction and the reuse of pooled order records happen all
// the time in these streams.
function freshEngine(sink: EventLog): Engine {
  const engine = new Engine({ book: 'fast', sink, closedOrdersRememberedMax: 7 })
  for (const config of randomMarkets) engine.addMarket({ type: 'addMarket', timestamp: 0, config })
  return engine
}

const specs = new Map(randomMarkets.map((config) => [config.market, marketSpecFromConfig(config)]))

describe('engine invariants (fast-check)', () => {
  test('the book is never crossed after a command', () => {
    fc.assert(
      fc.property(streams, (draws) => {
        const log = new EventLog()
        const engine = freshEngine(log)
        for (const command of commandsFrom(draws, 400)) {
          engine.execute(command)
          log.take()
          for (const market of specs.keys()) {
            const ticker = engine.ticker(market)
            if (ticker !== null && ticker.bestBid !== 0 && ticker.bestAsk !== 0) {
              expect(ticker.bestBid).toBeLessThan(ticker.bestAsk)
            }
          }
        }
      }),
      settings,
    )
  })

  test('no order fills more than its amount (or its amountQuote)', () => {
    fc.assert(
      fc.property(streams, (draws) => {
        const log = new EventLog()
        const engine = freshEngine(log)
        const filled = new Map<string, number>()
        for (const command of commandsFrom(draws, 400)) {
          engine.execute(command)
          for (const event of log.take()) {
            if (event.type === 'fill') {
              const key = `${event.market}/${event.orderId}`
              filled.set(key, (filled.get(key) ?? 0) + event.amount)
            }
            if (event.type !== 'order') continue
            const key = `${event.market}/${event.orderId}`
            expect(event.filledAmount).toBe(filled.get(key) ?? 0)
            if (event.amount !== null) {
              expect(event.filledAmount).toBeLessThanOrEqual(event.amount)
              expect(event.amountRemaining).toBeGreaterThanOrEqual(0)
              if (['new', 'partiallyFilled', 'filled'].includes(event.status)) {
                expect(event.filledAmount + (event.amountRemaining ?? 0)).toBe(event.amount)
              }
            } else {
              expect(event.filledAmountQuote).toBeLessThanOrEqual(event.amountQuote ?? 0)
              expect(event.filledAmountQuote + (event.amountQuoteRemaining ?? 0)).toBe(
                event.amountQuote,
              )
            }
          }
        }
      }),
      settings,
    )
  })

  test('every fill balances: same base both ways, quote = price × amount, fees as stated, totals conserved', () => {
    fc.assert(
      fc.property(streams, (draws) => {
        const log = new EventLog()
        const engine = freshEngine(log)
        // Per market: base and quote deltas per account, and the fees the exchange earns.
        const base = new Map<string, number>()
        const quote = new Map<string, number>()
        let feesEarned = 0
        const feeOf = new Map<string, { maker: number; taker: number; rules: 1 | 2 }>()
        type Totals = { quote: number; asMaker: number; fee: number }
        const quoteOfOrder = new Map<string, Totals>()
        const none: Totals = { quote: 0, asMaker: 0, fee: 0 }
        for (const command of commandsFrom(draws, 400)) {
          if (command.type === 'placeOrder') {
            feeOf.set(`${command.market}/${command.orderId}`, {
              maker: command.makerFeePpm,
              taker: command.takerFeePpm,
              rules: command.feeRules ?? 1,
            })
          }
          engine.execute(command)
          const events = log.take()
          for (let index = 0; index < events.length; index++) {
            const event = events[index] as EngineEvent
            if (event.type === 'order') {
              const totals = quoteOfOrder.get(`${event.market}/${event.orderId}`) ?? none
              expect(event.filledAmountQuote).toBe(totals.quote)
              expect(event.feePaid).toBe(totals.fee)
            }
            if (event.type !== 'fill' || event.taker) continue
            const maker = event
            const taker = events[index + 1] as FillEvent
            const trade = events[index + 2] as EngineEvent
            expect(taker).toMatchObject({
              type: 'fill',
              taker: true,
              fillId: maker.fillId,
              price: maker.price,
              amount: maker.amount,
              quote: maker.quote,
            })
            expect(taker.side).not.toBe(maker.side)
            expect(trade).toMatchObject({
              type: 'trade',
              tradeId: maker.fillId,
              price: maker.price,
              amount: maker.amount,
              side: taker.side,
            })
            const spec = specs.get(maker.market)
            if (spec === undefined) throw new Error('unknown market')
            expect(maker.quote).toBe(maker.price * maker.amount * spec.quotePerPriceBase)
            const makerRates = feeOf.get(`${maker.market}/${maker.orderId}`)
            const takerRates = feeOf.get(`${taker.market}/${taker.orderId}`)
            // A fill pays what brings its order's fees to the fee of the order's fills so far,
            // at most the fill's own notional (README "Fees"): each role at its own rate, or
            // (rules 1, as journaled before) this fill's rate on the whole total.
            const expectedFee = (fill: FillEvent, rates: typeof makerRates): number => {
              if (rates === undefined) return Number.NaN
              const before = quoteOfOrder.get(`${fill.market}/${fill.orderId}`) ?? none
              const quote = before.quote + fill.quote
              const asMaker = before.asMaker + (fill.taker ? 0 : fill.quote)
              const fee =
                rates.rules === 1
                  ? feeFor(quote, fill.taker ? rates.taker : rates.maker, spec.quotePerNotional)
                  : roundedUp(
                      BigInt(asMaker) * BigInt(rates.maker) +
                        BigInt(quote - asMaker) * BigInt(rates.taker),
                      1_000_000n * BigInt(spec.quotePerNotional),
                    ) * spec.quotePerNotional
              return Math.min(fill.quote, fee - before.fee)
            }
            expect(maker.fee).toBe(expectedFee(maker, makerRates))
            expect(taker.fee).toBe(expectedFee(taker, takerRates))
            for (const fill of [maker, taker]) {
              const account = `${fill.market}/${fill.accountId}`
              const sign = fill.side === 'buy' ? 1 : -1
              base.set(account, (base.get(account) ?? 0) + sign * fill.amount)
              quote.set(account, (quote.get(account) ?? 0) - sign * fill.quote - fill.fee)
              feesEarned += fill.fee
              const key = `${fill.market}/${fill.orderId}`
              const totals = quoteOfOrder.get(key) ?? none
              quoteOfOrder.set(key, {
                quote: totals.quote + fill.quote,
                asMaker: totals.asMaker + (fill.taker ? 0 : fill.quote),
                fee: totals.fee + fill.fee,
              })
            }
          }
        }
        // Base moves between accounts only; quote goes between accounts and to the exchange's fees.
        let baseTotal = 0
        for (const value of base.values()) baseTotal += value
        let quoteTotal = 0
        for (const value of quote.values()) quoteTotal += value
        expect(baseTotal).toBe(0)
        expect(quoteTotal + feesEarned).toBe(0)
      }),
      settings,
    )
  })

  test('determinism: the same stream gives the same events, byte for byte', () => {
    fc.assert(
      fc.property(streams, (draws) => {
        const texts = [0, 1].map(() => {
          const log = new EventLog()
          const engine = freshEngine(log)
          const results = commandsFrom(draws, 300).map((command) => engine.execute(command))
          return JSON.stringify([results, log.events])
        })
        expect(texts[1]).toBe(texts[0])
      }),
      settings,
    )
  })

  test('snapshot + replay of the later commands = full replay', () => {
    fc.assert(
      fc.property(
        streams,
        fc.nat({ max: 300 }),
        fc.constantFrom('fast' as const, 'reference' as const),
        (draws, cut, kind) => {
          const commands = commandsFrom(draws, 300)
          const fullLog = new EventLog()
          const full = freshEngine(fullLog)
          let snapshotText = ''
          const fullResults: unknown[] = []
          commands.forEach((command, index) => {
            if (index === cut) {
              snapshotText = JSON.stringify(full.snapshot())
              fullLog.take()
            }
            const result = full.execute(command)
            if (index >= cut) fullResults.push(result)
          })
          if (cut >= commands.length) return
          const replayLog = new EventLog()
          const replay = Engine.restore(JSON.parse(snapshotText), { book: kind, sink: replayLog })
          const replayResults = commands.slice(cut).map((command) => replay.execute(command))
          expect(JSON.stringify([replayResults, replayLog.events])).toBe(
            JSON.stringify([fullResults, fullLog.events]),
          )
          expect(replay.stateHash()).toBe(full.stateHash())
          expect(JSON.stringify(replay.snapshot().markets.map((market) => market.orders))).toBe(
            JSON.stringify(full.snapshot().markets.map((market) => market.orders)),
          )
        },
      ),
      settings,
    )
  })

  test('order events never show an impossible status transition', () => {
    const terminal = new Set([
      'filled',
      'canceled',
      'canceledSelfTradePrevention',
      'canceledIOC',
      'canceledFOK',
      'canceledMarketProtection',
      'canceledPostOnly',
      'expired',
      'rejected',
    ])
    fc.assert(
      fc.property(streams, (draws) => {
        const log = new EventLog()
        const engine = freshEngine(log)
        const closed = new Set<string>()
        for (const command of commandsFrom(draws, 400)) {
          engine.execute(command)
          for (const event of log.take()) {
            if (event.type !== 'order') continue
            const order = event as OrderEvent
            const key = `${order.market}/${order.orderId}`
            expect(closed.has(key)).toBe(false)
            if (terminal.has(order.status)) closed.add(key)
            expect(order.visible).toBe(order.status === 'new' || order.status === 'partiallyFilled')
          }
        }
      }),
      settings,
    )
  })
})
