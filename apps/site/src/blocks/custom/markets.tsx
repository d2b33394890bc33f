import { formatEur } from '@polder/i18n'
import type { ReactElement } from 'react'
import { Change } from '../../components/Change.tsx'
import { Sparkline } from '../../components/Sparkline.tsx'
import { useSite } from '../../lib/context.tsx'
import { topMarkets } from '../../lib/marketRows.ts'
import { AsOf } from '../siteBlocks.tsx'
import { AssetLink } from './AssetLink.tsx'
import { Table } from './Table.tsx'

export function Top5MarketsTable(): ReactElement {
  const { t, lang } = useSite()
  const rows = topMarkets(5)
  return (
    <>
      <Table
        // Not the section's heading again: the caption says what the rows are.
        caption={t('home.top5.caption', { count: rows.length })}
        columns={[
          t('markets.table.asset'),
          t('markets.table.price'),
          t('markets.table.change'),
          t('markets.table.chart'),
        ]}
        numeric={[1, 2]}
        rows={rows.map((row) => ({
          key: row.slug,
          cells: [
            <AssetLink key="a" asset={row} />,
            row.last === null ? t('price.noData') : formatEur(lang, row.last),
            <Change key="c" value={row.change24h} empty="–" />,
            <Sparkline key="s" prices={row.miniChart} />,
          ],
        }))}
      />
      <AsOf />
    </>
  )
}
