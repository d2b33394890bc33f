import { describe, expect, it } from 'vitest'
import { assetSupply } from '../src/asset-data/supply.ts'
import {
  type Asset,
  assetBySlug,
  assetBySymbol,
  assetNetworks,
  assetSchema,
  assets,
  CatalogueError,
  catalogueIssues,
  compareDecimals,
  cryptoAssets,
  marketById,
  marketSchema,
  markets,
  type Network,
  networkByName,
  networkSchema,
  networks,
  stakingYieldPercentPerYearMax,
  supplyAsOf,
} from '../src/index.ts'

// The slugs the spec names (§2 "Asset slugs"), which the public site's routes depend on.
const specSlugs = [
  '0x',
  '1inch',
  'aave',
  'aavegotchi',
  'bitcoin',
  'ethereum',
  'solana',
  'ripple',
  'cardano',
  'dogecoin',
  'polkadot',
  'tether',
  'usd-coin',
  'pepe',
  'shiba-inu',
  'zilliqa',
]

describe('every record passes its schema', () => {
  it.each(assets.map((value) => [value.slug, value] as const))('asset %s', (_slug, value) => {
    expect(assetSchema.safeParse(value).error?.issues ?? []).toEqual([])
  })
  it.each(markets.map((value) => [value.market, value] as const))('market %s', (_id, value) => {
    expect(marketSchema.safeParse(value).error?.issues ?? []).toEqual([])
  })
  it('networks', () => {
    for (const value of networks) expect(networkSchema.parse(value)).toEqual(value)
  })
  it('the whole catalogue has no issue', () => {
    expect(catalogueIssues({ assets, markets, networks })).toEqual([])
  })
})

describe('the asset list (spec §1-§2: over 200 assets, roughly 200 slugs, alphabetical)', () => {
  it('has between 190 and 210 crypto-assets, plus EUR', () => {
    expect(cryptoAssets.length).toBeGreaterThanOrEqual(190)
    expect(cryptoAssets.length).toBeLessThanOrEqual(210)
    expect(assets.length).toBe(cryptoAssets.length + 1)
    expect(
      assets.filter((value) => value.category === 'fiat').map((value) => value.symbol),
    ).toEqual(['EUR'])
  })

  it('lists the slugs in alphabetical (code-point) order', () => {
    const slugs = assets.map((value) => value.slug)
    expect(slugs).toEqual([...slugs].sort())
    expect(slugs[0]).toBe('0x')
    expect(slugs[1]).toBe('1inch')
    expect(slugs.at(-1)).toBe('zksync')
  })

  it('has unique slugs, symbols and market ids', () => {
    const unique = (values: string[]) => new Set(values).size === values.length
    expect(unique(assets.map((value) => value.slug))).toBe(true)
    expect(unique(assets.map((value) => value.symbol))).toBe(true)
    expect(unique(markets.map((value) => value.market))).toBe(true)
  })

  it('includes every slug the spec names', () => {
    const missing = specSlugs.filter((slug) => assetBySlug(slug) === undefined)
    expect(missing).toEqual([])
  })

  it('maps the spec slugs to the right symbols', () => {
    const symbols = Object.fromEntries(specSlugs.map((slug) => [slug, assetBySlug(slug)?.symbol]))
    expect(symbols).toEqual({
      '0x': 'ZRX',
      '1inch': '1INCH',
      aave: 'AAVE',
      aavegotchi: 'GHST',
      bitcoin: 'BTC',
      ethereum: 'ETH',
      solana: 'SOL',
      ripple: 'XRP',
      cardano: 'ADA',
      dogecoin: 'DOGE',
      polkadot: 'DOT',
      tether: 'USDT',
      'usd-coin': 'USDC',
      pepe: 'PEPE',
      'shiba-inu': 'SHIB',
      zilliqa: 'ZIL',
    })
  })

  it('covers layer-1 chains, DeFi, gaming tokens and stablecoins', () => {
    const count = (category: Asset['category']) =>
      assets.filter((value) => value.category === category).length
    expect(count('layer1')).toBeGreaterThanOrEqual(40)
    expect(count('defi')).toBeGreaterThanOrEqual(30)
    expect(count('gaming')).toBeGreaterThanOrEqual(10)
    expect(count('stablecoin')).toBeGreaterThanOrEqual(3)
  })

  it('gives EUR the SEPA network and 2 decimals', () => {
    expect(assetBySymbol('EUR')).toMatchObject({
      slug: 'euro',
      category: 'fiat',
      decimals: 2,
      networks: ['SEPA'],
      depositStatus: 'OK',
      withdrawalStatus: 'OK',
    })
  })
})

