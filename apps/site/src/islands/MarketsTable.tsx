// The markets table (spec §2): asset, price, 24h change, volume; ascending and descending sort
// on each column; a filter; load-more; "view all {count} assets". Rendered to HTML at build time
// and hydrated when it scrolls into view. Labels arrive translated, so no catalogue ships.

import { formatEur, formatEurCompact, type Locale } from '@polder/i18n/format'
import { type ReactElement, useId, useMemo, useState } from 'react'
import { Change } from '../components/Change.tsx'
import { Sparkline } from '../components/Sparkline.tsx'
import type { MarketRow } from '../lib/marketRows.ts'

export type MarketsTableLabels = {
  caption: string
  asset: string
  price: string
  change: string
  volume: string
  chart: string
  /** "Sort by {column}, ascending" with {column} filled by the component. */
  sortAscending: string
  sortDescending: string
  filterLabel: string
  filterPlaceholder: string
  /** With {query}. */
  none: string
  /** With {shown} and {total}. */
  count: string
  loadMore: string
  /** With {count}. */
  viewAll: string
  noData: string
}

type Column = 'name' | 'last' | 'change24h' | 'volumeQuote24h'
type Direction = 'ascending' | 'descending'

export const pageSize = 25

function fill(template: string, values: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (match, name: string) => values[name] ?? match)
}

function compare(a: MarketRow, b: MarketRow, column: Column, locale: Locale): number {
  if (column === 'name') return a.name.localeCompare(b.name, locale)
  const left = a[column]
  const right = b[column]
  // Markets without a figure sort last in either direction's natural order.
  if (left === null || right === null) return left === right ? 0 : left === null ? 1 : -1
  return Number(left) - Number(right)
}

export function MarketsTable({
  lang,
  rows,
  labels,
}: {
  lang: Locale
  rows: MarketRow[]
  labels: MarketsTableLabels
}): ReactElement {
  const [sort, setSort] = useState<{ column: Column; direction: Direction }>({
    column: 'volumeQuote24h',
    direction: 'descending',
  })
  const [query, setQuery] = useState('')
  const [shown, setShown] = useState(pageSize)
  const filterId = useId()
  const countId = useId()

  const visible = useMemo(() => {
    const needle = query.trim().toLocaleLowerCase(lang)
    const filtered =
      needle === ''
        ? rows
        : rows.filter(
            (row) =>
              row.name.toLocaleLowerCase(lang).includes(needle) ||
              row.symbol.toLocaleLowerCase(lang).includes(needle),
          )
    const sign = sort.direction === 'ascending' ? 1 : -1
    return [...filtered].sort((a, b) => sign * compare(a, b, sort.column, lang))
  }, [rows, query, sort, lang])

  const columns: { id: Column; label: string; numeric: boolean }[] = [
    { id: 'name', label: labels.asset, numeric: false },
    { id: 'last', label: labels.price, numeric: true },
    { id: 'change24h', label: labels.change, numeric: true },
    { id: 'volumeQuote24h', label: labels.volume, numeric: true },
  ]

  const toggle = (column: Column): void => {
    setSort((current) =>
      current.column === column
        ? { column, direction: current.direction === 'ascending' ? 'descending' : 'ascending' }
        : { column, direction: column === 'name' ? 'ascending' : 'descending' },
    )
  }

  return (
    <div className="markets-table">
      <div className="markets-filter">
        <label htmlFor={filterId}>{labels.filterLabel}</label>
        <input
          id={filterId}
          type="search"
          value={query}
          placeholder={labels.filterPlaceholder}
          aria-describedby={countId}
          onChange={(event) => {
            setQuery(event.target.value)
            setShown(pageSize)
          }}
        />
      </div>
      <p id={countId} className="markets-count" aria-live="polite">
        {fill(labels.count, {
          shown: String(Math.min(shown, visible.length)),
          total: String(rows.length),
        })}
      </p>
      <div className="table-scroll">
        <table>
          <caption>{labels.caption}</caption>
          <thead>
            <tr>
              {columns.map((column) => {
                const active = sort.column === column.id
                const next: Direction =
                  active && sort.direction === 'ascending' ? 'descending' : 'ascending'
                return (
                  <th
                    key={column.id}
                    scope="col"
                    className={column.numeric ? 'num' : undefined}
                    aria-sort={active ? sort.direction : undefined}
                  >
                    <button
                      type="button"
                      className="sort"
                      onClick={() => toggle(column.id)}
                      aria-label={fill(
                        next === 'ascending' ? labels.sortAscending : labels.sortDescending,
                        {
                          column: column.label,
                        },
                      )}
                    >
                      {column.label}
                      <span aria-hidden="true" className="sort-mark">
                        {active ? (sort.direction === 'ascending' ? ' ▲' : ' ▼') : ' ↕'}
                      </span>
                    </button>
                  </th>
                )
              })}
              <th scope="col">{labels.chart}</th>
            </tr>
          </thead>
          <tbody>
            {visible.slice(0, shown).map((row) => (
              <tr key={row.slug}>
                <th scope="row">
                  <a href={`/${lang}/${row.slug}/`}>
                    {row.name} <span className="symbol">{row.symbol}</span>
                  </a>
                </th>
                <td className="num">
                  {row.last === null ? labels.noData : formatEur(lang, row.last)}
                </td>
                <td className="num">
                  <Change value={row.change24h} empty="–" />
                </td>
                <td className="num">{formatEurCompact(lang, row.volumeQuote24h)}</td>
                <td>
                  <Sparkline prices={row.miniChart} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      {visible.length === 0 ? <p>{fill(labels.none, { query })}</p> : null}
      <p className="markets-more">
        {shown < visible.length ? (
          <button
            type="button"
            className="button button-outline"
            onClick={() => setShown(shown + pageSize)}
          >
            {labels.loadMore}
          </button>
        ) : null}
        {shown < rows.length && query === '' ? (
          <button
            type="button"
            className="button button-ghost"
            onClick={() => setShown(rows.length)}
          >
            {fill(labels.viewAll, { count: String(rows.length) })}
          </button>
        ) : null}
      </p>
    </div>
  )
}
