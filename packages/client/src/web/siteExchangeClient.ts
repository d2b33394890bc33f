import type { MarketsDataItem } from '@polder/protocol'
import { createWebApiClient, type WebApiClientOptions } from './webApiClient.ts'

// Spec §3, §7: the public site's exchange client. It asks for the market list with mini charts
// and the light theme (6000 ms timeout) and keeps only what the site reads: base symbol, mini
// chart and icon.

export const siteApiTimeoutMs = 6000

export type SiteMarketItem = {
  readonly base: string
  readonly miniChart: MarketsDataItem['miniChart']
  readonly icon: string
}

export function toSiteMarketItem(item: MarketsDataItem): SiteMarketItem {
  return { base: item.base.symbol, miniChart: item.miniChart, icon: item.theme.icon }
}

export type SiteExchangeClient = {
  getMarketList(filter?: { markets?: string[]; assets?: string[] }): Promise<SiteMarketItem[]>
}

export function createSiteExchangeClient(
  options: Omit<WebApiClientOptions, 'timeoutMs'>,
): SiteExchangeClient {
  const api = createWebApiClient({ ...options, timeoutMs: siteApiTimeoutMs })
  return {
    async getMarketList(filter = {}) {
      const items = await api.getMarketsData({ ...filter, miniChart: true, theme: 'light' })
      return items.map(toSiteMarketItem)
    },
  }
}
