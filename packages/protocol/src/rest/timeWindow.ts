import type { z } from 'zod'
import type { IssueErrorCode } from '../errors/ValidationError.ts'

/** Trades and orders are listed by windows of at most 24 h (`end - start`, protocol §1). */
export const listWindowMsMax = 24 * 60 * 60 * 1000

/** Refinement: when both `start` and `end` are given, `start ≤ end ≤ start + 24 h` (else 205). */
export function endWithinOneDayOfStart(
  value: { start?: number | undefined; end?: number | undefined },
  context: z.core.$RefinementCtx,
): void {
  const { start, end } = value
  if (typeof start !== 'number' || typeof end !== 'number') return
  if (end < start || end - start > listWindowMsMax) {
    const params: IssueErrorCode = { errorCode: 205 }
    context.addIssue({
      code: 'custom',
      path: ['end'],
      message: 'expected start ≤ end ≤ start + 24 h',
      params,
    })
  }
}
