import { readdirSync, readFileSync } from 'node:fs'
import { assets } from '@polder/catalogue'
import { locales } from '@polder/i18n'
import { describe, expect, it } from 'vitest'
import { affiliatePartners } from '../src/data/affiliates.ts'
import { blogTopics } from '../src/data/blogTopics.ts'
import { eeaCountries, localSiteCountries } from '../src/data/countries.ts'
import { popularAssetSlugs, popularityRank } from '../src/data/popular.ts'

const contentDir = new URL('../content/', import.meta.url)
const messages = (lang: string): Record<string, string> =>
  JSON.parse(
    readFileSync(new URL(`../../../packages/i18n/messages/${lang}.json`, import.meta.url), 'utf8'),
  )

describe('site data', () => {
  it('names only catalogue assets as popular, each once, and ranks the rest after them', () => {
    const slugs = new Set(assets.map((asset) => asset.slug))
    expect(popularAssetSlugs.filter((slug) => !slugs.has(slug))).toEqual([])
    expect(new Set(popularAssetSlugs).size).toBe(popularAssetSlugs.length)
    expect(popularityRank(popularAssetSlugs[0]!)).toBe(0)
    expect(popularityRank('not-listed')).toBe(popularAssetSlugs.length)
  })

  it('serves through a local site only countries of the EEA, each once', () => {
    expect(new Set(eeaCountries).size).toBe(30)
    expect(localSiteCountries.filter((code) => !eeaCountries.includes(code))).toEqual([])
    expect(new Set(localSiteCountries).size).toBe(localSiteCountries.length)
  })

  it('gives every affiliate a URL-safe slug and a kind with words in all six languages', () => {
    for (const partner of affiliatePartners) {
      expect(partner.slug).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      expect(partner.feeFreeVolumeEur).toBeGreaterThan(0)
    }
    for (const lang of locales) {
      const catalogue = messages(lang)
      for (const partner of affiliatePartners)
        expect(catalogue[`affiliate.kind.${partner.kind}`], lang).toBeTruthy()
    }
  })

  it('has a label and a description for every blog topic and a post in every topic, in every language', () => {
    for (const lang of locales) {
      const catalogue = messages(lang)
      for (const topic of blogTopics) {
        expect(catalogue[`blog.topic.${topic}`], lang).toBeTruthy()
        expect(catalogue[`blog.topicDescription.${topic}`], lang).toBeTruthy()
      }
      const used = new Set(
        readdirSync(new URL(`blog/${lang}/`, contentDir)).map(
          (file) =>
            /^topic:\s*(\S+)/m.exec(
              readFileSync(new URL(`blog/${lang}/${file}`, contentDir), 'utf8'),
            )?.[1],
        ),
      )
      expect(
        blogTopics.filter((topic) => !used.has(topic)),
        lang,
      ).toEqual([])
    }
  })
})
