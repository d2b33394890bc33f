// ICU message catalogues. English is the schema: every other locale has exactly its keys, with
// the same placeholders (a test enforces both). Messages are compiled once per locale and key.

import { IntlMessageFormat, type PrimitiveType } from 'intl-messageformat'
import de from '../messages/de.json' with { type: 'json' }
import en from '../messages/en.json' with { type: 'json' }
import es from '../messages/es.json' with { type: 'json' }
import fr from '../messages/fr.json' with { type: 'json' }
import it from '../messages/it.json' with { type: 'json' }
import nl from '../messages/nl.json' with { type: 'json' }
import { type Locale, localeTags } from './locales.ts'

export type MessageKey = keyof typeof en
export type Catalogue = Readonly<Record<MessageKey, string>>
export type MessageValues = Record<string, PrimitiveType>

export const catalogues: Readonly<Record<Locale, Readonly<Record<string, string>>>> = {
  de,
  en,
  es,
  fr,
  it,
  nl,
}

export class MissingMessageError extends Error {
  constructor(locale: Locale, key: string) {
    super(`message ${key} is missing in ${locale}`)
    this.name = 'MissingMessageError'
  }
}

const compiled = new Map<string, IntlMessageFormat>()

function compile(locale: Locale, key: string): IntlMessageFormat {
  const id = `${locale}\u0000${key}`
  let format = compiled.get(id)
  if (format === undefined) {
    const source = catalogues[locale][key]
    if (source === undefined) throw new MissingMessageError(locale, key)
    format = new IntlMessageFormat(source, localeTags[locale])
    compiled.set(id, format)
  }
  return format
}

export type Translate = (key: MessageKey, values?: MessageValues) => string

/** A translator for one locale: `t('nav.fees')`, `t('asset.title', { name, symbol })`. */
export function translator(locale: Locale): Translate {
  return (key, values) => {
    const result = compile(locale, key).format(values)
    if (typeof result !== 'string') throw new TypeError(`message ${key} did not format to text`)
    return result
  }
}

/** Whether a key exists (for content that names message keys as data). */
export function hasMessage(key: string): key is MessageKey {
  return key in en
}
