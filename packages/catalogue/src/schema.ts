import { z } from 'zod'
import { canonicalDecimalPattern, compareDecimals, decimalsOf, toUnits } from './decimal.ts'

// One zod schema per catalogue record: it is both the TypeScript type of the data and the runtime
// validator that index.ts runs once at load (a broken catalogue stops the server at start, not
// at the first order). Cross-field rules live here too, so a record that parses is usable.

/** Highest staking yield the product offers (spec §1: "staking yield up to 15%"). */
export const stakingYieldPercentPerYearMax = 15
/** Ledger precision limit: the engine and the ledger work with at most 18 decimals. */
export const assetDecimalsMax = 18
/** Longest description: one sentence, shown under the asset name and in search snippets. */
export const descriptionLengthMax = 240
/** Daily volatility above this is a typo (the simulator would produce nonsense prices). */
export const volatilityPercentPerDayMax = 25

export const assetCategories = [
  'fiat',
  'layer1',
  'layer2',
  'defi',
  'stablecoin',
  'gaming',
  'meme',
  'infrastructure',
  'ai',
  'exchange',
  'privacy',
  'other',
] as const
export const assetCategory = z.enum(assetCategories)
export type AssetCategory = z.infer<typeof assetCategory>

/** Protocol §4.5: ccxt treats anything but 'OK' as "not possible". */
export const transferStatus = z.enum(['OK', 'MAINTENANCE', 'DELISTED'])
export type TransferStatus = z.infer<typeof transferStatus>

/** Protocol §4.4. */
export const marketStatus = z.enum([
  'trading',
  'halted',
  'auction',
  'auctionMatching',
  'cancelOnly',
])
export type MarketStatus = z.infer<typeof marketStatus>

export const orderTypes = [
  'market',
  'limit',
  'stopLoss',
  'stopLossLimit',
  'takeProfit',
  'takeProfitLimit',
] as const
export const orderType = z.enum(orderTypes)
export type OrderType = z.infer<typeof orderType>

export const consensusFamily = z.enum([
  'proof-of-work',
  'proof-of-stake',
  'proof-of-authority',
  'federated-byzantine-agreement',
  'rollup',
  'hybrid',
  'other',
  'not-applicable',
])
export type ConsensusFamily = z.infer<typeof consensusFamily>

/** Plain, canonical decimal string ≥ 0: '0', '0.25', '90000'. No exponent, no trailing zeros. */
export const decimalString = z
  .string()
  .max(40)
  .regex(canonicalDecimalPattern, { error: 'expected a canonical decimal string' })

/** A canonical decimal string > 0. */
export const positiveDecimalString = decimalString.refine((value) => value !== '0', {
  error: 'expected a decimal string > 0',
})

/** The site URL slug: lowercase words joined by hyphens ('bitcoin', 'usd-coin', '0x'). */
export const assetSlug = z
  .string()
  .max(64)
  .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, { error: 'expected a lowercase-hyphenated slug' })

/** Protocol asset symbol: 'BTC', '1INCH', 'S'. */
export const assetSymbol = z
  .string()
  .regex(/^[A-Z0-9]{1,16}$/, { error: 'expected an upper-case asset symbol' })

/** A calendar day, YYYY-MM-DD. */
export const isoDate = z.string().regex(/^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, {
  error: 'expected a date YYYY-MM-DD',
})

/**
 * How a network's sustainability figures were obtained, so the site can say it in each language:
 * a published index; a published study scaled to today's network; or a Polder estimate from the
 * number of validators and nodes, the hash rate (merged mining split between the chains), the
 * storage hardware, or a rollup's operation plus its share of the settlement layer.
 */
export const sustainabilityMethods = [
  'publishedIndex',
  'scaledStudy',
  'nodeCount',
  'hashRate',
  'mergedMining',
  'storage',
  'rollup',
] as const
export const sustainabilityMethod = z.enum(sustainabilityMethods)
export type SustainabilityMethod = z.infer<typeof sustainabilityMethod>

/**
 * MiCA sustainability indicators of a network's consensus mechanism (Regulation (EU) 2023/1114
 * Art. 66(5); Commission Delegated Regulation (EU) 2025/422): energy use for every crypto-asset,
 * renewable share and scope 1 and 2 emissions beside it. Published figures or estimates from
 * them, always with their source and the date they describe. Floats are fine here: these are
 * approximate indicators shown rounded, never amounts of money.
 */
export const sustainability = z.strictObject({
  /** Electricity the consensus mechanism uses in a year, in kWh. */
  energyKwhPerYear: z.number().positive().max(1e15),
  /** Share of that electricity from renewable sources, in percent. */
  renewableEnergyPercent: z.number().positive().max(100),
  /** Scope 1 and 2 greenhouse-gas emissions of that electricity, tonnes CO2-equivalent a year. */
  ghgEmissionsTco2ePerYear: z.number().positive().max(1e10),
  /** How the figures were obtained. */
  method: sustainabilityMethod,
  /** The publications and data behind them, by their own names (not translated). */
  source: z.string().min(4).max(200),
  /** The day the figures describe. */
  asOf: isoDate,
})
export type Sustainability = z.infer<typeof sustainability>

