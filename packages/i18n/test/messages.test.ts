import { type MessageFormatElement, parse, TYPE } from '@formatjs/icu-messageformat-parser'
import { describe, expect, it } from 'vitest'
import {
  catalogues,
  defaultLocale,
  locales,
  MissingMessageError,
  translator,
} from '../src/index.ts'

// The placeholders a message uses, with their kind (plain, number, plural, select, ...), so a
// translation that renames or drops one fails here rather than on a page.
function placeholders(elements: MessageFormatElement[], found = new Set<string>()): Set<string> {
  for (const element of elements) {
    if (element.type === TYPE.literal || element.type === TYPE.pound) continue
    if ('value' in element && typeof element.value === 'string')
      found.add(`${element.value}:${element.type}`)
    if (element.type === TYPE.plural || element.type === TYPE.select)
      for (const option of Object.values(element.options)) placeholders(option.value, found)
    if (element.type === TYPE.tag) placeholders(element.children, found)
  }
  return found
}

const english = catalogues[defaultLocale]

describe('message catalogues', () => {
  it('English is the schema: every locale has exactly its keys', () => {
    for (const locale of locales) {
      const keys = Object.keys(catalogues[locale])
      const missing = Object.keys(english).filter((key) => !(key in catalogues[locale]))
      const extra = keys.filter((key) => !(key in english))
      expect({ locale, missing, extra }).toEqual({ locale, missing: [], extra: [] })
    }
  })

  it('every message parses as ICU and uses the same placeholders as the English one', () => {
    for (const locale of locales)
      for (const [key, source] of Object.entries(english)) {
        const translated = catalogues[locale][key]
        if (translated === undefined) continue
        const expected = [...placeholders(parse(source))].sort()
        expect({ locale, key, placeholders: [...placeholders(parse(translated))].sort() }).toEqual({
          locale,
          key,
          placeholders: expected,
        })
      }
  })

  it('no translation is left empty', () => {
    for (const locale of locales)
      for (const [key, text] of Object.entries(catalogues[locale]))
        expect(text.trim(), `${locale} ${key}`).not.toBe('')
  })

  it('formats placeholders in the locale', () => {
    expect(translator('en')('blog.postCount', { count: 1 })).toBe('1 post')
    expect(translator('en')('blog.postCount', { count: 2 })).toBe('2 posts')
    expect(translator('en')('home.metrics.rating', { reviews: 12500 })).toContain('12,500')
  })

  it('a key missing from a catalogue is an error, never a blank', () => {
    expect(() => translator('en')('no.such.key' as never)).toThrow(MissingMessageError)
  })
})