describe('deposit and withdrawal statuses', () => {
  const notOk = (status: Asset['depositStatus']) =>
    assets.filter((value) => value.depositStatus === status || value.withdrawalStatus === status)

  it('has at least 2 assets under MAINTENANCE and 2 DELISTED', () => {
    expect(notOk('MAINTENANCE').length).toBeGreaterThanOrEqual(2)
    expect(notOk('DELISTED').length).toBeGreaterThanOrEqual(2)
  })

  it('explains every status that is not OK, and only those (protocol §4.5)', () => {
    for (const value of assets) {
      const ok = value.depositStatus === 'OK' && value.withdrawalStatus === 'OK'
      expect(value.message === '', value.slug).toBe(ok)
    }
  })

  it('halts the market of a delisted asset and keeps the others trading', () => {
    for (const value of cryptoAssets) {
      const delisted = value.depositStatus === 'DELISTED' || value.withdrawalStatus === 'DELISTED'
      expect(marketById(`${value.symbol}-EUR`)?.status, value.slug).toBe(
        delisted ? 'halted' : 'trading',
      )
    }
  })
})

describe('staking (spec §1: staking yield up to 15%)', () => {
  const stakeable = assets.filter((value) => value.staking !== undefined)

  it('offers staking on the usual proof-of-stake assets', () => {
    for (const symbol of ['ETH', 'SOL', 'ADA', 'DOT', 'ATOM', 'AVAX', 'NEAR', 'XTZ']) {
      expect(assetBySymbol(symbol)?.staking?.eligible, symbol).toBe(true)
    }
    expect(stakeable.length).toBeGreaterThanOrEqual(20)
  })

  it('never offers more than 15% a year, and the highest is exactly the advertised 15%', () => {
    const yields = stakeable.map((value) => value.staking!.yieldPercentPerYear)
    for (const value of yields) {
      expect(compareDecimals(value, String(stakingYieldPercentPerYearMax))).toBeLessThanOrEqual(0)
      expect(compareDecimals(value, '0')).toBe(1)
    }
    expect(yields).toContain('15')
  })

  it('offers no staking on proof-of-work coins', () => {
    for (const value of stakeable) {
      const family = networkByName(value.networks[0]!)?.consensusFamily
      expect(family, value.slug).not.toBe('proof-of-work')
    }
  })
})

describe('fees, minimums and reference data', () => {
  it('keeps the minimum withdrawal above the fee, both within the ledger precision', () => {
    for (const value of assets) {
      if (value.withdrawalMinAmount === '0') continue
      expect(compareDecimals(value.withdrawalMinAmount, value.withdrawalFee), value.slug).toBe(1)
    }
  })

  it('uses known networks only, with their consensus mechanism', () => {
    for (const value of assets) {
      for (const name of value.networks) expect(networkByName(name), value.slug).toBeDefined()
    }
    expect(networkByName('Bitcoin')?.consensusFamily).toBe('proof-of-work')
    expect(networkByName('Ethereum')?.consensusFamily).toBe('proof-of-stake')
  })

  it('has no unused network', () => {
    const used = new Set(assets.flatMap((value) => value.networks))
    expect(networks.map((value) => value.name).filter((name) => !used.has(name))).toEqual([])
  })

  it('keeps stablecoins calm and meme coins wild for the simulator', () => {
    for (const value of assets.filter((item) => item.category === 'stablecoin')) {
      expect(value.volatilityPercentPerDay, value.slug).toBeLessThanOrEqual(0.1)
    }
    for (const value of assets.filter((item) => item.category === 'meme')) {
      expect(value.volatilityPercentPerDay, value.slug).toBeGreaterThanOrEqual(5)
    }
    expect(assetBySymbol('BTC')?.volatilityPercentPerDay).toBe(2.5)
  })

  it('writes one sentence per description', () => {
    for (const value of assets) {
      expect(value.description.split(/\.\s/).length, value.slug).toBe(1)
    }
  })
})