export const network = z
  .strictObject({
    name: z.string().min(1).max(40),
    consensusFamily,
    /** The consensus mechanism in one English phrase (the site shows consensusFamily, translated). */
    consensus: z.string().min(1).max(120),
    /**
     * The protocol's own name, the same in every language ('Gasper', 'SHA-256', 'CometBFT'); the
     * site shows it after the translated family.
     */
    consensusProtocol: z.string().min(1).max(80).optional(),
    /** Rollups only: the network their transactions are settled on. */
    settlesOn: z.string().min(1).max(40).optional(),
    /**
     * The catalogue's assets that are this network's own coin (gas, staking or the rollup's own
     * token). Every other asset on the network is a token hosted by it and inherits its figures.
     */
    nativeAssets: z.array(assetSymbol).max(4).optional(),
    /** Required for every blockchain; absent only when consensusFamily is 'not-applicable'. */
    sustainability: sustainability.optional(),
  })
  .superRefine((value, context) => {
    const applicable = value.consensusFamily !== 'not-applicable'
    if (applicable !== (value.sustainability !== undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['sustainability'],
        message: 'sustainability figures are required for a blockchain, and only for one',
      })
    }
    if ((value.consensusFamily === 'rollup') !== (value.settlesOn !== undefined)) {
      context.addIssue({
        code: 'custom',
        path: ['settlesOn'],
        message: 'a rollup names the network it settles on, and only a rollup does',
      })
    }
  })
export type Network = z.infer<typeof network>

export const staking = z.strictObject({
  /** False while the programme takes no new stakes (existing stakes keep earning). */
  eligible: z.boolean(),
  /** Yield a year in percent, passed on to customers; at most the advertised 15. */
  yieldPercentPerYear: positiveDecimalString.refine(
    (value) => compareDecimals(value, String(stakingYieldPercentPerYearMax)) <= 0,
    { error: `staking yield above ${stakingYieldPercentPerYearMax}%` },
  ),
})
export type Staking = z.infer<typeof staking>

/**
 * Supply in whole units of the asset (approximate, as of the dataset's `supplyAsOf`).
 * `max` is null where the protocol sets no cap: inflationary coins and stablecoins issued on
 * demand.
 */
export const supply = z.strictObject({
  circulating: positiveDecimalString,
  max: positiveDecimalString.nullable(),
})
export type Supply = z.infer<typeof supply>

export const asset = z
  .strictObject({
    slug: assetSlug,
    symbol: assetSymbol,
    name: z.string().min(1).max(60),
    category: assetCategory,
    /** One neutral English sentence; the site translates it. */
    description: z
      .string()
      .min(20)
      .max(descriptionLengthMax)
      .regex(/^[A-Z0-9].*\.$/, { error: 'expected one sentence ending with a full stop' }),
    /** Non-empty (protocol §4.5). Deposits and withdrawals use networks[0]; the fee is for it. */
    networks: z.array(z.string().min(1)).min(1).max(8),
    /** Ledger precision: balances are integers of 10^-decimals. */
    decimals: z.int().min(0).max(assetDecimalsMax),
    depositStatus: transferStatus,
    withdrawalStatus: transferStatus,
    /** Why a status is not OK; '' when both are OK (protocol §4.5). */
    message: z.string().max(300),
    depositConfirmations: z.int().min(0).max(10_000),
    withdrawalFee: decimalString,
    withdrawalMinAmount: decimalString,
    staking: staking.optional(),
    /** A plausible price in EUR for the market simulator's start; not a live quote. */
    referencePriceEur: positiveDecimalString,
    /** Standard deviation of the simulator's daily log return, in percent. */
    volatilityPercentPerDay: z.number().min(0).max(volatilityPercentPerDayMax),
    launchYear: z.int().min(1999).max(2026).optional(),
    /** Every crypto-asset has one (a whole-catalogue rule); EUR has none. */
    supply: supply.optional(),
  })
  .superRefine((value, context) => {
    const bothOk = value.depositStatus === 'OK' && value.withdrawalStatus === 'OK'
    if (bothOk !== (value.message === '')) {
      context.addIssue({
        code: 'custom',
        path: ['message'],
        message: 'message must explain a status that is not OK, and be empty otherwise',
      })
    }
    for (const key of ['withdrawalFee', 'withdrawalMinAmount'] as const) {
      if (canonicalDecimalPattern.test(value[key]) && decimalsOf(value[key]) > value.decimals) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: `more decimals than the asset's ${value.decimals}`,
        })
      }
    }
    if (
      canonicalDecimalPattern.test(value.withdrawalFee) &&
      canonicalDecimalPattern.test(value.withdrawalMinAmount) &&
      compareDecimals(value.withdrawalMinAmount, value.withdrawalFee) <= 0 &&
      value.withdrawalMinAmount !== '0'
    ) {
      context.addIssue({
        code: 'custom',
        path: ['withdrawalMinAmount'],
        message: 'the minimum withdrawal must exceed the fee',
      })
    }
    const delisted = value.depositStatus === 'DELISTED' || value.withdrawalStatus === 'DELISTED'
    if (delisted && value.staking?.eligible === true) {
      context.addIssue({
        code: 'custom',
        path: ['staking'],
        message: 'a delisted asset cannot be eligible for staking',
      })
    }
    const { supply: amounts } = value
    if (
      amounts?.max != null &&
      canonicalDecimalPattern.test(amounts.circulating) &&
      canonicalDecimalPattern.test(amounts.max) &&
      compareDecimals(amounts.circulating, amounts.max) > 0
    ) {
      context.addIssue({
        code: 'custom',
        path: ['supply', 'circulating'],
        message: 'circulating supply above the maximum supply',
      })
    }
    if ((value.category === 'fiat') !== (value.symbol === 'EUR')) {
      context.addIssue({
        code: 'custom',
        path: ['category'],
        message: 'EUR is the only fiat asset',
      })
    }
  })
