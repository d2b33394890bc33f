import { formatPercentChange } from '@polder/i18n/format'
import type { ReactElement } from 'react'

/** A 24-hour change in the spec's percent format; direction shown by sign and colour. */
export function Change({ value, empty }: { value: string | null; empty: string }): ReactElement {
  if (value === null) return <span className="change">{empty}</span>
  const number = Number(value)
  const direction = number > 0 ? 'up' : number < 0 ? 'down' : 'flat'
  return <span className={`change change-${direction}`}>{formatPercentChange(number)}</span>
}
