// When a savings plan runs: anchored on its start date (UTC midnight), every day, week, two
// weeks or month. Monthly plans keep the start's day of month, clamped to shorter months (a plan
// started on 31 January runs on 28 or 29 February, then on 31 March).
import { namedId } from '../core/namedIds.ts'

export type Frequency = 'DAILY' | 'WEEKLY' | 'FORTNIGHTLY' | 'MONTHLY'

const dayMs = 86_400_000
const stepDays: Record<Exclude<Frequency, 'MONTHLY'>, number> = {
  DAILY: 1,
  WEEKLY: 7,
  FORTNIGHTLY: 14,
}

/** The k-th run (k = 0 is the start date itself), in ms at 00:00 UTC. */
export function occurrence(startMs: number, frequency: Frequency, k: number): number {
  if (frequency !== 'MONTHLY') return startMs + k * stepDays[frequency] * dayMs
  const start = new Date(startMs)
  const month = start.getUTCMonth() + k
  const year = start.getUTCFullYear() + Math.floor(month / 12)
  const monthInYear = ((month % 12) + 12) % 12
  const lastDay = new Date(Date.UTC(year, monthInYear + 1, 0)).getUTCDate()
  return Date.UTC(year, monthInYear, Math.min(start.getUTCDate(), lastDay))
}

/** The index of the last run at or before `atMs` (-1 when none is due yet). */
export function lastOccurrenceIndex(startMs: number, frequency: Frequency, atMs: number): number {
  if (atMs < startMs) return -1
  if (frequency !== 'MONTHLY') return Math.floor((atMs - startMs) / (stepDays[frequency] * dayMs))
  let k = Math.max(0, Math.floor((atMs - startMs) / (31 * dayMs)) - 1)
  while (occurrence(startMs, frequency, k + 1) <= atMs) k += 1
  return k
}

/** 'YYYY-MM-DD' to ms at 00:00 UTC. */
export function dateToMs(date: string): number {
  return Date.parse(`${date}T00:00:00Z`)
}

export function msToDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10)
}

/**
 * The id of a plan's run due at `scheduledAtMs` (named by the two): the same
 * while it is listed as SCHEDULED and once it has run (or was missed), so a client can key on it
 * before it happens; two runs of a plan never share one, as a plan runs once a date at most.
 * Keyed on the date rather than on the run's index, which counts from the start date again when
 * the start is moved.
 */
export function executionId(planId: string, scheduledAtMs: number): string {
  return namedId(`${planId} ${scheduledAtMs}`)
}