export type Asset = z.infer<typeof asset>

/**
 * A market: the protocol §4.4 object plus `maxPrice`, which the engine requires (it bounds every
 * notional so that integer arithmetic stays exact). Passed as is to the engine's `addMarket`.
 */
export const market = z
  .strictObject({
    market: z.string().regex(/^[A-Z0-9]{1,16}-[A-Z0-9]{1,16}$/),
    status: marketStatus,
    base: assetSymbol,
    quote: assetSymbol,
    /** Significant digits a price may have (engine error 214 beyond). */
    pricePrecision: z.int().min(0).max(18),
    tickSize: positiveDecimalString,
    quantityDecimals: z.int().min(0).max(assetDecimalsMax),
    notionalDecimals: z.int().min(0).max(assetDecimalsMax),
    minOrderInBaseAsset: positiveDecimalString,
    maxOrderInBaseAsset: positiveDecimalString,
    minOrderInQuoteAsset: decimalString,
    maxOrderInQuoteAsset: positiveDecimalString,
    maxPrice: positiveDecimalString,
    orderTypes: z.array(orderType).min(1),
    maxOpenOrders: z.int().min(1).max(1000),
    feeCategory: z.enum(['A', 'B', 'C']),
  })
  .superRefine((value, context) => {
    if (value.market !== `${value.base}-${value.quote}`) {
      context.addIssue({ code: 'custom', path: ['market'], message: 'market must be BASE-QUOTE' })
    }
    const ordered = (low: keyof typeof value, high: keyof typeof value) => {
      const a = value[low]
      const b = value[high]
      if (typeof a !== 'string' || typeof b !== 'string') return
      if (!canonicalDecimalPattern.test(a) || !canonicalDecimalPattern.test(b)) return
      if (compareDecimals(a, b) > 0) {
        context.addIssue({ code: 'custom', path: [high], message: `${high} below ${low}` })
      }
    }
    ordered('minOrderInBaseAsset', 'maxOrderInBaseAsset')
    ordered('minOrderInQuoteAsset', 'maxOrderInQuoteAsset')
    ordered('tickSize', 'maxPrice')
    for (const key of ['minOrderInBaseAsset', 'maxOrderInBaseAsset'] as const) {
      const text = value[key]
      if (canonicalDecimalPattern.test(text) && decimalsOf(text) > value.quantityDecimals) {
        context.addIssue({ code: 'custom', path: [key], message: 'finer than quantityDecimals' })
      }
    }
    for (const key of ['minOrderInQuoteAsset', 'maxOrderInQuoteAsset'] as const) {
      const text = value[key]
      if (canonicalDecimalPattern.test(text) && decimalsOf(text) > value.notionalDecimals) {
        context.addIssue({ code: 'custom', path: [key], message: 'finer than notionalDecimals' })
      }
    }
    if (
      canonicalDecimalPattern.test(value.tickSize) &&
      canonicalDecimalPattern.test(value.maxPrice)
    ) {
      const priceDecimals = decimalsOf(value.tickSize)
      const onTick =
        decimalsOf(value.maxPrice) <= priceDecimals &&
        toUnits(value.maxPrice, priceDecimals) % toUnits(value.tickSize, priceDecimals) === 0n
      if (!onTick) {
        context.addIssue({
          code: 'custom',
          path: ['maxPrice'],
          message: 'not a multiple of tickSize',
        })
      }
    }
  })
export type Market = z.infer<typeof market>
