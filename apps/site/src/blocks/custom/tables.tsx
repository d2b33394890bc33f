// Fee and limit tables, straight from the catalogue the exchange charges by.

import {
  accountLimits,
  cryptoAssets,
  feeTiers,
  maxOpenOrdersDefault,
  minOrderInQuoteAsset,
  paymentMethods,
} from '@polder/catalogue'
import { formatEur, formatPercent, type Locale } from '@polder/i18n'
import type { ReactElement } from 'react'
import { assetAmount } from '../../lib/assetFacts.ts'
import { useSite } from '../../lib/context.tsx'
import { AssetLink } from './AssetLink.tsx'
import { Table } from './Table.tsx'

/** A rate in parts per million (the catalogue's unit) as a percentage: 2500 → en "0.25%". */
function ppmPercent(lang: Locale, ppm: number): string {
  return formatPercent(lang, ppm / 10_000)
}

export function TradingFeesTable(): ReactElement {
  const { t, lang } = useSite()
  return (
    <Table
      caption={t('fees.trading.caption')}
      columns={[
        t('fees.trading.tier'),
        t('fees.trading.volume'),
        t('fees.trading.maker'),
        t('fees.trading.taker'),
      ]}
      numeric={[1, 2, 3]}
      rows={feeTiers.map((tier) => ({
        key: String(tier.tier),
        cells: [
          String(tier.tier + 1),
          t('fees.trading.volumeFrom', { amount: formatEur(lang, tier.volumeEurMin) }),
          ppmPercent(lang, tier.makerFeePpm),
          ppmPercent(lang, tier.takerFeePpm),
        ],
      }))}
    />
  )
}

function feeText(lang: Locale, fixed: string, ppm: number, free: string): string {
  const parts: string[] = []
  if (ppm > 0) parts.push(ppmPercent(lang, ppm))
  if (fixed !== '0') parts.push(formatEur(lang, fixed))
  return parts.length === 0 ? free : parts.join(' + ')
}

export function PaymentMethodsTable(): ReactElement {
  const { t, lang } = useSite()
  const regionNames = new Intl.DisplayNames([lang], { type: 'region' })
  return (
    <Table
      caption={t('fees.payments.caption')}
      columns={[
        t('fees.payments.method'),
        t('fees.payments.fee'),
        t('fees.payments.min'),
        t('fees.payments.max'),
        t('fees.payments.daily'),
      ]}
      numeric={[1, 2, 3, 4]}
      rows={paymentMethods.map((method) => {
        const notes = [
          method.instantBankTransfer ? t('fees.payments.instant') : '',
          method.countries.length > 0
            ? t('fees.payments.countries', {
                countries: method.countries.map((code) => regionNames.of(code) ?? code).join(', '),
              })
            : '',
        ].filter((note) => note !== '')
        return {
          key: method.id,
          cells: [
            <>
              {method.name}
              {notes.length === 0 ? null : <span className="note"> ({notes.join(', ')})</span>}
            </>,
            feeText(lang, method.feeFixedEur, method.feePpm, t('common.free')),
            formatEur(lang, method.depositMinEur),
            formatEur(lang, method.depositMaxEur),
            formatEur(lang, method.dailyLimitEur),
          ],
        }
      })}
    />
  )
}

export function WithdrawalFeesTable(): ReactElement {
  const { t, lang } = useSite()
  return (
    <Table
      caption={t('fees.withdrawal.caption')}
      columns={[
        t('fees.withdrawal.asset'),
        t('fees.withdrawal.fee'),
        t('fees.withdrawal.minimum'),
        t('fees.withdrawal.status'),
      ]}
      numeric={[1, 2]}
      rows={cryptoAssets.map((asset) => ({
        key: asset.slug,
        cells: [
          <AssetLink key="a" asset={asset} />,
          assetAmount(lang, asset.withdrawalFee, asset),
          assetAmount(lang, asset.withdrawalMinAmount, asset),
          t(`asset.status.${asset.withdrawalStatus}`),
        ],
      }))}
    />
  )
}

export function TradingLimitsTable(): ReactElement {
  const { t, lang } = useSite()
  return (
    <>
      <Table
        caption={t('fees.limits.caption')}
        columns={[
          t('fees.limits.level'),
          t('fees.limits.deposit'),
          t('fees.limits.withdrawal'),
          t('fees.limits.crypto'),
        ]}
        numeric={[1, 2, 3]}
        rows={accountLimits.map((limits) => ({
          key: limits.level,
          cells: [
            t(`fees.limits.level.${limits.level}`),
            formatEur(lang, limits.depositDailyEur),
            formatEur(lang, limits.withdrawalDailyEur),
            formatEur(lang, limits.cryptoWithdrawalDailyEur),
          ],
        }))}
      />
      <p>
        {t('fees.limits.orders', {
          minOrder: formatEur(lang, minOrderInQuoteAsset),
          maxOpenOrders: maxOpenOrdersDefault,
        })}
      </p>
    </>
  )
}
