import { assetBySlug, assets, cryptoAssets, markets, networks } from '@polder/catalogue'
import { catalogues, type Locale, locales } from '@polder/i18n'
import { describe, expect, it } from 'vitest'
import {
  assetAmount,
  consensusText,
  marketSizeEur,
  relatedAssetSlugs,
  supplyRows,
  sustainabilityRows,
} from '../src/lib/assetFacts.ts'
import { assetSummaries, assetSummary } from '../src/lib/assetSummaries.ts'
import type { ContentIndex } from '../src/lib/content.ts'
import { createSiteContext } from '../src/lib/context.tsx'
import { routesFor } from '../src/lib/routes.ts'
import { buildView, templatedAssetText } from '../src/lib/views.ts'

const others = locales.filter((lang) => lang !== 'en')
const noContent: ContentIndex = { posts: [], legal: [], assetTexts: [] }

function context(lang: Locale, slug: string) {
  const route = routesFor([{ kind: 'asset', slug }]).find((entry) => entry.lang === lang)!
  return { route, ctx: createSiteContext(route, 'https://trade.polder.example') }
}

function factsOf(lang: Locale, slug: string): string[][] {
  const { route, ctx } = context(lang, slug)
  const view = buildView(route, noContent, ctx, 'https://polder.example')
  const table = view.blocks.find((block) => block.type === 'dataTable')
  if (table?.type !== 'dataTable') throw new Error(`no facts table on ${route.path}`)
  return table.rows
}

describe('asset summaries: the catalogue’s sentence in every language', () => {
  it('has a non-empty summary for every catalogue asset in every language', () => {
    for (const lang of locales)
      for (const asset of assets)
        expect(assetSummaries[lang][asset.slug]?.trim() ?? '', `${lang} ${asset.slug}`).not.toBe('')
  })

  it('lists no slug the catalogue does not have', () => {
    const slugs = new Set(assets.map((asset) => asset.slug))
    for (const lang of locales)
      expect(
        Object.keys(assetSummaries[lang]).filter((slug) => !slugs.has(slug)),
        lang,
      ).toEqual([])
  })

  it('keeps the English file equal to the catalogue’s descriptions', () => {
    for (const asset of assets)
      expect(assetSummaries.en[asset.slug], asset.slug).toBe(asset.description)
  })

  it('translates every summary: no non-English one equals the English one', () => {
    for (const lang of others)
      for (const asset of assets)
        expect(assetSummary(lang, asset.slug), `${lang} ${asset.slug}`).not.toBe(asset.description)
  })

  it('writes each summary as one sentence with a full stop', () => {
    for (const lang of locales)
      for (const asset of assets) {
        const text = assetSummary(lang, asset.slug)
        expect(text, `${lang} ${asset.slug}`).toMatch(/\.$/)
        expect(text.length, `${lang} ${asset.slug}`).toBeLessThanOrEqual(240)
      }
  })

  it('fails loudly rather than falling back to English', () => {
    expect(() => assetSummary('de', 'no-such-asset')).toThrow(/missing in de/)
  })
})

describe('asset pages without a hand-written text', () => {
  it('show the summary in the page’s language, never the catalogue’s English sentence', () => {
    for (const lang of others)
      for (const asset of cryptoAssets) {
        const html = templatedAssetText(context(lang, asset.slug).ctx, asset.slug)
        expect(html, `${lang} ${asset.slug}`).not.toContain(asset.description.slice(0, 40))
      }
    const { ctx } = context('de', 'aevo')
    expect(templatedAssetText(ctx, 'aevo')).toContain('Der Token von Aevo')
  })
})

