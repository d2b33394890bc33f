// A 30-day price chart drawn as SVG at build time from the exchange's candles. The figure's
// description states the range and the change in words for screen readers (spec §3 change rule).

import { chartChange } from '@polder/client'
import { formatDate, formatEur, formatPercentChange } from '@polder/i18n'
import type { ReactElement } from 'react'
import { useSite } from '../lib/context.tsx'
import { sparklinePoints } from './Sparkline.tsx'

const width = 720
const height = 240

export function PriceChart({
  points,
  name,
}: {
  points: [number, string][]
  name: string
}): ReactElement {
  const { lang, t } = useSite()
  if (points.length < 2) return <p className="chart-empty">{t('price.chart.empty')}</p>
  const prices = points.map(([, price]) => price)
  const change = chartChange(prices)
  const first = points[0]!
  const last = points[points.length - 1]!
  const values = prices.map(Number)
  const high = prices[values.indexOf(Math.max(...values))]!
  const low = prices[values.indexOf(Math.min(...values))]!
  const line = sparklinePoints(prices, width, height)
  const rising = Number(change) >= 0
  return (
    <figure className="chart">
      <svg
        viewBox={`0 0 ${width} ${height}`}
        role="img"
        aria-label={t('price.chart.label', {
          name,
          first: formatDate(lang, first[0]),
          last: formatDate(lang, last[0]),
          change: formatPercentChange(Number(change)),
        })}
        preserveAspectRatio="none"
        className={`chart-svg ${rising ? 'up' : 'down'}`}
      >
        <polygon points={`0,${height} ${line} ${width},${height}`} className="chart-area" />
        <polyline
          points={line}
          fill="none"
          className="chart-line"
          strokeWidth="2"
          vectorEffect="non-scaling-stroke"
        />
      </svg>
      <figcaption className="chart-caption">
        <span>
          {formatDate(lang, first[0])} – {formatDate(lang, last[0])}
        </span>
        <span>
          ↑ {formatEur(lang, high)} · ↓ {formatEur(lang, low)} ·{' '}
          {formatPercentChange(Number(change))}
        </span>
      </figcaption>
    </figure>
  )
}
