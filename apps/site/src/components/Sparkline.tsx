// A small line of prices, drawn as SVG at build time. Decorative: the change next to it is the
// accessible figure.

import type { ReactElement } from 'react'

export function sparklinePoints(prices: readonly string[], width: number, height: number): string {
  const values = prices.map(Number)
  const min = Math.min(...values)
  const max = Math.max(...values)
  const span = max - min || 1
  const step = values.length > 1 ? width / (values.length - 1) : 0
  return values
    .map(
      (value, index) =>
        `${(index * step).toFixed(1)},${(height - ((value - min) / span) * height).toFixed(1)}`,
    )
    .join(' ')
}

export function Sparkline({
  prices,
  width = 96,
  height = 28,
}: {
  prices: readonly string[]
  width?: number
  height?: number
}): ReactElement | null {
  if (prices.length < 2) return null
  const rising = Number(prices[prices.length - 1]) >= Number(prices[0])
  return (
    <svg
      className={`sparkline ${rising ? 'up' : 'down'}`}
      viewBox={`0 0 ${width} ${height}`}
      width={width}
      height={height}
      aria-hidden="true"
      focusable="false"
    >
      <polyline points={sparklinePoints(prices, width, height)} fill="none" strokeWidth="1.5" />
    </svg>
  )
}
