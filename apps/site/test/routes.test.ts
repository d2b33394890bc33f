import { readdirSync } from 'node:fs'
import { assets } from '@polder/catalogue'
import { locales } from '@polder/i18n'
import { describe, expect, it } from 'vitest'
import { redirects } from '../host/rules.ts'
import { affiliatePartners } from '../src/data/affiliates.ts'
import {
  assetPageSlugs,
  defaultPageSlugs,
  legalPageSlugs,
  newsWord,
  normalisePath,
  pageKeys,
  pathOf,
  priceWord,
  routesFor,
} from '../src/lib/routes.ts'
import { expectedPagePaths } from '../test-browser/expectedPages.ts'
import { newsWords, priceWords } from '../test-browser/specTables.ts'

const blogSlugs = readdirSync(new URL('../content/blog/en/', import.meta.url)).map((file) =>
  file.replace(/\.md$/, ''),
)
const routes = routesFor(pageKeys(blogSlugs))

describe('route table', () => {
  it('has one page per asset of the catalogue (EUR excepted), with price, news and buy pages', () => {
    expect(assetPageSlugs).toHaveLength(assets.length - 1)
    for (const slug of [
      '0x',
      '1inch',
      'aave',
      'aavegotchi',
      'bitcoin',
      'ethereum',
      'solana',
      'zilliqa',
    ])
      expect(assetPageSlugs).toContain(slug)
    expect(pathOf({ kind: 'price', slug: 'bitcoin' }, 'de')).toBe('/de/bitcoin/kurs/')
    expect(pathOf({ kind: 'news', slug: 'bitcoin' }, 'es')).toBe('/es/bitcoin/noticias/')
    expect(priceWord).toEqual(priceWords)
    expect(newsWord).toEqual(newsWords)
  })

  it('gives every page a unique path that starts with /{lang}/ and ends with a slash, path = matchPath', () => {
    const paths = routes.map((route) => route.path)
    expect(new Set(paths).size).toBe(paths.length)
    for (const route of routes) {
      expect(route.path.startsWith(`/${route.lang}/`)).toBe(true)
      expect(route.path.endsWith('/')).toBe(true)
      expect(route.matchPath).toBe(route.path)
    }
  })

  it('keeps asset slugs apart from the fixed pages', () => {
    const fixed = new Set<string>([
      ...defaultPageSlugs,
      ...legalPageSlugs,
      'blog',
      'buy',
      'affiliate',
      'maintenance',
      '404',
    ])
    expect(assetPageSlugs.filter((slug) => fixed.has(slug))).toEqual([])
  })

  it('lists 45 to 55 affiliate partners with unique slugs', () => {
    expect(affiliatePartners.length).toBeGreaterThanOrEqual(45)
    expect(affiliatePartners.length).toBeLessThanOrEqual(55)
    expect(new Set(affiliatePartners.map((partner) => partner.slug)).size).toBe(
      affiliatePartners.length,
    )
  })

  it('has exactly the pages of each language listed from the catalogue, the content and the spec', () => {
    for (const lang of locales) {
      const paths = routes.filter((route) => route.lang === lang).map((route) => route.path)
      const expected = expectedPagePaths(lang)
      expect(
        {
          missing: expected.filter((path) => !paths.includes(path)),
          unexpected: paths.filter((path) => !expected.includes(path)),
        },
        lang,
      ).toEqual({ missing: [], unexpected: [] })
      expect(paths).toHaveLength(expected.length)
    }
  })

  it('normalises paths as the spec says', () => {
    expect(normalisePath('/en/fees')).toBe('/en/fees/')
    expect(normalisePath('/')).toBe('/')
    expect(normalisePath('/404.html')).toBe('/404.html')
    expect(normalisePath('/sitemap.xml')).toBe('/sitemap.xml')
    expect(normalisePath('/en/terms.pdf')).toBe('/en/terms.pdf')
  })
})

describe('host rules', () => {
  it('redirect only paths that are not pages, to paths that are', () => {
    const paths = new Set(routes.map((route) => route.path))
    for (const rule of redirects()) {
      expect(paths.has(rule.from), rule.from).toBe(false)
      expect(paths.has(rule.to), rule.to).toBe(true)
    }
  })
})
