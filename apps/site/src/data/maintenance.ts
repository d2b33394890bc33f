// The scheduled maintenance that /{lang}/maintenance/ announces: its window is written here once
// and every page that states it formats it for its language.

export const scheduledMaintenance = {
  /** Start and end of the window, as instants. */
  startsAt: '2026-11-30T01:00:00Z',
  endsAt: '2026-11-30T03:00:00Z',
  /** The time zone the announcement gives times in: the company's own, in Amsterdam. */
  timeZone: 'Europe/Amsterdam',
  /** The blog post that announces it in detail, in every language. */
  announcementSlug: 'scheduled-maintenance-november-30-2026',
} as const
