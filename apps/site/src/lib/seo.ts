// The <head> of a page: unique title and description, canonical, hreflang alternates for all six
// languages plus x-default, Open Graph, and structured data (Organization, BreadcrumbList,
// BlogPosting, FAQPage).

import { defaultLocale, type Locale, locales, localeTags, translator } from '@polder/i18n'
import { isIndexable, pathOf, type Route } from './routes.ts'
import type { View } from './views.ts'

/** The Open Graph card every page shares (public/og-card.png, made by scripts/ogCard.ts). */
export const ogCard = { path: '/og-card.png', width: 1200, height: 630 } as const

export type Head = {
  lang: Locale
  title: string
  description: string
  /** Absolute URL of the page; '' for pages that have none (the root 404 and 500 pages). */
  canonical: string
  alternates: { hreflang: string; href: string }[]
  ogLocale: string
  ogType: 'website' | 'article'
  /** Absolute URL of the Open Graph image. */
  ogImage: string
  /** For articles: the day they were published (YYYY-MM-DD), as article:published_time. */
  publishedTime?: string
  indexable: boolean
  jsonLd: object[]
}

export function absolute(siteUrl: string, path: string): string {
  return `${siteUrl.replace(/\/$/, '')}${path}`
}

/** hreflang links of a page: one per language and x-default (the English page). */
export function alternatesOf(route: Route, siteUrl: string): Head['alternates'] {
  const links: Head['alternates'] = locales.map((lang) => ({
    hreflang: lang,
    href: absolute(siteUrl, pathOf(route.key, lang)),
  }))
  // The root offers the languages, so it is the home page's x-default; elsewhere English is.
  const fallback = route.key.kind === 'home' ? '/' : pathOf(route.key, defaultLocale)
  links.push({ hreflang: 'x-default', href: absolute(siteUrl, fallback) })
  return links
}

export function headFor(route: Route, view: View, siteUrl: string): Head {
  const t = translator(route.lang)
  const jsonLd = [...view.structuredData]
  if (view.crumbs.length >= 2)
    jsonLd.push({
      '@context': 'https://schema.org',
      '@type': 'BreadcrumbList',
      itemListElement: view.crumbs.map((crumb, index) => ({
        '@type': 'ListItem',
        position: index + 1,
        name: crumb.label,
        item: absolute(siteUrl, crumb.href),
      })),
    })
  for (const block of view.blocks)
    if (block.type === 'faq')
      jsonLd.push({
        '@context': 'https://schema.org',
        '@type': 'FAQPage',
        mainEntity: block.items.map((item) => ({
          '@type': 'Question',
          name: item.question,
          acceptedAnswer: { '@type': 'Answer', text: item.answer },
        })),
      })
  const indexable = isIndexable(route.key)
  return {
    lang: route.lang,
    title:
      view.template === 'default' && route.key.kind === 'home'
        ? `Polder: ${view.title}`
        : t('page.titleSuffix', { title: view.title }),
    description: view.description,
    canonical: absolute(siteUrl, route.path),
    alternates: indexable ? alternatesOf(route, siteUrl) : [],
    ogLocale: localeTags[route.lang].replace('-', '_'),
    ogType: view.ogType,
    ogImage: absolute(siteUrl, ogCard.path),
    ...(view.ogType === 'article' && view.article !== undefined
      ? { publishedTime: view.article.published }
      : {}),
    indexable,
    jsonLd,
  }
}
