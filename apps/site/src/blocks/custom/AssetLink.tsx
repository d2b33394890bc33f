import type { ReactElement } from 'react'
import { useSite } from '../../lib/context.tsx'
import { pathOf } from '../../lib/routes.ts'

/**
 * An asset's name and symbol linking to its page: the first cell of the asset tables. The markets
 * island writes the same markup itself, since the route table would ship the catalogue with it.
 */
export function AssetLink({
  asset,
}: {
  asset: { slug: string; name: string; symbol: string }
}): ReactElement {
  const { lang } = useSite()
  return (
    <a href={pathOf({ kind: 'asset', slug: asset.slug }, lang)}>
      {asset.name} <span className="symbol">{asset.symbol}</span>
    </a>
  )
}
