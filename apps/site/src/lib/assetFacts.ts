// The catalogue's facts about an asset as table rows in the page's language: consensus mechanism
// (its family translated, the protocol's own name kept), supply with its as-of date, and the MiCA
// sustainability indicators of the network, inherited by tokens from their host network. Also
// the ranking of related assets by market size.

import {
  type Asset,
  assetBySlug,
  assetNetworks,
  cryptoAssets,
  type Network,
  supplyAsOf,
} from '@polder/catalogue'
import { formatDate, formatNumber, formatPercent, type Locale } from '@polder/i18n'
import type { SiteContext } from './context.tsx'

type Translate = SiteContext['t']

/** "Proof of stake (Gasper)", "Layer-2 rollup settled on Ethereum (OP Stack)", in the language. */
export function consensusText(t: Translate, network: Network): string {
  const family = t(`asset.consensus.${network.consensusFamily}` as const, {
    host: network.settlesOn ?? '',
  })
  return network.consensusProtocol === undefined
    ? family
    : `${family} (${network.consensusProtocol})`
}

/** An amount of the asset to the asset's own decimals, with its symbol: en "0.0005 BTC". */
export function assetAmount(lang: Locale, amount: string, asset: Asset): string {
  return `${formatNumber(lang, amount, { maximumFractionDigits: asset.decimals })} ${asset.symbol}`
}

/** Compact amount with the symbol: en "20.1M BTC", de "20,1 Mio. BTC". */
function supplyAmount(ctx: SiteContext, amount: string, symbol: string): string {
  const value = formatNumber(ctx.lang, amount, {
    notation: 'compact',
    maximumSignificantDigits: 3,
  })
  return `${value} ${symbol}`
}

/** Circulating and maximum supply; [] for an asset without supply (EUR). */
export function supplyRows(ctx: SiteContext, asset: Asset): string[][] {
  const { t, lang } = ctx
  if (asset.supply === undefined) return []
  const { circulating, max } = asset.supply
  return [
    [
      t('asset.facts.circulatingSupply'),
      `${supplyAmount(ctx, circulating, asset.symbol)} (${t('asset.facts.supplyAsOf', {
        date: formatDate(lang, supplyAsOf),
      })})`,
    ],
    [
      t('asset.facts.maxSupply'),
      max === null ? t('asset.facts.noMaxSupply') : supplyAmount(ctx, max, asset.symbol),
    ],
  ]
}

/** The consensus mechanism of each of the asset's networks, without repeats. */
export function consensusRow(ctx: SiteContext, asset: Asset): string[] {
  const texts = assetNetworks(asset).map(({ network }) => consensusText(ctx.t, network))
  return [ctx.t('asset.facts.consensus'), [...new Set(texts)].join('; ') || '–']
}

/**
 * MiCA's indicators for each network the asset lives on: whose figures they are (a token says it
 * inherits its host's), energy use, renewable share, scope 1 and 2 emissions, method and sources.
 */
export function sustainabilityRows(ctx: SiteContext, asset: Asset): string[][] {
  const { t, lang } = ctx
  const entries = assetNetworks(asset)
  const rows: string[][] = []
  for (const { network, hostedToken } of entries) {
    const figures = network.sustainability
    if (figures === undefined) continue
    // One network per asset today; should an asset list several, each row names its network.
    const label = (text: string) => (entries.length > 1 ? `${text} (${network.name})` : text)
    const names = { network: network.name, symbol: asset.symbol }
    rows.push(
      [
        label(t('asset.facts.sustainabilityBasis')),
        hostedToken
          ? t('asset.facts.sustainabilityToken', names)
          : t('asset.facts.sustainabilityOwn', names),
      ],
      [
        label(t('asset.facts.energyUse')),
        t('asset.facts.energyValue', {
          kwh: formatNumber(lang, figures.energyKwhPerYear, { maximumSignificantDigits: 3 }),
        }),
      ],
      [label(t('asset.facts.renewableShare')), formatPercent(lang, figures.renewableEnergyPercent)],
      [
        label(t('asset.facts.ghgEmissions')),
        t('asset.facts.ghgValue', {
          tonnes: formatNumber(lang, figures.ghgEmissionsTco2ePerYear, {
            maximumSignificantDigits: 3,
          }),
        }),
      ],
      [
        label(t('asset.facts.sustainabilitySource')),
        t('asset.facts.sourceValue', {
          method: t(`asset.sustainability.method.${figures.method}` as const),
          source: figures.source,
          date: formatDate(lang, figures.asOf),
        }),
      ],
    )
  }
  return rows
}

/**
 * Market size in euros for ranking only: the catalogue's reference price × circulating supply.
 * Reference prices rather than the build's snapshot keep the order stable from build to build.
 */
export function marketSizeEur(asset: Asset): number {
  if (asset.supply === undefined) return 0
  return Number(asset.referencePriceEur) * Number(asset.supply.circulating)
}

const delisted = (asset: Asset) =>
  asset.depositStatus === 'DELISTED' || asset.withdrawalStatus === 'DELISTED'

/** Assets of the same category, largest market size first, without the asset and delisted ones. */
export function relatedAssetSlugs(slug: string, countMax = 6): string[] {
  const asset = assetBySlug(slug)
  if (asset === undefined) throw new Error(`no asset ${slug}`)
  return cryptoAssets
    .filter((other) => other.slug !== slug && other.category === asset.category && !delisted(other))
    .sort((a, b) => marketSizeEur(b) - marketSizeEur(a) || a.slug.localeCompare(b.slug))
    .slice(0, countMax)
    .map((other) => other.slug)
}
