// Decimal strings live only at the edges. Inside the engine every price, amount and fee is a safe
// integer count of the smallest unit (10^-decimals). These helpers convert exactly or refuse:
// never a silent rounding.

export type ParseDecimalResult =
  | { readonly ok: true; readonly units: number }
  | { readonly ok: false; readonly errorCode: 205 | 429; readonly reason: string }

export interface ParseDecimalOptions {
  /** Accept a leading '-' (fees and rebates). Default false. */
  readonly allowNegative?: boolean
}

// Plain notation only: an integer part without leading zeros (or a single 0), optionally a dot
// followed by at least one digit. No exponent, no '+', no leading or trailing dot, no spaces.
const decimalPattern = /^(-?)(0|[1-9][0-9]*)(?:\.([0-9]+))?$/

/** Largest number of decimals a scale may have; 10^22 is the largest exact power of ten. */
export const decimalsMax = 18

export type ParseBigDecimalResult =
  | { readonly ok: true; readonly units: bigint }
  | { readonly ok: false; readonly errorCode: 205 | 429; readonly reason: string }

/**
 * Parses a plain decimal string into integer units of 10^-decimals.
 * - '1.5' at 2 decimals → 150; '1.50' → 150; '1.500' → 150 (trailing zeros beyond the scale are
 *   exact, so they are accepted); '1.505' at 2 decimals → error 429 (too many decimals).
 * - '1e5', '+1', '.5', '5.', '01', ' 1', '' → error 205 (invalid).
 * - a value whose units exceed Number.MAX_SAFE_INTEGER → error 205.
 */
export function parseDecimal(
  text: string,
  decimals: number,
  options?: ParseDecimalOptions,
): ParseDecimalResult {
  const parsed = parseBigDecimal(text, decimals, options)
  if (!parsed.ok) return parsed
  const magnitude = parsed.units < 0n ? -parsed.units : parsed.units
  if (magnitude > BigInt(Number.MAX_SAFE_INTEGER)) {
    return { ok: false, errorCode: 205, reason: 'value too large' }
  }
  return { ok: true, units: Number(parsed.units) }
}

/**
 * As parseDecimal, for amounts held outside the engine as bigint (ledger balances, transfers,
 * stakes): no bound but the text's 64 characters. 90 million SHIB is 9 × 10^15 units at its 8
 * decimals, past what a number holds exactly, and about 1,000 euros.
 */
export function parseBigDecimal(
  text: string,
  decimals: number,
  options?: ParseDecimalOptions,
): ParseBigDecimalResult {
  assertDecimals(decimals)
  if (typeof text !== 'string' || text.length > 64) {
    return { ok: false, errorCode: 205, reason: 'not a decimal string' }
  }
  const match = decimalPattern.exec(text)
  if (match === null) return { ok: false, errorCode: 205, reason: 'not a plain decimal' }
  const negative = match[1] === '-'
  if (negative && options?.allowNegative !== true) {
    return { ok: false, errorCode: 205, reason: 'negative value' }
  }
  const integerPart = match[2] ?? '0'
  let fraction = match[3] ?? ''
  if (fraction.length > decimals) {
    const extra = fraction.slice(decimals)
    if (!/^0+$/.test(extra)) return { ok: false, errorCode: 429, reason: 'too many decimals' }
    fraction = fraction.slice(0, decimals)
  }
  const units = BigInt(integerPart + fraction.padEnd(decimals, '0'))
  return { ok: true, units: negative ? -units : units }
}

/**
 * Formats integer units of 10^-decimals as a plain decimal string with exactly `decimals`
 * fraction digits (fixed width, so the string round-trips and never changes shape with the
 * value): formatDecimal(150, 2) = '1.50', formatDecimal(5, 0) = '5', formatDecimal(-3, 3) =
 * '-0.003'. Never an exponent.
 */
export function formatDecimal(units: number, decimals: number): string {
  assertDecimals(decimals)
  if (!Number.isSafeInteger(units)) throw new RangeError(`units must be a safe integer: ${units}`)
  const negative = units < 0
  const digits = String(negative ? -units : units)
  let text: string
  if (decimals === 0) {
    text = digits
  } else {
    const padded = digits.padStart(decimals + 1, '0')
    const cut = padded.length - decimals
    text = `${padded.slice(0, cut)}.${padded.slice(cut)}`
  }
  return negative ? `-${text}` : text
}

/** Decimals of a tick size such as '0.01' (2), '5' (0), '0.50' (1: trailing zeros do not count). */
export function decimalsOf(text: string): number {
  const match = decimalPattern.exec(text)
  if (match === null) throw new RangeError(`not a plain decimal: ${text}`)
  const fraction = (match[3] ?? '').replace(/0+$/, '')
  return fraction.length
}

/**
 * Significant digits of a positive integer count of units. Leading zeros never count and trailing
 * zeros do not either (1200 has 2 significant digits, 1.2 has 2, 0.0012 has 2), so the count does
 * not depend on the scale.
 */
export function significantDigits(units: number): number {
  if (units === 0) return 0
  let value = Math.abs(units)
  while (value % 10 === 0) value /= 10
  let count = 0
  while (value > 0) {
    count++
    value = Math.floor(value / 10)
  }
  return count
}

/** 10^exponent as an exact safe integer. */
export function pow10(exponent: number): number {
  assertDecimals(exponent)
  return 10 ** exponent
}

function assertDecimals(decimals: number): void {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > decimalsMax) {
    throw new RangeError(`decimals must be an integer in 0..${decimalsMax}: ${decimals}`)
  }
}