describe('the facts table (category, network, consensus with its MiCA indicators, supply)', () => {
  it('has the issue’s facts on every asset page, in every language', () => {
    for (const lang of locales) {
      const t = catalogues[lang]
      for (const asset of cryptoAssets) {
        const labels = factsOf(lang, asset.slug).map(([label]) => label)
        for (const key of [
          'asset.facts.category',
          'asset.facts.network',
          'asset.facts.consensus',
          'asset.facts.energyUse',
          'asset.facts.renewableShare',
          'asset.facts.ghgEmissions',
          'asset.facts.sustainabilitySource',
          'asset.facts.circulatingSupply',
          'asset.facts.maxSupply',
        ])
          expect(labels, `${lang} ${asset.slug} ${key}`).toContain(t[key])
      }
    }
  })

  it('renders consensus through the translated family, not the catalogue’s English phrase', () => {
    const english = new Set(networks.map((network) => network.consensus))
    for (const lang of others)
      for (const asset of cryptoAssets) {
        const { ctx } = context(lang, asset.slug)
        const network = networks.find((entry) => entry.name === asset.networks[0])!
        const row = factsOf(lang, asset.slug).find(
          ([label]) => label === catalogues[lang]['asset.facts.consensus'],
        )
        expect(row?.[1], `${lang} ${asset.slug}`).toBe(consensusText(ctx.t, network))
        // Dutch and Italian say "proof of stake" too; German, Spanish and French never match.
        if (['de', 'es', 'fr'].includes(lang))
          expect(english.has(row?.[1] ?? ''), `${lang} ${asset.slug}`).toBe(false)
      }
  })

  it('names the family in the language and keeps the protocol’s own name', () => {
    const ethereum = networks.find((network) => network.name === 'Ethereum')!
    const base = networks.find((network) => network.name === 'Base')!
    expect(consensusText(context('de', 'ethereum').ctx.t, ethereum)).toBe('Proof of Stake (Gasper)')
    expect(consensusText(context('fr', 'ethereum').ctx.t, ethereum)).toBe('Preuve d’enjeu (Gasper)')
    expect(consensusText(context('es', 'brett').ctx.t, base)).toBe(
      'Rollup de capa 2 liquidado en Ethereum (OP Stack)',
    )
  })

  it('formats supply per locale, compact, with the dataset’s date, and says when there is no cap', () => {
    const rows = (lang: Locale, slug: string) =>
      supplyRows(context(lang, slug).ctx, assetBySlug(slug)!).map(([, value]) => value)
    expect(rows('en', 'bitcoin')).toEqual(['20.1M BTC (approximate, as of Nov 1, 2026)', '21M BTC'])
    expect(rows('de', 'bitcoin')[0]).toBe('20,1\u00a0Mio. BTC (ungefähr, Stand 1. Nov. 2026)')
    expect(rows('nl', 'bitcoin')[1]).toBe('21\u00a0mln. BTC')
    expect(rows('fr', 'ethereum')[1]).toBe('Pas de plafond fixe')
  })

  it('gives energy in kWh a year, the renewable share and scope 1 and 2 emissions, with units', () => {
    const values = sustainabilityRows(context('nl', 'bitcoin').ctx, assetBySlug('bitcoin')!).map(
      ([, value]) => value,
    )
    expect(values).toContain('175.000.000.000 kWh per jaar')
    expect(values).toContain('43%')
    expect(values).toContain('51.000.000 t CO₂e per jaar')
    expect(values.at(-1)).toMatch(/^Schatting uit een gepubliceerde index\. Bronnen: Cambridge/)
    expect(values.at(-1)).toMatch(/stand 1 okt 2026\.$/)
  })

  it('writes an amount to the asset’s own decimals, with its symbol, per locale', () => {
    const bitcoin = assetBySlug('bitcoin')!
    expect(assetAmount('en', '1234.5', bitcoin)).toBe('1,234.5 BTC')
    expect(assetAmount('de', '0.123456789', bitcoin)).toBe('0,12345679 BTC')
  })

  it('says that a token inherits its host network’s figures, and a native coin has its own', () => {
    const basis = (lang: Locale, slug: string) =>
      sustainabilityRows(context(lang, slug).ctx, assetBySlug(slug)!)[0]![1]
    expect(basis('en', 'tether')).toBe(
      'The host network Ethereum: USDT is a token on it and inherits its figures',
    )
    expect(basis('en', 'ethereum')).toBe('The Ethereum network itself (ETH is its own coin)')
    expect(basis('it', 'bonk')).toContain('rete ospitante Solana')
    // The token's figures are the host's own.
    const energy = (slug: string) =>
      sustainabilityRows(context('en', slug).ctx, assetBySlug(slug)!)[1]![1]
    expect(energy('tether')).toBe(energy('ethereum'))
  })
})

describe('related assets', () => {
  it('are of the same category, largest market size first, without the asset itself', () => {
    for (const asset of cryptoAssets) {
      const related = relatedAssetSlugs(asset.slug).map((slug) => assetBySlug(slug)!)
      expect(
        related.map((other) => other.slug),
        asset.slug,
      ).not.toContain(asset.slug)
      for (const other of related) expect(other.category, asset.slug).toBe(asset.category)
      const sizes = related.map(marketSizeEur)
      expect(sizes, asset.slug).toEqual([...sizes].sort((a, b) => b - a))
      expect(related.length).toBeLessThanOrEqual(6)
    }
  })

  it('put the largest layer-1 chains next to Bitcoin, not the alphabet’s first', () => {
    expect(relatedAssetSlugs('bitcoin').slice(0, 3)).toEqual(['ethereum', 'ripple', 'solana'])
    expect(relatedAssetSlugs('tether')[0]).toBe('usd-coin')
  })

  it('leave out delisted assets, whose markets are halted', () => {
    const halted = new Set(
      markets.filter((market) => market.status === 'halted').map((market) => market.base),
    )
    for (const asset of cryptoAssets)
      for (const slug of relatedAssetSlugs(asset.slug))
        expect(halted.has(assetBySlug(slug)!.symbol), `${asset.slug} → ${slug}`).toBe(false)
  })
})
