// Every route of the site, in every language, from the catalogue, the content and the spec's
// path rules. One table feeds Astro's static paths, the sitemap, hreflang alternates, the
// language switcher and the route test.

import { cryptoAssets } from '@polder/catalogue'
import { type Locale, locales } from '@polder/i18n/locales'
import { affiliatePartners } from '../data/affiliates.ts'
import { type BlogTopic, blogTopics } from '../data/blogTopics.ts'

/** The spec's localised words for the per-asset price and news pages. */
export const priceWord: Readonly<Record<Locale, string>> = {
  de: 'kurs',
  en: 'price',
  es: 'cotizacion',
  fr: 'cours',
  it: 'valore',
  nl: 'koers',
}
export const newsWord: Readonly<Record<Locale, string>> = {
  de: 'nachrichten',
  en: 'news',
  es: 'noticias',
  fr: 'nouvelles',
  it: 'notizie',
  nl: 'nieuws',
}

/** Pages built from blocks (template kind `default`). */
export const defaultPageSlugs = [
  'about',
  'affiliates',
  'careers',
  'cookie-settings',
  'countries',
  'dijkwerk',
  'enterprise',
  'fees',
  'markets',
  'press',
  'security',
  'status',
] as const
export type DefaultPageSlug = (typeof defaultPageSlugs)[number]

/** Pages whose body is a legal text from content/legal (template kind `legal`). */
export const legalPageSlugs = [
  'complaints',
  'cookie-policy',
  'developer-agreement',
  'imprint',
  'lending-risks',
  'privacy',
  'responsible-disclosure',
  'risk-disclosure',
  'staking-risks',
  'terms',
  'trading-rules',
] as const
export type LegalPageSlug = (typeof legalPageSlugs)[number]

/** The maintenance announcement lives at /{lang}{token} (spec §2). */
export const maintenanceToken = '/maintenance/'

/** A language-independent name of a page: the same key in every language. */
export type PageKey =
  | { kind: 'home' }
  | { kind: 'default'; slug: DefaultPageSlug }
  | { kind: 'legal'; slug: LegalPageSlug }
  | { kind: 'blogList'; topic?: BlogTopic }
  | { kind: 'blog'; slug: string }
  | { kind: 'affiliate'; slug: string }
  | { kind: 'buy'; slug: string }
  | { kind: 'asset'; slug: string }
  | { kind: 'price'; slug: string }
  | { kind: 'news'; slug: string }
  | { kind: 'maintenance' }
  | { kind: 'notFound' }

export type RouteKind = PageKey['kind']

export type Route = {
  lang: Locale
  /** Path with leading /{lang}/ and trailing slash. */
  path: string
  /** The spec's page record: the match pattern equals the path. */
  matchPath: string
  key: PageKey
}

/** The path of a page in a language. */
export function pathOf(key: PageKey, lang: Locale): string {
  const root = `/${lang}/`
  switch (key.kind) {
    case 'home':
      return root
    case 'default':
    case 'legal':
      return `${root}${key.slug}/`
    case 'blogList':
      return key.topic === undefined ? `${root}blog/` : `${root}blog/topic/${key.topic}/`
    case 'blog':
      return `${root}blog/${key.slug}/`
    case 'affiliate':
      return `${root}affiliate/${key.slug}/`
    case 'buy':
      return `${root}buy/${key.slug}/`
    case 'asset':
      return `${root}${key.slug}/`
    case 'price':
      return `${root}${key.slug}/${priceWord[lang]}/`
    case 'news':
      return `${root}${key.slug}/${newsWord[lang]}/`
    case 'maintenance':
      return `/${lang}${maintenanceToken}`
    case 'notFound':
      return `${root}404/`
  }
}

/** Slugs of the crypto-assets that get pages (EUR is the quote currency, not a page). */
export const assetPageSlugs: readonly string[] = cryptoAssets.map((asset) => asset.slug)

/** Every page key, given the blog post slugs found in the content. */
export function pageKeys(blogSlugs: readonly string[]): PageKey[] {
  const keys: PageKey[] = [{ kind: 'home' }, { kind: 'maintenance' }, { kind: 'notFound' }]
  for (const slug of defaultPageSlugs) keys.push({ kind: 'default', slug })
  for (const slug of legalPageSlugs) keys.push({ kind: 'legal', slug })
  keys.push({ kind: 'blogList' })
  for (const topic of blogTopics) keys.push({ kind: 'blogList', topic })
  for (const slug of blogSlugs) keys.push({ kind: 'blog', slug })
  for (const partner of affiliatePartners) keys.push({ kind: 'affiliate', slug: partner.slug })
  for (const slug of assetPageSlugs) {
    keys.push({ kind: 'asset', slug }, { kind: 'price', slug }, { kind: 'news', slug })
    keys.push({ kind: 'buy', slug })
  }
  return keys
}

export function routesFor(keys: readonly PageKey[]): Route[] {
  const routes: Route[] = []
  for (const lang of locales)
    for (const key of keys) {
      const path = pathOf(key, lang)
      routes.push({ lang, path, matchPath: path, key })
    }
  return routes
}

/** Whether a page is listed in the sitemap and carries hreflang alternates. */
export function isIndexable(key: PageKey): boolean {
  return key.kind !== 'notFound'
}

/**
 * The spec's path normalisation: every path ends with a slash, except the root and paths
 * ending in .html, .xml or .pdf.
 */
export function normalisePath(path: string): string {
  if (path === '/' || /\.(html|xml|pdf)$/.test(path) || path.endsWith('/')) return path
  return `${path}/`
}