describe('supply (the asset facts of the public site)', () => {
  it('is dated: one as-of day for the whole dataset', () => {
    expect(supplyAsOf).toMatch(/^\d{4}-\d{2}-\d{2}$/)
    expect(Number.isNaN(Date.parse(supplyAsOf))).toBe(false)
  })

  it('is given for every crypto-asset and for no fiat currency', () => {
    for (const value of cryptoAssets) expect(value.supply, value.slug).toBeDefined()
    expect(assetBySymbol('EUR')?.supply).toBeUndefined()
  })

  it('has no entry for a slug the catalogue does not list', () => {
    const slugs = new Set(assets.map((value) => value.slug))
    expect(Object.keys(assetSupply).filter((slug) => !slugs.has(slug))).toEqual([])
  })

  it('keeps the circulating supply within the maximum, when there is one', () => {
    for (const value of cryptoAssets) {
      const { circulating, max } = value.supply!
      expect(compareDecimals(circulating, '0'), value.slug).toBe(1)
      if (max !== null) expect(compareDecimals(circulating, max), value.slug).toBeLessThanOrEqual(0)
    }
  })

  it('caps the coins with a fixed schedule and leaves inflationary ones and stablecoins open', () => {
    expect(assetBySymbol('BTC')?.supply?.max).toBe('21000000')
    expect(assetBySymbol('LTC')?.supply?.max).toBe('84000000')
    for (const symbol of ['ETH', 'DOGE', 'SOL', 'USDT', 'USDC', 'EURC', 'DAI'])
      expect(assetBySymbol(symbol)?.supply?.max, symbol).toBeNull()
  })

  it('is refused when circulating exceeds the maximum', () => {
    const bitcoin = assetBySymbol('BTC')!
    const broken = { ...bitcoin, supply: { circulating: '22000000', max: '21000000' } }
    expect(assetSchema.safeParse(broken).error?.issues.map((issue) => issue.message)).toEqual([
      'circulating supply above the maximum supply',
    ])
  })
})

