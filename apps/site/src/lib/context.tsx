// What every component of a page needs: its language, the translator and the page's route.
// Static rendering only; islands receive plain props instead.

import { type Locale, type MessageKey, type MessageValues, translator } from '@polder/i18n'
import { createContext, type ReactElement, type ReactNode, useContext } from 'react'
import { factValues } from './facts.ts'
import type { Route } from './routes.ts'

export type SiteContext = {
  lang: Locale
  route: Route
  /** Translate with the brand and product facts available as placeholders. */
  t: (key: MessageKey, values?: MessageValues) => string
  /** Absolute URL of the trading app (login, signup, trading screens). */
  tradeUrl: string
}

export function createSiteContext(route: Route, tradeUrl: string): SiteContext {
  const translate = translator(route.lang)
  const facts = factValues(route.lang)
  return {
    lang: route.lang,
    route,
    tradeUrl,
    t: (key, values) => translate(key, { ...facts, ...values }),
  }
}

const Context = createContext<SiteContext | null>(null)

export function SiteProvider({
  value,
  children,
}: {
  value: SiteContext
  children: ReactNode
}): ReactElement {
  return <Context.Provider value={value}>{children}</Context.Provider>
}

export function useSite(): SiteContext {
  const site = useContext(Context)
  if (site === null) throw new Error('useSite outside a SiteProvider')
  return site
}
