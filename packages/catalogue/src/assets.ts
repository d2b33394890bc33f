import { assets0ToC } from './asset-data/assets-0-c.ts'
import { assetsDToL } from './asset-data/assets-d-l.ts'
import { assetsMToR } from './asset-data/assets-m-r.ts'
import { assetsSToZ } from './asset-data/assets-s-z.ts'
import { assetSupply } from './asset-data/supply.ts'
import type { Asset } from './schema.ts'

/**
 * Every asset of the exchange, EUR included, in slug order (code-point order: digits first, a
 * hyphen before letters), with its supply joined from `asset-data/supply.ts`. The data is split
 * by first letter only to keep the files readable. Not validated here: index.ts validates the
 * whole catalogue once (a crypto-asset without supply is an issue there).
 */
export const assetData: readonly Asset[] = [
  ...assets0ToC,
  ...assetsDToL,
  ...assetsMToR,
  ...assetsSToZ,
].map((value) => {
  const supply = assetSupply[value.slug]
  return supply === undefined ? value : { ...value, supply }
})
