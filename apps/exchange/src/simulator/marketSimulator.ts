// Keeps every market alive with real orders through the real core: per market a fair price
// follows a seeded geometric random walk (the asset's daily volatility), a market-maker account
// re-quotes layered books around it, and a taker account sends market orders that trade against
// them. Every book, trade, ticker and candle the clients see is therefore a real output of the
// exchange. Simulated accounts are ordinary accounts funded by journaled deposits.
import { feeTier } from '@polder/catalogue'
import type { MarketSpec, PlaceOrder } from '@polder/engine'
import { priceStep, validPrice } from '../core/candleHistory.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { newOrderId } from '../core/orderIds.ts'
import { toLedgerUnits } from '../ledger/ledger.ts'
import { seededRandom, standardNormal } from './random.ts'

export { seededRandom } from './random.ts'

export type SimulatedMarket = {
  market: string
  referencePrice: number
  volatilityPercentPerDay: number
}

export type SimulatorOptions = {
  seed: number
  /** How often one market is re-quoted, per market, in ms. */
  requoteIntervalMs: number
  /** Levels per side the market maker quotes. */
  levelsPerSide: number
  /** Chance that a re-quote is followed by a taker order. */
  takerProbability: number
  makerAccountId: number
  takerAccountId: number
  nowMs: () => number
}

export const defaultSimulatorOptions = {
  seed: 1,
  requoteIntervalMs: 15_000,
  levelsPerSide: 5,
  takerProbability: 0.5,
} as const

const dayMs = 86_400_000
/** Markets the first pass re-quotes per journal commit (about 300 commands). */
const firstPassMarketsPerCommit = 25
/** Funds each simulated account starts with, per asset, in units of the reference price. */
const fundingEur = 1_000_000_000

type MarketState = {
  spec: MarketSpec
  fair: number
  volatility: number
  random: () => number
  lastMs: number
}

export class MarketSimulator {
  readonly #service: ExchangeService
  readonly #options: SimulatorOptions

  /** How often each market is re-quoted, and how likely a taker trade is after each. */
  get pace(): { requoteIntervalMs: number; takerProbability: number } {
    return {
      requoteIntervalMs: this.#options.requoteIntervalMs,
      takerProbability: this.#options.takerProbability,
    }
  }
  readonly #markets: MarketState[] = []
  #timer: ReturnType<typeof setInterval> | undefined
  #cursor = 0
  /** The step or first pass in flight, if any: steps never queue up behind a slow one. */
  #running: Promise<void> | undefined
  commandsSubmitted = 0

