import type { Asset } from './schema.ts'

/** The protocol §4.5 asset object (GET /assets, getAssets). Deposits are free: depositFee '0'. */
export interface WireAsset {
  readonly symbol: string
  readonly name: string
  readonly decimals: number
  readonly depositFee: string
  readonly depositConfirmations: number
  readonly depositStatus: Asset['depositStatus']
  readonly withdrawalFee: string
  readonly withdrawalMinAmount: string
  readonly withdrawalStatus: Asset['withdrawalStatus']
  readonly networks: readonly string[]
  readonly message: string
}

export const depositFee = '0'

/** The wire form of an asset: the §4.5 fields only, in the documented order. */
export function wireAsset(asset: Asset): WireAsset {
  return {
    symbol: asset.symbol,
    name: asset.name,
    decimals: asset.decimals,
    depositFee,
    depositConfirmations: asset.depositConfirmations,
    depositStatus: asset.depositStatus,
    withdrawalFee: asset.withdrawalFee,
    withdrawalMinAmount: asset.withdrawalMinAmount,
    withdrawalStatus: asset.withdrawalStatus,
    networks: asset.networks,
    message: asset.message,
  }
}
