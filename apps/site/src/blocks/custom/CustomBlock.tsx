// The custom components of spec §2, chosen by name from page data.

import type { ReactElement, ReactNode } from 'react'
import { AsOf } from '../siteBlocks.tsx'
import type { CustomComponent } from '../types.ts'
import { AboutFacts, CustomerReviews } from './company.tsx'
import { CountriesTable, StatusTable } from './lists.tsx'
import { Top5MarketsTable } from './markets.tsx'
import {
  PaymentMethodsTable,
  TradingFeesTable,
  TradingLimitsTable,
  WithdrawalFeesTable,
} from './tables.tsx'

export function CustomBlock({
  component,
  island,
}: {
  component: CustomComponent
  island?: ReactNode
}): ReactElement | null {
  switch (component) {
    case 'tradingFeesTable':
      return <TradingFeesTable />
    case 'paymentMethodsTable':
      return <PaymentMethodsTable />
    case 'withdrawalFeesTable':
      return <WithdrawalFeesTable />
    case 'tradingLimitsTable':
      return <TradingLimitsTable />
    case 'about':
      return <AboutFacts />
    case 'customerReviews':
      return <CustomerReviews />
    case 'top5MarketsTable':
      return <Top5MarketsTable />
    case 'countriesTable':
      return <CountriesTable />
    case 'statusTable':
      return <StatusTable />
    // Interactive: the route file hydrates these as islands and hands them in as `island`. The
    // markets table's build-time prices carry their time, rendered here where the site context is.
    case 'marketsTable':
      return (
        <>
          {island}
          <AsOf />
        </>
      )
    case 'cookieSettings':
      return <>{island}</>
  }
}
