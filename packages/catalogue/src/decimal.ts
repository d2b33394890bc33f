// Exact decimal-string arithmetic for the catalogue, in bigint. Money is never a float: prices,
// fees and order limits are decimal strings in the data and integers of a stated unit here.

/** Plain notation without redundant zeros: '0', '5', '0.25', '90000'. Never '1.50', '.5', '1e-9'. */
export const canonicalDecimalPattern = /^(0|[1-9]\d*)(\.\d*[1-9])?$/

/** Number of fraction digits of a canonical decimal string ('0.0025' → 4, '90000' → 0). */
export function decimalsOf(text: string): number {
  assertCanonical(text)
  const point = text.indexOf('.')
  return point < 0 ? 0 : text.length - point - 1
}

/** `text` as an integer count of 10^-decimals. Throws when `text` needs more decimals. */
export function toUnits(text: string, decimals: number): bigint {
  assertCanonical(text)
  const [whole = '0', fraction = ''] = text.split('.')
  if (fraction.length > decimals) {
    throw new RangeError(`${text} has more than ${decimals} decimals`)
  }
  return BigInt(whole + fraction.padEnd(decimals, '0'))
}

/** The canonical decimal string of `units` × 10^-decimals (trailing zeros removed). */
export function fromUnits(units: bigint, decimals: number): string {
  if (units < 0n) throw new RangeError('negative amounts do not occur in the catalogue')
  const digits = units.toString().padStart(decimals + 1, '0')
  const whole = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}

/** -1, 0 or 1 as a < b, a = b, a > b. */
export function compareDecimals(a: string, b: string): -1 | 0 | 1 {
  const decimals = Math.max(decimalsOf(a), decimalsOf(b))
  const difference = toUnits(a, decimals) - toUnits(b, decimals)
  return difference < 0n ? -1 : difference > 0n ? 1 : 0
}

/**
 * Position of the leading significant digit: floor(log10(value)) for value > 0
 * ('90000' → 4, '1' → 0, '0.25' → -1, '0.0000085' → -6).
 */
export function magnitudeOf(text: string): number {
  assertCanonical(text)
  if (text === '0') throw new RangeError('zero has no magnitude')
  const [whole = '0', fraction = ''] = text.split('.')
  if (whole !== '0') return whole.length - 1
  const firstNonZero = fraction.search(/[1-9]/)
  return -(firstNonZero + 1)
}

/** 10^exponent as a bigint (exponent ≥ 0). */
export function pow10(exponent: number): bigint {
  if (!Number.isInteger(exponent) || exponent < 0) throw new RangeError(`bad exponent ${exponent}`)
  return 10n ** BigInt(exponent)
}

/** ceil(numerator / denominator) for positive bigints. */
export function ceilDiv(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}

/** Rounds a positive integer up (ceil) or down (floor) to `digits` significant digits. */
export function roundSignificant(value: bigint, digits: number, mode: 'ceil' | 'floor'): bigint {
  if (value <= 0n) throw new RangeError('only positive values are rounded')
  const length = value.toString().length
  if (length <= digits) return value
  const step = pow10(length - digits)
  return mode === 'ceil' ? ceilDiv(value, step) * step : (value / step) * step
}

function assertCanonical(text: string): void {
  if (!canonicalDecimalPattern.test(text)) {
    throw new RangeError(`not a canonical decimal string: ${JSON.stringify(text)}`)
  }
}
