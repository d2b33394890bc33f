import { PolderDecimal } from '../decimal/decimal.ts'

// Spec §3: chart change = (last or current price − first price) / first price × 100; 0 with
// fewer than two points; shown with 2 decimals. Exact decimal arithmetic.

/**
 * The change over a chart's points (oldest first), in percent with 2 decimals. `currentPrice`,
 * when given, replaces the last point's price.
 */
export function chartChange(prices: readonly string[], currentPrice?: string | undefined): string {
  if (prices.length < 2) return '0.00'
  const first = new PolderDecimal(prices[0]!)
  if (first.isZero()) return '0.00'
  const last = new PolderDecimal(currentPrice ?? prices[prices.length - 1]!)
  return last.minus(first).div(first).times(100).toFixed(2)
}
