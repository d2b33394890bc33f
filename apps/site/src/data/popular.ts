// The assets retail customers look for most, most popular first: they fill "popular assets" links
// and break ties between markets with equal volume (the build-time snapshot may have none).

export const popularAssetSlugs: readonly string[] = [
  'bitcoin',
  'ethereum',
  'solana',
  'ripple',
  'cardano',
  'dogecoin',
  'polkadot',
  'chainlink',
  'avalanche',
  'litecoin',
  'polygon',
  'tron',
  'shiba-inu',
  'toncoin',
  'stellar',
  'uniswap',
  'sui',
  'pepe',
  'near',
  'cosmos',
]

const rankBySlug = new Map(popularAssetSlugs.map((slug, index) => [slug, index]))

/** 0 for the most popular asset; every asset outside the list ranks after the list, equally. */
export function popularityRank(slug: string): number {
  return rankBySlug.get(slug) ?? popularAssetSlugs.length
}
