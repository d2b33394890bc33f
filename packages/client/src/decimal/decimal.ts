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

/** `a + b`, exact for decimal strings (no float rounding: '0.1' + '0.2' is '0.3'). */
export function addDecimals(a: string, b: string): string {
  return new PolderDecimal(a).plus(b).toFixed()
}