describe('MiCA sustainability indicators per network', () => {
  const used = new Set(cryptoAssets.flatMap((value) => value.networks))
  const blockchains = networks.filter((value) => used.has(value.name))

  it('gives every network a crypto-asset uses its figures', () => {
    expect(blockchains.filter((value) => value.sustainability === undefined)).toEqual([])
  })

  it('has only positive, finite numbers and a renewable share of at most 100%', () => {
    for (const { name, sustainability } of blockchains) {
      const figures = sustainability!
      for (const number of [
        figures.energyKwhPerYear,
        figures.renewableEnergyPercent,
        figures.ghgEmissionsTco2ePerYear,
      ]) {
        expect(Number.isFinite(number) && number > 0, name).toBe(true)
      }
      expect(figures.renewableEnergyPercent, name).toBeLessThanOrEqual(100)
    }
  })

  it('names a source and the date of every figure', () => {
    for (const { name, sustainability } of blockchains) {
      expect(sustainability!.source.length, name).toBeGreaterThanOrEqual(10)
      expect(Date.parse(sustainability!.asOf), name).not.toBeNaN()
    }
  })

  it('keeps the orders of magnitude of published estimates', () => {
    const energy = (name: string) => networkByName(name)!.sustainability!.energyKwhPerYear
    // Bitcoin about 150-180 TWh, Ethereum after the Merge about 0.0026 TWh, Solana a few GWh.
    expect(energy('Bitcoin')).toBeGreaterThanOrEqual(150e9)
    expect(energy('Bitcoin')).toBeLessThanOrEqual(180e9)
    expect(energy('Ethereum')).toBeGreaterThan(1e6)
    expect(energy('Ethereum')).toBeLessThan(5e6)
    expect(energy('Solana')).toBeGreaterThan(1e6)
    expect(energy('Solana')).toBeLessThan(10e6)
    for (const value of blockchains.filter((item) => item.consensusFamily === 'proof-of-work'))
      expect(value.sustainability!.energyKwhPerYear, value.name).toBeGreaterThan(energy('Ethereum'))
  })

  it('has none for SEPA, which is not a blockchain', () => {
    expect(networkByName('SEPA')).toMatchObject({ consensusFamily: 'not-applicable' })
    expect(networkByName('SEPA')?.sustainability).toBeUndefined()
  })

  it('names the settlement network of every rollup, and only of rollups', () => {
    for (const value of networks) {
      if (value.consensusFamily === 'rollup')
        expect(networkByName(value.settlesOn ?? '')?.name, value.name).toBe(value.settlesOn)
      else expect(value.settlesOn, value.name).toBeUndefined()
    }
  })
})

describe('tokens inherit the figures of their host network', () => {
  it('resolves the host mapping: native coins live on their network', () => {
    for (const value of networks)
      for (const symbol of value.nativeAssets ?? [])
        expect(assetBySymbol(symbol)?.networks, `${value.name} ${symbol}`).toContain(value.name)
  })

  it('marks a network’s own coin as native and everything else on it as a hosted token', () => {
    const hosted = (symbol: string) =>
      assetNetworks(assetBySymbol(symbol)!).map((entry) => [entry.network.name, entry.hostedToken])
    expect(hosted('ETH')).toEqual([['Ethereum', false]])
    expect(hosted('BTC')).toEqual([['Bitcoin', false]])
    expect(hosted('USDT')).toEqual([['Ethereum', true]])
    expect(hosted('BONK')).toEqual([['Solana', true]])
    expect(hosted('ARB')).toEqual([['Arbitrum One', false]])
    expect(hosted('GMX')).toEqual([['Arbitrum One', true]])
    expect(hosted('TFUEL')).toEqual([['Theta', false]])
  })

  it('gives every crypto-asset, native or token, a host with figures', () => {
    for (const value of cryptoAssets)
      for (const entry of assetNetworks(value))
        expect(entry.network.sustainability, `${value.slug} on ${entry.network.name}`).toBeDefined()
  })

  it('lists every chain’s own coin where the catalogue has it', () => {
    // A layer-1 asset whose network carries its name is that network's coin, not a token.
    for (const symbol of ['ADA', 'DOT', 'SOL', 'XRP', 'TRX', 'TON', 'AVAX', 'KAS', 'DOGE'])
      expect(assetNetworks(assetBySymbol(symbol)!)[0]!.hostedToken, symbol).toBe(false)
  })
})

describe('lookups', () => {
  it('finds assets by symbol and slug, markets by id', () => {
    expect(assetBySymbol('BTC')?.slug).toBe('bitcoin')
    expect(assetBySlug('usd-coin')?.symbol).toBe('USDC')
    expect(marketById('BTC-EUR')?.base).toBe('BTC')
    expect(assetBySymbol('NOPE')).toBeUndefined()
    expect(assetBySlug('Bitcoin')).toBeUndefined()
    expect(marketById('EUR-EUR')).toBeUndefined()
  })

  it('is frozen: no importer can change the shared data', () => {
    const bitcoin = assetBySymbol('BTC')!
    expect(Object.isFrozen(assets)).toBe(true)
    expect(Object.isFrozen(bitcoin)).toBe(true)
    expect(Object.isFrozen(bitcoin.networks)).toBe(true)
    expect(Object.isFrozen(marketById('BTC-EUR'))).toBe(true)
  })
})

