// The six languages of Polder and the BCP 47 locale each one formats with (spec §2).

export const locales = ['de', 'en', 'es', 'fr', 'it', 'nl'] as const
export type Locale = (typeof locales)[number]

export const defaultLocale: Locale = 'en'

/** The spec's locale map: a page's language selects these formatting conventions. */
export const localeTags: Readonly<Record<Locale, string>> = {
  de: 'de-DE',
  en: 'en-US',
  es: 'es-ES',
  fr: 'fr-FR',
  it: 'it-IT',
  nl: 'nl-NL',
}

/** Each language's own name for itself, for language switchers. */
export const localeNames: Readonly<Record<Locale, string>> = {
  de: 'Deutsch',
  en: 'English',
  es: 'Español',
  fr: 'Français',
  it: 'Italiano',
  nl: 'Nederlands',
}

export function isLocale(value: unknown): value is Locale {
  return typeof value === 'string' && (locales as readonly string[]).includes(value)
}
