import type { Asset, AssetTransferStatus } from '@polder/protocol'

// Spec §3: an asset's network status is OK, MAINTENANCE or DELISTED. An asset has one per
// direction (deposit, withdrawal); the network status shown is the worse of the two.

const severity: Readonly<Record<AssetTransferStatus, number>> = {
  OK: 0,
  MAINTENANCE: 1,
  DELISTED: 2,
}

export function assetNetworkStatus(
  asset: Pick<Asset, 'depositStatus' | 'withdrawalStatus'>,
): AssetTransferStatus {
  return severity[asset.withdrawalStatus] > severity[asset.depositStatus]
    ? asset.withdrawalStatus
    : asset.depositStatus
}
