// The scheduled maintenance window (src/data/maintenance.ts) in a page's language: the day by the
// short date rule (short month, day, numeric year), the times and the time zone's name, all in the
// time zone the announcement uses.

import { formatDate, type Locale, localeTags } from '@polder/i18n'
import { scheduledMaintenance } from '../data/maintenance.ts'

export type MaintenanceWindowText = { date: string; from: string; until: string; zone: string }

/** The calendar day (YYYY-MM-DD) of an instant in a time zone. */
export function dayIn(instant: Date, timeZone: string): string {
  return new Intl.DateTimeFormat('en-CA', {
    timeZone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
  }).format(instant)
}

export function maintenanceWindowText(
  lang: Locale,
  window: {
    startsAt: string
    endsAt: string
    timeZone: string
  } = scheduledMaintenance,
): MaintenanceWindowText {
  const tag = localeTags[lang]
  const start = new Date(window.startsAt)
  const end = new Date(window.endsAt)
  const time = new Intl.DateTimeFormat(tag, { timeStyle: 'short', timeZone: window.timeZone })
  const zone =
    new Intl.DateTimeFormat(tag, { timeZone: window.timeZone, timeZoneName: 'long' })
      .formatToParts(start)
      .find((part) => part.type === 'timeZoneName')?.value ?? window.timeZone
  return {
    date: formatDate(lang, dayIn(start, window.timeZone)),
    from: time.format(start),
    until: time.format(end),
    zone,
  }
}