describe('catalogueIssues finds broken data', () => {
  const bitcoin = assetBySymbol('BTC')!
  const ethereum = assetBySymbol('ETH')!
  const check = (change: (list: Asset[]) => Asset[]) =>
    catalogueIssues({ assets: change([...assets]), markets, networks })

  it.each([
    [
      'a staking yield above 15%',
      (list: Asset[]) =>
        list.map((value) =>
          value === ethereum
            ? { ...value, staking: { eligible: true, yieldPercentPerYear: '15.5' } }
            : value,
        ),
      'asset ethereum.staking.yieldPercentPerYear: staking yield above 15%',
    ],
    [
      'a duplicate slug',
      (list: Asset[]) =>
        list.map((value) => (value === ethereum ? { ...value, slug: 'bitcoin' } : value)),
      'slug bitcoin used twice',
    ],
    [
      'slugs out of order',
      (list: Asset[]) => [bitcoin, ...list.filter((value) => value !== bitcoin)],
      'slug 0x is out of order after bitcoin',
    ],
    [
      'an unknown network',
      (list: Asset[]) =>
        list.map((value) =>
          value === bitcoin ? { ...value, networks: ['Bitcoin Testnet'] } : value,
        ),
      'asset bitcoin: unknown network Bitcoin Testnet',
    ],
    [
      'a status without a message',
      (list: Asset[]) =>
        list.map((value) =>
          value === bitcoin ? { ...value, depositStatus: 'MAINTENANCE' as const } : value,
        ),
      'asset bitcoin.message: message must explain a status that is not OK, and be empty otherwise',
    ],
    [
      'a fee finer than the ledger',
      (list: Asset[]) =>
        list.map((value) =>
          value === bitcoin ? { ...value, withdrawalFee: '0.000000001' } : value,
        ),
      "asset bitcoin.withdrawalFee: more decimals than the asset's 8",
    ],
    [
      'a crypto-asset without supply',
      (list: Asset[]) =>
        list.map((value) => {
          if (value !== bitcoin) return value
          const { supply: _supply, ...rest } = value
          return rest
        }),
      'asset bitcoin: no supply',
    ],
    [
      'an asset without a market',
      (list: Asset[]) => [
        ...list.slice(0, 3),
        { ...bitcoin, slug: 'aab', symbol: 'AAB' },
        ...list.slice(3),
      ],
      'asset aab: no EUR market',
    ],
  ])('%s', (_name, change, issue) => {
    expect(check(change)).toContain(issue)
  })

  it.each([
    [
      'a blockchain without figures',
      (list: Network[]) =>
        list.map((value) =>
          value.name === 'Bitcoin' ? { ...value, sustainability: undefined } : value,
        ),
      'network Bitcoin.sustainability: sustainability figures are required for a blockchain, and only for one',
    ],
    [
      'a native asset that is not on its network',
      (list: Network[]) =>
        list.map((value) =>
          value.name === 'Solana' ? { ...value, nativeAssets: ['BTC'] } : value,
        ),
      'network Solana: native asset BTC is not on it',
    ],
    [
      'a rollup settling on an unknown network',
      (list: Network[]) =>
        list.map((value) => (value.name === 'Base' ? { ...value, settlesOn: 'Nowhere' } : value)),
      'network Base: settles on unknown network Nowhere',
    ],
  ])('%s', (_name, change, issue) => {
    expect(catalogueIssues({ assets, markets, networks: change([...networks]) })).toContain(issue)
  })

  it('throws a CatalogueError listing every issue', () => {
    const error = new CatalogueError(['one', 'two'])
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('CatalogueError')
    expect(error.code).toBe('catalogueInvalid')
    expect(error.issues).toEqual(['one', 'two'])
    expect(error.message).toBe('invalid catalogue: one; two')
  })
})
