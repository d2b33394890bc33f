import { readdirSync, readFileSync } from 'node:fs'
import {
  accountLimits,
  brandFacts,
  minOrderInQuoteAsset,
  savingsPlanLimits,
} from '@polder/catalogue'
import { catalogues, formatEurInText, formatNumber, locales, translator } from '@polder/i18n'
import { describe, expect, it } from 'vitest'
import { factValues, fillTokens, productFacts } from '../src/lib/facts.ts'

const contentDir = new URL('../content/', import.meta.url)

/** Every content file of a language, as [name, text]. */
function contentFiles(lang: string): [string, string][] {
  return ['blog', 'legal', 'assets'].flatMap((kind) =>
    readdirSync(new URL(`${kind}/${lang}/`, contentDir)).map((file): [string, string] => [
      `${kind}/${lang}/${file}`,
      readFileSync(new URL(`${kind}/${lang}/${file}`, contentDir), 'utf8'),
    ]),
  )
}

describe('marketing figures', () => {
  it('are computed from the product’s own data where it can', () => {
    const facts = productFacts()
    expect(facts.assetCount).toBeGreaterThanOrEqual(190)
    expect(facts.maxTradingFeePercent).toBe(0.25)
    expect(facts.paymentMethodCount).toBe(8)
    expect(facts.maxStakingYieldPercent).toBeLessThanOrEqual(15)
    expect(facts.maxStakingYieldPercent).toBeGreaterThan(5)
  })

  it('fill content tokens in the page language', () => {
    expect(fillTokens('fees of at most {{maxTradingFee}}', 'de')).toMatch(/0,25\s%/)
    expect(fillTokens('{{reviewCount}} reviews', 'nl')).toBe('12.500 reviews')
    expect(factValues('en').companyName).toBe('Polder Exchange B.V.')
  })

  it('take the minimum order and the business limit from the catalogue', () => {
    for (const lang of locales)
      expect(factValues(lang).minOrder).toBe(formatEurInText(lang, minOrderInQuoteAsset))
    expect(factValues('en').minOrder).toMatch(/^\d+(\.\d+)? euros$/)
    const business = accountLimits.find((limits) => limits.level === 'business')!
    expect(productFacts().businessDailyLimitEur).toBe(business.withdrawalDailyEur)
    expect(fillTokens('{{vatNumber}}', 'fr')).toBe(brandFacts.vatNumber)
  })

  it('take the savings-plan limits from the catalogue, for the FAQ and the blog alike', () => {
    for (const lang of locales) {
      const values = factValues(lang)
      expect(values.savingsMin).toBe(formatEurInText(lang, savingsPlanLimits.amountMinEur))
      expect(values.savingsMax).toBe(formatEurInText(lang, savingsPlanLimits.amountMaxEur))
      expect(translator(lang)('faq.home.min.a', values)).toContain(String(values.savingsMin))
    }
    expect(fillTokens('between {{savingsMin}} and {{savingsMax}}', 'en')).toMatch(
      /^between \d+ euros and \d{1,3}(,\d{3})* euros$/,
    )
  })

  it('are never typed into messages or content: those carry placeholders and tokens', () => {
    // Figures distinctive enough to recognise in text. Names (the central bank, the predecessor
    // brand) and short percentages may legitimately appear in prose, so they are not searched.
    const distinctive = [
      'minOrder',
      'businessDailyLimit',
      'savingsMin',
      'savingsMax',
      'reviewCount',
      'vatNumber',
      'kvk',
      'address',
      'supportEmail',
      'securityEmail',
      'complaintsEmail',
      'pressEmail',
    ]
    const plain = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ')
    const typed: string[] = []
    // The minimum order and the savings-plan limits are also recognised as a price is written, with the sign or the
    // code: "€10,000", "€ 10.000", "10 000 €", "EUR 10" (not the 10 of "110 €" or "€10.50").
    const euroAmounts: [string, string][] = [
      ['minOrder', minOrderInQuoteAsset],
      ['savingsMin', savingsPlanLimits.amountMinEur],
      ['savingsMax', savingsPlanLimits.amountMaxEur],
    ]
    const literally = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    for (const lang of locales) {
      const values = factValues(lang)
      const texts: [string, string][] = [
        ...Object.entries(catalogues[lang]).map(([key, text]): [string, string] => [
          `${lang}.json ${key}`,
          text,
        ]),
        ...contentFiles(lang),
      ]
      for (const name of distinctive) {
        const value = plain(String(values[name]))
        for (const [where, text] of texts)
          if (plain(text).includes(value)) typed.push(`${where}: ${name} "${value}"`)
      }
      for (const [name, amount] of euroAmounts) {
        const number = literally(plain(formatNumber(lang, amount)))
        const withSign = new RegExp(
          `(?:€|\\bEUR)\\s?${number}(?![\\d]|[.,\\s]\\d)|(?<![\\d.,]|\\d\\s)${number}\\s?(?:€|EUR\\b)`,
        )
        for (const [where, text] of texts) {
          const match = withSign.exec(plain(text))
          if (match !== null) typed.push(`${where}: ${name} "${match[0]}"`)
        }
      }
    }
    expect(typed).toEqual([])
  })

  it('claim a mobile app only as the brand facts say', () => {
    for (const lang of locales) {
      for (const [key, text] of Object.entries(catalogues[lang]))
        if (/\b(iOS|Android)\b/.test(text))
          expect(text, `${lang} ${key}`).toContain('{mobileApp, select,')
      const t = translator(lang)
      const text = (mobileApp: string) => t('home.features.app.text', { mobileApp })
      expect(text('yes')).toMatch(/iOS/)
      expect(text('no')).not.toMatch(/iOS|Android/)
      expect(t('home.features.app.text', factValues(lang))).toBe(
        text(brandFacts.mobileApp ? 'yes' : 'no'),
      )
    }
  })

  it('fill messages and content without a doubled full stop (a name ending in one, then a stop)', () => {
    const doubled = /(?<!\.)\.\.(?!\.)/
    const found: string[] = []
    for (const lang of locales) {
      const t = translator(lang)
      const values = { ...factValues(lang), year: '2026' }
      for (const key of Object.keys(catalogues[lang])) {
        let text: string
        try {
          text = t(key as Parameters<typeof t>[0], values)
        } catch {
          continue // needs values only a page has (asset names, dates); the build test sees those
        }
        if (doubled.test(text)) found.push(`${lang} ${key}: ${text}`)
      }
      for (const [file, text] of contentFiles(lang)) {
        const filled = fillTokens(text, lang)
        const match = doubled.exec(filled)
        if (match !== null)
          found.push(`${file}: …${filled.slice(Math.max(0, match.index - 40), match.index + 4)}`)
      }
    }
    expect(found).toEqual([])
  })

  it('refuse an unknown token rather than print it', () => {
    expect(() => fillTokens('{{nope}}', 'en')).toThrow(/unknown content token/)
  })
})
