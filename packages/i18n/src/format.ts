// Numbers, money, percentages and dates through Intl in the page's locale. Amounts arrive as
// decimal strings and are handed to Intl as strings (Intl.NumberFormat v3), so no amount is
// ever rounded through a binary float on its way to the screen.

import { type Locale, localeTags } from './locales.ts'

export type { Locale }

type Numeric = number | string | bigint

const cache = new Map<string, Intl.NumberFormat>()

function numberFormat(tag: string, options: Intl.NumberFormatOptions): Intl.NumberFormat {
  const key = `${tag}|${JSON.stringify(options)}`
  let format = cache.get(key)
  if (format === undefined) {
    format = new Intl.NumberFormat(tag, options)
    cache.set(key, format)
  }
  return format
}

// Intl's typings accept only number | bigint, while the engine formats decimal strings exactly.
function formatExact(format: Intl.NumberFormat, value: Numeric): string {
  return format.format(value as number)
}

/** Significant digits a price is shown with: the markets' own price precision. */
export const priceSignificantDigits = 5

/**
 * A price or amount in euros: nl "€ 1.234,56", de "1.234,56 €". Prices of at least 1 euro show
 * cents; smaller ones keep five significant digits so a 0.00001234 price stays readable.
 */
export function formatEur(locale: Locale, value: Numeric): string {
  const magnitude = Math.abs(Number(value))
  const options: Intl.NumberFormatOptions =
    magnitude >= 1 || magnitude === 0
      ? { style: 'currency', currency: 'EUR', minimumFractionDigits: 2, maximumFractionDigits: 2 }
      : {
          style: 'currency',
          currency: 'EUR',
          minimumSignificantDigits: 2,
          maximumSignificantDigits: priceSignificantDigits,
        }
  return formatExact(numberFormat(localeTags[locale], options), value)
}

/**
 * An amount of euros for running text, the currency written as a word and cents only when there
 * are any: en "5 euros", de "5 Euro", nl "5 euro", "5.50 euros".
 */
export function formatEurInText(locale: Locale, value: Numeric): string {
  return formatExact(
    numberFormat(localeTags[locale], {
      style: 'currency',
      currency: 'EUR',
      currencyDisplay: 'name',
      trailingZeroDisplay: 'stripIfInteger',
    }),
    value,
  )
}

/** A large euro figure in compact form: en "€1.2B", de "1,2 Mrd. €". */
export function formatEurCompact(locale: Locale, value: Numeric): string {
  return formatExact(
    numberFormat(localeTags[locale], {
      style: 'currency',
      currency: 'EUR',
      notation: 'compact',
      maximumFractionDigits: 1,
    }),
    value,
  )
}

/** A plain number with the locale's grouping. */
export function formatNumber(
  locale: Locale,
  value: Numeric,
  options: Intl.NumberFormatOptions = {},
): string {
  return formatExact(numberFormat(localeTags[locale], options), value)
}

/**
 * A percentage change as the spec prescribes (§5): en-GB, at most 2 fraction digits, the sign
 * shown except for zero. `value` is in percent (1.5 → "+1.5%").
 */
export function formatPercentChange(value: number): string {
  return numberFormat('en-GB', {
    style: 'percent',
    maximumFractionDigits: 2,
    signDisplay: 'exceptZero',
  }).format(value / 100)
}

/** A rate such as a fee or a yield in the page's locale, e.g. de "0,25 %". `value` in percent. */
export function formatPercent(locale: Locale, value: number): string {
  return numberFormat(localeTags[locale], { style: 'percent', maximumFractionDigits: 2 }).format(
    value / 100,
  )
}

const dateCache = new Map<string, Intl.DateTimeFormat>()

/** Short month, day, numeric year in the locale (spec §3); an invalid date gives ''. */
export function formatDate(locale: Locale, date: Date | string | number): string {
  const value = date instanceof Date ? date : new Date(date)
  if (Number.isNaN(value.getTime())) return ''
  const tag = localeTags[locale]
  let format = dateCache.get(tag)
  if (format === undefined) {
    format = new Intl.DateTimeFormat(tag, {
      month: 'short',
      day: 'numeric',
      year: 'numeric',
      timeZone: 'UTC',
    })
    dateCache.set(tag, format)
  }
  return format.format(value)
}

/** Date and time (UTC) for "prices as of" labels. */
export function formatDateTime(locale: Locale, date: Date | string | number): string {
  const value = date instanceof Date ? date : new Date(date)
  if (Number.isNaN(value.getTime())) return ''
  return new Intl.DateTimeFormat(localeTags[locale], {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  }).format(value)
}
