import { Decimal } from 'decimal.js'

// Spec §9: decimal arithmetic with precision 20 and rounding mode 4 (ROUND_HALF_UP). A clone, so
// the global Decimal of an app that also uses decimal.js keeps its own configuration.

export const decimalPrecision = 20
export const decimalRounding = 4

export const PolderDecimal = Decimal.clone({
  precision: decimalPrecision,
  rounding: decimalRounding,
})
export type PolderDecimal = Decimal

// A sum of two amounts is exact, whatever their digits: 1.2 trillion BTT at 8 decimals has 21
// significant digits, past the spec's 20, and is about 720,000 euros. The wire's amounts are at
// most 64 characters, so their sum has at most 65 digits.
const ExactDecimal = Decimal.clone({ precision: 80, rounding: decimalRounding })

/** `a + b`, exact for decimal strings (no float rounding: '0.1' + '0.2' is '0.3'). */
export function addDecimals(a: string, b: string): string {
  return new ExactDecimal(a).plus(b).toFixed()
}
