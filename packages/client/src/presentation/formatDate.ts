// Spec §3: dates show as short month, day and numeric year; an invalid date shows nothing.

export type FormatDateOptions = {
  /** Default en-US (the site's locale map sends en to en-US). */
  locale?: string
  /** Default: the runtime's zone. */
  timeZone?: string
}

export function formatDate(value: Date | number | string, options: FormatDateOptions = {}): string {
  const date = value instanceof Date ? value : new Date(value)
  if (Number.isNaN(date.getTime())) return ''
  return new Intl.DateTimeFormat(options.locale ?? 'en-US', {
    month: 'short',
    day: 'numeric',
    year: 'numeric',
    timeZone: options.timeZone,
  }).format(date)
}
