// The spec's own tables (§2), typed here from the spec rather than imported from the site, so the
// tests check the site against the spec and not against itself.
export const languages = ['de', 'en', 'es', 'fr', 'it', 'nl'] as const
export const priceWords = {
  de: 'kurs',
  en: 'price',
  es: 'cotizacion',
  fr: 'cours',
  it: 'valore',
  nl: 'koers',
}
export const newsWords = {
  de: 'nachrichten',
  en: 'news',
  es: 'noticias',
  fr: 'nouvelles',
  it: 'notizie',
  nl: 'nieuws',
}
