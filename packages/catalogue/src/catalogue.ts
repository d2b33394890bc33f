import type { z } from 'zod'
import { CatalogueError } from './errors.ts'
import { fitsEngineBounds, quoteAsset } from './markets.ts'
import { type Asset, asset, type Market, market, type Network, network } from './schema.ts'

// Whole-catalogue rules that no single record can check: uniqueness, order, references between
// assets, networks and markets. Run once at load by index.ts and by the tests.

export interface Catalogue {
  readonly assets: readonly Asset[]
  readonly markets: readonly Market[]
  readonly networks: readonly Network[]
}

/** Every problem of the catalogue as a message; [] when it is valid. */
export function catalogueIssues(catalogue: Catalogue): string[] {
  const issues: string[] = []
  const report = (where: string, error: z.ZodError) => {
    for (const issue of error.issues) {
      issues.push(`${where}.${issue.path.join('.')}: ${issue.message}`)
    }
  }
  for (const value of catalogue.networks) {
    const result = network.safeParse(value)
    if (!result.success) report(`network ${value.name}`, result.error)
  }
  for (const value of catalogue.assets) {
    const result = asset.safeParse(value)
    if (!result.success) report(`asset ${value.slug}`, result.error)
  }
  for (const value of catalogue.markets) {
    const result = market.safeParse(value)
    if (!result.success) report(`market ${value.market}`, result.error)
    else if (!fitsEngineBounds(value))
      issues.push(`market ${value.market}: outside the engine's bounds`)
  }

  const repeated = (kind: string, values: readonly string[], verb: string) => {
    for (const value of duplicates(values)) issues.push(`${kind} ${value} ${verb} twice`)
  }
  repeated(
    'network',
    catalogue.networks.map((value) => value.name),
    'listed',
  )
  repeated(
    'slug',
    catalogue.assets.map((value) => value.slug),
    'used',
  )
  repeated(
    'symbol',
    catalogue.assets.map((value) => value.symbol),
    'used',
  )
  repeated(
    'market',
    catalogue.markets.map((value) => value.market),
    'listed',
  )
  for (let index = 1; index < catalogue.assets.length; index++) {
    const previous = catalogue.assets[index - 1]!.slug
    const current = catalogue.assets[index]!.slug
    if (!(previous < current)) issues.push(`slug ${current} is out of order after ${previous}`)
  }

  const networkNames = new Set(catalogue.networks.map((value) => value.name))
  for (const value of catalogue.assets) {
    for (const name of value.networks) {
      if (!networkNames.has(name)) issues.push(`asset ${value.slug}: unknown network ${name}`)
    }
  }
  for (const value of catalogue.assets) {
    if (value.category !== 'fiat' && value.supply === undefined)
      issues.push(`asset ${value.slug}: no supply`)
    if (value.category === 'fiat' && value.supply !== undefined)
      issues.push(`asset ${value.slug}: a fiat currency has no supply here`)
  }
  issues.push(...networkIssues(catalogue))
  if (!catalogue.assets.some((value) => value.symbol === quoteAsset)) {
    issues.push(`the quote asset ${quoteAsset} is missing`)
  }

  const bySymbol = new Map(catalogue.assets.map((value) => [value.symbol, value]))
  const marketsByBase = new Map(catalogue.markets.map((value) => [value.base, value]))
  for (const value of catalogue.markets) {
    const base = bySymbol.get(value.base)
    if (base === undefined) issues.push(`market ${value.market}: unknown base ${value.base}`)
    else if (base.category === 'fiat') issues.push(`market ${value.market}: fiat base`)
    if (value.quote !== quoteAsset)
      issues.push(`market ${value.market}: quote is not ${quoteAsset}`)
  }
  for (const value of catalogue.assets) {
    if (value.category !== 'fiat' && !marketsByBase.has(value.symbol)) {
      issues.push(`asset ${value.slug}: no ${quoteAsset} market`)
    }
  }
  return issues
}

/** Throws CatalogueError unless the catalogue is valid. */
export function assertValidCatalogue(catalogue: Catalogue): void {
  const issues = catalogueIssues(catalogue)
  if (issues.length > 0) throw new CatalogueError(issues)
}

/**
 * The networks' references: native assets exist and live on their network, rollups settle on a
 * listed network, and every network a crypto-asset uses has sustainability figures (a token
 * inherits those of the network that hosts it).
 */
function networkIssues(catalogue: Catalogue): string[] {
  const issues: string[] = []
  const byName = new Map(catalogue.networks.map((value) => [value.name, value]))
  const bySymbol = new Map(catalogue.assets.map((value) => [value.symbol, value]))
  for (const value of catalogue.networks) {
    for (const symbol of value.nativeAssets ?? []) {
      const native = bySymbol.get(symbol)
      if (native === undefined) issues.push(`network ${value.name}: unknown native asset ${symbol}`)
      else if (!native.networks.includes(value.name))
        issues.push(`network ${value.name}: native asset ${symbol} is not on it`)
    }
    if (value.settlesOn !== undefined && !byName.has(value.settlesOn))
      issues.push(`network ${value.name}: settles on unknown network ${value.settlesOn}`)
  }
  for (const value of catalogue.assets) {
    if (value.category === 'fiat') continue
    for (const name of value.networks) {
      const host = byName.get(name)
      if (host !== undefined && host.sustainability === undefined)
        issues.push(`asset ${value.slug}: network ${name} has no sustainability figures`)
    }
  }
  return issues
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>()
  const repeated = new Set<string>()
  for (const value of values) {
    if (seen.has(value)) repeated.add(value)
    seen.add(value)
  }
  return [...repeated]
}
