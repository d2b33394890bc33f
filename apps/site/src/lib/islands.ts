// Props of the interactive islands: translated labels and data, so the browser receives no
// message catalogue, only what the island shows.

import { formatNumber, type Locale, translator } from '@polder/i18n'
import type { CookieSettingsLabels } from '../islands/CookieSettings.tsx'
import type { MarketsTableLabels } from '../islands/MarketsTable.tsx'
import { type MarketRow, marketRows } from './marketRows.ts'

export function marketsIslandProps(lang: Locale): {
  lang: Locale
  rows: MarketRow[]
  labels: MarketsTableLabels
} {
  const t = translator(lang)
  const rows = marketRows()
  return {
    lang,
    rows,
    labels: {
      caption: t('markets.table.caption'),
      asset: t('markets.table.asset'),
      price: t('markets.table.price'),
      change: t('markets.table.change'),
      volume: t('markets.table.volume'),
      chart: t('markets.table.chart'),
      sortAscending: t('markets.table.sortAscending', { column: '{column}' }),
      sortDescending: t('markets.table.sortDescending', { column: '{column}' }),
      filterLabel: t('markets.filter.label'),
      filterPlaceholder: t('markets.filter.placeholder'),
      none: t('markets.filter.none', { query: '{query}' }),
      count: t('markets.filter.count', { shown: '{shown}', total: '{total}' }),
      loadMore: t('markets.loadMore'),
      viewAll: t('common.viewAllAssets', { count: formatNumber(lang, rows.length) }),
      noData: t('price.noData'),
    },
  }
}

export function cookieIslandProps(lang: Locale): { labels: CookieSettingsLabels } {
  const t = translator(lang)
  return {
    labels: {
      essentialTitle: t('cookies.essential.title'),
      essentialText: t('cookies.essential.text'),
      analyticalTitle: t('cookies.analytical.title'),
      analyticalText: t('cookies.analytical.text'),
      marketingTitle: t('cookies.marketing.title'),
      marketingText: t('cookies.marketing.text'),
      alwaysOn: t('cookies.alwaysOn'),
      save: t('cookies.save'),
      saved: t('cookies.saved'),
    },
  }
}
