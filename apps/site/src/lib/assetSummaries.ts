// One-sentence summaries of every catalogue asset in each language (content/asset-summaries/):
// the catalogue's `description` is one neutral English sentence, and these files carry it into
// the five other languages, written for the site rather than translated word for word. The
// English file equals the catalogue's sentences (a test keeps them in step).

import type { Locale } from '@polder/i18n'
import de from '../../content/asset-summaries/de.json' with { type: 'json' }
import en from '../../content/asset-summaries/en.json' with { type: 'json' }
import es from '../../content/asset-summaries/es.json' with { type: 'json' }
import fr from '../../content/asset-summaries/fr.json' with { type: 'json' }
import it from '../../content/asset-summaries/it.json' with { type: 'json' }
import nl from '../../content/asset-summaries/nl.json' with { type: 'json' }

/** Summary by language and asset slug. */
export const assetSummaries: Readonly<Record<Locale, Readonly<Record<string, string>>>> = {
  de,
  en,
  es,
  fr,
  it,
  nl,
}

/** The asset's summary in the page's language; a missing one fails the build, never shows English. */
export function assetSummary(lang: Locale, slug: string): string {
  const text = assetSummaries[lang][slug]
  if (text === undefined || text.trim() === '')
    throw new Error(`asset summary for ${slug} missing in ${lang}`)
  return text
}