  constructor(
    service: ExchangeService,
    markets: readonly SimulatedMarket[],
    options: SimulatorOptions,
  ) {
    this.#service = service
    this.#options = options
    markets.forEach((market, index) => {
      const spec = service.core.engine.market(market.market)
      if (spec === null || spec.status !== 'trading') return
      // Start from the last traded price when there is one, so a restart continues the chart.
      const last = service.core.engine.ticker(market.market)?.lastPrice
      const fair = last ? last * 10 ** -spec.priceDecimals : market.referencePrice
      this.#markets.push({
        spec,
        fair,
        volatility: market.volatilityPercentPerDay / 100,
        random: seededRandom(options.seed * 1_000_003 + index),
        lastMs: options.nowMs(),
      })
    })
  }

  /** The simulated maker's and taker's accounts. */
  get accountIds(): readonly number[] {
    return [this.#options.makerAccountId, this.#options.takerAccountId]
  }

  /** Funds the simulated accounts when they have nothing yet (journaled deposits, one commit). */
  async fund(): Promise<void> {
    const ledger = this.#service.core.ledger
    const deposits: Promise<unknown>[] = []
    const assets = new Map<string, number>([['EUR', 2]])
    for (const market of this.#markets) assets.set(market.spec.base, market.spec.quantityDecimals)
    for (const accountId of this.accountIds) {
      for (const [asset, decimals] of assets) {
        if (ledger.balance(accountId, asset).available > 0n) continue
        const market = this.#markets.find((state) => state.spec.base === asset)
        const units =
          asset === 'EUR'
            ? fundingEur * 100
            : Math.round((fundingEur / (market?.fair ?? 1)) * 10 ** decimals)
        const amount = toLedgerUnits(
          Math.max(1, Math.min(units, Number.MAX_SAFE_INTEGER)),
          decimals,
        )
        deposits.push(
          this.#service.submit({
            type: 'deposit',
            timestamp: this.#options.nowMs(),
            accountId,
            asset,
            amount: amount.toString(),
            reference: `simulator-${accountId}-${asset}`,
          }),
        )
      }
    }
    await Promise.all(deposits)
  }

  /** Where each simulated market's price starts: the history backfill ends exactly there. */
  startingPrices(): { spec: MarketSpec; priceUnits: number; volatilityPercentPerDay: number }[] {
    return this.#markets.map((state) => ({
      spec: state.spec,
      priceUnits: this.#fairUnits(state),
      volatilityPercentPerDay: state.volatility * 100,
    }))
  }

  start(): void {
    if (this.#timer !== undefined || this.#markets.length === 0) return
    // One market per tick, so each is re-quoted every requoteIntervalMs and the load is even.
    const tickMs = Math.max(5, this.#options.requoteIntervalMs / this.#markets.length)
    this.#timer = setInterval(() => void this.step(), tickMs)
    // First, every market at once, each with a trade: the round robin alone would leave the last
    // books empty for a whole re-quote interval (15 s for 200 markets).
    this.#run(async () => {
      for (let from = 0; from < this.#markets.length; from += firstPassMarketsPerCommit) {
        if (this.#timer === undefined) return
        const group = this.#markets.slice(from, from + firstPassMarketsPerCommit)
        await Promise.all(group.map((state) => this.#requote(state, true)))
      }
    })
  }

  /** Stops; resolves once the step in flight (if any) has been submitted. */
  async stop(): Promise<void> {
    clearInterval(this.#timer)
    this.#timer = undefined
    await this.#running
  }

  /** Moves the next market's fair price, re-quotes it, and maybe trades against it. */
  async step(): Promise<void> {
    await this.#run(() => {
      const state = this.#markets[this.#cursor % this.#markets.length]!
      this.#cursor += 1
      return this.#requote(state, false)
    })
  }

  #run(work: () => Promise<void>): Promise<void> {
    if (this.#running !== undefined) return this.#running // never queue up behind a slow step
    this.#running = work().finally(() => {
      this.#running = undefined
    })
    return this.#running
  }

  /** The fair price as a price the market accepts (on the tick, within its precision). */
  #fairUnits(state: MarketState): number {
    const { spec } = state
    return validPrice(state.fair * 10 ** spec.priceDecimals, spec.tickUnits, spec.pricePrecision)
  }

  /**
   * Submits without waiting between commands: the core applies each as it is submitted, so the
   * order holds, and the journal commits them together instead of one commit per order.
   */
  #requote(state: MarketState, trade: boolean): Promise<void> {
    const { spec, random } = state
    const nowMs = this.#options.nowMs()
    const elapsedDays = Math.max(0, nowMs - state.lastMs) / dayMs
    state.lastMs = nowMs
    state.fair *= Math.exp(
      state.volatility * Math.sqrt(elapsedDays) * standardNormal(random) -
        (state.volatility ** 2 * elapsedDays) / 2,
    )
    const fees = feeTier(0)
    const maker = this.#options.makerAccountId
    const submitted = [
      this.#submit({
        type: 'cancelOrders',
        timestamp: nowMs,
        accountId: maker,
        market: spec.market,
      }),
    ]
    const fairUnits = this.#fairUnits(state)
    // Steps between valid prices, not ticks: above a power of ten a price keeps its
    // `pricePrecision` significant digits (100,001 is no price where 5 are allowed).
    const step = priceStep(fairUnits, spec.tickUnits, spec.pricePrecision)
    const halfSpreadTicks = 1 + Math.floor(random() * 3)
    const lastPrice = { buy: Number.POSITIVE_INFINITY, sell: 0 }
    for (let level = 0; level < this.#options.levelsPerSide; level += 1) {
      for (const side of ['buy', 'sell'] as const) {
        const offset = (halfSpreadTicks + level * (1 + Math.floor(random() * 3))) * step
        const raw = side === 'buy' ? fairUnits - offset : fairUnits + offset
        // A level just past a power of ten is rounded to that side's precision, and each level
        // is beyond the one before it (the next valid price past it where the drawn offset,
        // or the rounding, would put it on or inside that one).
        let price = validPrice(raw, spec.tickUnits, spec.pricePrecision)
        const before = lastPrice[side]
        if (side === 'buy' && price >= before)
          price = before - priceStep(before - 1, spec.tickUnits, spec.pricePrecision)
        if (side === 'sell' && price <= before)
          price = before + priceStep(before, spec.tickUnits, spec.pricePrecision)
        if (price < spec.minPrice || price > spec.maxPrice) continue
        lastPrice[side] = price
        const amount = Math.min(
          spec.maxAmount,
          minimumAmount(spec, price) * (2 + Math.floor(random() * 20)),
        )
        submitted.push(
          this.#submit(this.#order(spec.market, maker, side, 'limit', amount, price, fees, nowMs)),
        )
      }
    }
    if (random() < this.#options.takerProbability || trade) {
      const side = random() < 0.5 ? 'buy' : 'sell'
      // Sized at a price a tenth below the fair one: a market order fills at the levels either
      // side of it, and its worth must still reach the market's minimum.
      const amount = Math.min(
        spec.maxAmount,
        minimumAmount(spec, fairUnits * 0.9) * (1 + Math.floor(random() * 5)),
      )
      const taker = this.#options.takerAccountId
      submitted.push(
        this.#submit(
          this.#order(spec.market, taker, side, 'market', amount, undefined, fees, nowMs),
        ),
      )
    }
    return Promise.all(submitted).then(() => undefined)
  }

  #order(
    market: string,
    accountId: number,
    side: 'buy' | 'sell',
    orderType: 'limit' | 'market',
    amount: number,
    price: number | undefined,
    fees: { makerFeePpm: number; takerFeePpm: number },
    timestamp: number,
  ): PlaceOrder {
    return {
      type: 'placeOrder',
      timestamp,
      market,
      orderId: newOrderId(timestamp),
      accountId,
      side,
      orderType,
      amount,
      ...(price === undefined ? {} : { price }),
      selfTradePrevention: 'cancelNewest',
      makerFeePpm: fees.makerFeePpm,
      takerFeePpm: fees.takerFeePpm,
      feeRules: 2,
    }
  }

  async #submit(command: Parameters<ExchangeService['submit']>[0]): Promise<void> {
    await this.#service.submit(command)
    this.commandsSubmitted += 1
  }
}

/**
 * The least amount of an order at `priceUnits` the market accepts: its minimum in the base
 * asset, and enough to be worth its minimum in the quote asset (5 EUR) at that price. The base
 * minimum alone is worth that only near the reference price: after a fall by half, the maker's
 * smallest quotes were refused (217).
 */
function minimumAmount(spec: MarketSpec, priceUnits: number): number {
  const worth = Math.max(1, Math.floor(priceUnits)) * spec.quotePerPriceBase
  return Math.max(spec.minAmount, Math.ceil(spec.minQuote / worth))
}
