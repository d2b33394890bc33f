import type { ReactElement, ReactNode } from 'react'

/** A data table with a caption, column headers and a row header per row. */
export function Table({
  caption,
  columns,
  rows,
  numeric = [],
}: {
  caption: string
  columns: string[]
  rows: { key: string; cells: ReactNode[] }[]
  /** Indexes of right-aligned numeric columns. */
  numeric?: number[]
}): ReactElement {
  return (
    <div className="table-scroll">
      <table>
        <caption>{caption}</caption>
        <thead>
          <tr>
            {columns.map((column, index) => (
              <th key={column} scope="col" className={numeric.includes(index) ? 'num' : undefined}>
                {column}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.key}>
              {row.cells.map((cell, index) =>
                index === 0 ? (
                  // biome-ignore lint/suspicious/noArrayIndexKey: positional cells
                  <th key={index} scope="row">
                    {cell}
                  </th>
                ) : (
                  // biome-ignore lint/suspicious/noArrayIndexKey: positional cells
                  <td key={index} className={numeric.includes(index) ? 'num' : undefined}>
                    {cell}
                  </td>
                ),
              )}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
