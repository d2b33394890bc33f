import { describe, expect, it } from 'vitest'
import {
  formatDate,
  formatEur,
  formatEurInText,
  formatPercent,
  formatPercentChange,
  isLocale,
  localeTags,
} from '../src/index.ts'

// Intl separates some currency symbols with a no-break space; compare on plain spaces.
const plain = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ')

describe('formatting in the page locale', () => {
  it('uses the spec locale map', () => {
    expect(localeTags).toEqual({
      de: 'de-DE',
      en: 'en-US',
      es: 'es-ES',
      fr: 'fr-FR',
      it: 'it-IT',
      nl: 'nl-NL',
    })
    expect(isLocale('nl')).toBe(true)
    expect(isLocale('pt')).toBe(false)
  })

  it('formats euros as each language writes them', () => {
    expect(plain(formatEur('nl', '1234.56'))).toBe('€ 1.234,56')
    expect(plain(formatEur('de', '1234.56'))).toBe('1.234,56 €')
    expect(plain(formatEur('en', '1234.56'))).toBe('€1,234.56')
    expect(plain(formatEur('fr', '1234.56'))).toBe('1 234,56 €')
  })

  it('writes euro amounts in running text with the currency as a word', () => {
    expect(plain(formatEurInText('en', '5'))).toBe('5 euros')
    expect(plain(formatEurInText('de', '5'))).toBe('5 Euro')
    expect(plain(formatEurInText('nl', '5000000'))).toBe('5.000.000 euro')
    expect(plain(formatEurInText('fr', '5.5'))).toBe('5,50 euros')
  })

  it('keeps small prices readable and exact (decimal strings, no float rounding)', () => {
    expect(plain(formatEur('en', '0.000012345'))).toBe('€0.000012345')
    expect(plain(formatEur('en', '0.1'))).toBe('€0.10')
    expect(plain(formatEur('en', '90071992547409.93'))).toBe('€90,071,992,547,409.93')
  })

  it('formats a change as the spec says: en-GB, at most 2 decimals, sign except for zero', () => {
    expect(formatPercentChange(1.5)).toBe('+1.5%')
    expect(formatPercentChange(-2.345)).toBe('-2.35%')
    expect(formatPercentChange(0)).toBe('0%')
  })

  it('formats rates in the locale', () => {
    expect(plain(formatPercent('de', 0.25))).toBe('0,25 %')
    expect(formatPercent('en', 15)).toBe('15%')
  })

  it('formats dates as short month, day, numeric year; an invalid date gives nothing', () => {
    expect(formatDate('en', '2026-11-03')).toBe('Nov 3, 2026')
    expect(formatDate('nl', '2026-11-03')).toBe('3 nov 2026')
    expect(formatDate('en', 'not a date')).toBe('')
  })
})
