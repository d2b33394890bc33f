import { cryptoAssets } from '@polder/catalogue'
import { localeTags } from '@polder/i18n'
import type { ReactElement } from 'react'
import { eeaCountries, localSiteCountries } from '../../data/countries.ts'
import { useSite } from '../../lib/context.tsx'
import { AssetLink } from './AssetLink.tsx'
import { Table } from './Table.tsx'

export function CountriesTable(): ReactElement {
  const { t, lang } = useSite()
  const names = new Intl.DisplayNames([localeTags[lang]], { type: 'region' })
  const collator = new Intl.Collator(localeTags[lang])
  const rows = eeaCountries
    .map((code) => ({ code, name: names.of(code) ?? code }))
    .sort((a, b) => collator.compare(a.name, b.name))
  return (
    <Table
      caption={t('countries.caption')}
      columns={[t('countries.country'), t('countries.available')]}
      rows={rows.map((row) => ({
        key: row.code,
        cells: [
          row.name,
          localSiteCountries.includes(row.code)
            ? t('countries.localSite', { country: row.name })
            : t('countries.availableYes'),
        ],
      }))}
    />
  )
}

export function StatusTable(): ReactElement {
  const { t } = useSite()
  const ok = cryptoAssets.filter(
    (asset) => asset.depositStatus === 'OK' && asset.withdrawalStatus === 'OK',
  )
  // Assets with a problem first, so the table answers "is something wrong?" at a glance.
  const ordered = [...cryptoAssets.filter((asset) => !ok.includes(asset)), ...ok]
  return (
    <>
      <p className="status-summary">
        {t('status.summary', { ok: ok.length, total: cryptoAssets.length })}
      </p>
      <Table
        caption={t('status.caption')}
        columns={[t('status.asset'), t('status.deposits'), t('status.withdrawals')]}
        rows={ordered.map((asset) => ({
          key: asset.slug,
          cells: [
            <AssetLink key="a" asset={asset} />,
            <span key="d" className={`status status-${asset.depositStatus.toLowerCase()}`}>
              {t(`asset.status.${asset.depositStatus}`)}
            </span>,
            <span key="w" className={`status status-${asset.withdrawalStatus.toLowerCase()}`}>
              {t(`asset.status.${asset.withdrawalStatus}`)}
            </span>,
          ],
        }))}
      />
    </>
  )
}
