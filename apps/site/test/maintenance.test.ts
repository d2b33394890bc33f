import { readFileSync } from 'node:fs'
import { locales } from '@polder/i18n'
import { describe, expect, it } from 'vitest'
import { scheduledMaintenance } from '../src/data/maintenance.ts'
import { dayIn, maintenanceWindowText } from '../src/lib/maintenanceWindow.ts'

// Intl separates some parts with narrow or no-break spaces; compare on plain spaces.
const plain = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ')

describe('the scheduled maintenance window', () => {
  const winter = {
    startsAt: '2026-11-30T01:00:00Z',
    endsAt: '2026-11-30T03:00:00Z',
    timeZone: 'Europe/Amsterdam',
  }

  it('is stated in the page locale: short date, local times and the zone’s name', () => {
    const en = maintenanceWindowText('en', winter)
    expect({ ...en, from: plain(en.from), until: plain(en.until) }).toEqual({
      date: 'Nov 30, 2026',
      from: '2:00 AM',
      until: '4:00 AM',
      zone: 'Central European Standard Time',
    })
    expect(maintenanceWindowText('de', winter)).toEqual({
      date: '30. Nov. 2026',
      from: '02:00',
      until: '04:00',
      zone: 'Mitteleuropäische Normalzeit',
    })
    expect(maintenanceWindowText('nl', winter).date).toBe('30 nov 2026')
  })

  it('takes the day and the zone’s name from the time zone, not from UTC', () => {
    const summerMidnight = {
      startsAt: '2026-07-14T22:30:00Z',
      endsAt: '2026-07-15T00:30:00Z',
      timeZone: 'Europe/Amsterdam',
    }
    const en = maintenanceWindowText('en', summerMidnight)
    expect(en.date).toBe('Jul 15, 2026')
    expect(plain(en.from)).toBe('12:30 AM')
    expect(en.zone).toBe('Central European Summer Time')
  })

  it('is the one the announcement post talks about, in every language', () => {
    const start = new Date(scheduledMaintenance.startsAt)
    expect(new Date(scheduledMaintenance.endsAt).getTime()).toBeGreaterThan(start.getTime())
    const [year, , day] = dayIn(start, scheduledMaintenance.timeZone).split('-').map(Number)
    for (const lang of locales) {
      const post = readFileSync(
        new URL(
          `../content/blog/${lang}/${scheduledMaintenance.announcementSlug}.md`,
          import.meta.url,
        ),
        'utf8',
      )
      const title = /^title:\s*"?(.*?)"?$/m.exec(post)?.[1] ?? ''
      const published = /^date:\s*(\S+)/m.exec(post)?.[1] ?? ''
      expect(title, lang).toContain(String(day))
      expect(title, lang).toContain(String(year))
      expect(new Date(published).getTime(), lang).toBeLessThan(start.getTime())
    }
  })
})
