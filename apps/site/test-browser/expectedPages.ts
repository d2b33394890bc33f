// The pages every language must have, listed from the catalogue, the content files and the spec's
// page list (§2), independently of the site's route table, which the tests check against it.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { assets } from '@polder/catalogue'
import { affiliatePartners } from '../src/data/affiliates.ts'
import { type languages, newsWords, priceWords } from './specTables.ts'

/** The spec's fixed pages, plus the predecessor brand's page, careers, complaints, maintenance. */
export const fixedPages = [
  'about',
  'affiliates',
  'blog',
  'cookie-policy',
  'cookie-settings',
  'countries',
  'developer-agreement',
  'enterprise',
  'fees',
  'imprint',
  'lending-risks',
  'markets',
  'press',
  'privacy',
  'responsible-disclosure',
  'risk-disclosure',
  'security',
  'staking-risks',
  'status',
  'terms',
  'trading-rules',
  'dijkwerk',
  'careers',
  'complaints',
  'maintenance',
] as const

const contentDir = join(import.meta.dirname, '..', 'content')

/** Every page of a language: /{lang}/…/ paths, the language's 404 page included. */
export function expectedPagePaths(lang: (typeof languages)[number]): string[] {
  const paths = [`/${lang}/`, `/${lang}/404/`]
  for (const page of fixedPages) paths.push(`/${lang}/${page}/`)
  for (const asset of assets.filter((candidate) => candidate.symbol !== 'EUR'))
    paths.push(
      `/${lang}/${asset.slug}/`,
      `/${lang}/${asset.slug}/${priceWords[lang]}/`,
      `/${lang}/${asset.slug}/${newsWords[lang]}/`,
      `/${lang}/buy/${asset.slug}/`,
    )
  const topics = new Set<string>()
  for (const file of readdirSync(join(contentDir, 'blog', lang))) {
    paths.push(`/${lang}/blog/${file.replace(/\.md$/, '')}/`)
    const topic = /^topic:\s*(\S+)/m.exec(
      readFileSync(join(contentDir, 'blog', lang, file), 'utf8'),
    )
    if (topic !== null) topics.add(topic[1]!)
  }
  // The blog's topic filter: one page per topic the posts are filed under.
  for (const topic of topics) paths.push(`/${lang}/blog/topic/${topic}/`)
  for (const partner of affiliatePartners) paths.push(`/${lang}/affiliate/${partner.slug}/`)
  return paths
}
