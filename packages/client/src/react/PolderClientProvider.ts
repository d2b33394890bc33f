import { createContext, createElement, type ReactNode, useContext } from 'react'
import type { PolderClient } from '../socket/polderClient.ts'

const PolderClientContext = createContext<PolderClient | undefined>(undefined)

export type PolderClientProviderProps = { client: PolderClient; children?: ReactNode }

/** Makes one client available to the hooks below it. */
export function PolderClientProvider(props: PolderClientProviderProps): ReactNode {
  return createElement(PolderClientContext.Provider, { value: props.client }, props.children)
}

export function usePolderClient(): PolderClient {
  const client = useContext(PolderClientContext)
  if (client === undefined) {
    throw new Error('usePolderClient must be used inside a <PolderClientProvider>.')
  }
  return client
}
