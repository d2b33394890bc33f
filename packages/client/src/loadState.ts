// Spec §4: every data source has a load state. An explicit union (STYLE habit 6), handled
// exhaustively by `matchLoadState`.

export type LoadError = {
  /** The server's message, or a message key such as `hermes_auth_invalid_session`. */
  readonly message: string
  /** The protocol errorCode (or HTTP status), when there is one. */
  readonly code?: number | undefined
}

export type LoadStatus = 'initialized' | 'requested' | 'received' | 'failed' | 'reset'

export type LoadState<Data> =
  | { readonly status: 'initialized' }
  /** `market` names what was asked for when the request is per market (trades, book). */
  | { readonly status: 'requested'; readonly market?: string | undefined }
  | { readonly status: 'received'; readonly data: Data }
  | { readonly status: 'failed'; readonly error: LoadError }
  | { readonly status: 'reset'; readonly error: LoadError | undefined }

export const initialized = { status: 'initialized' } as const

export function requested(market?: string): { status: 'requested'; market?: string | undefined } {
  return market === undefined ? { status: 'requested' } : { status: 'requested', market }
}

export function received<Data>(data: Data): { status: 'received'; data: Data } {
  return { status: 'received', data }
}

export function failed(error: LoadError): { status: 'failed'; error: LoadError } {
  return { status: 'failed', error }
}

export function reset(error?: LoadError): { status: 'reset'; error: LoadError | undefined } {
  return { status: 'reset', error }
}

/** The data when received, otherwise undefined. */
export function loadedData<Data>(state: LoadState<Data>): Data | undefined {
  return state.status === 'received' ? state.data : undefined
}

export type LoadStateHandlers<Data, Result> = {
  initialized: () => Result
  requested: (market: string | undefined) => Result
  received: (data: Data) => Result
  failed: (error: LoadError) => Result
  reset: (error: LoadError | undefined) => Result
}

/** Exhaustive dispatch on a load state: a new status is a compile error at every use. */
export function matchLoadState<Data, Result>(
  state: LoadState<Data>,
  handlers: LoadStateHandlers<Data, Result>,
): Result {
  switch (state.status) {
    case 'initialized':
      return handlers.initialized()
    case 'requested':
      return handlers.requested(state.market)
    case 'received':
      return handlers.received(state.data)
    case 'failed':
      return handlers.failed(state.error)
    case 'reset':
      return handlers.reset(state.error)
  }
}
