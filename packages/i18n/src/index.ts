// @polder/i18n: Polder's six languages, their ICU message catalogues and Intl formatters, shared
// by the public site and the trading app. No I/O.

export {
  formatDate,
  formatDateTime,
  formatEur,
  formatEurCompact,
  formatEurInText,
  formatNumber,
  formatPercent,
  formatPercentChange,
  priceSignificantDigits,
} from './format.ts'
export {
  defaultLocale,
  isLocale,
  type Locale,
  localeNames,
  locales,
  localeTags,
} from './locales.ts'
export {
  type Catalogue,
  catalogues,
  hasMessage,
  type MessageKey,
  type MessageValues,
  MissingMessageError,
  type Translate,
  translator,
} from './messages.ts'
