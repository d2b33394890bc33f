import { authErrorMessageKey, unauthenticatedErrorCode } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { failed, initialized, type LoadState, received, requested } from '../loadState.ts'

// Spec §4, §8: authentication is a flag beside the load state of the authenticate call. An
// `unauthenticate` event sets a failed authentication with code 401; codes 313 and 401 show
// hermes_auth_invalid_session, other failures the server's message or hermes_auth_unknown.

export type AuthState = {
  readonly authenticated: boolean
  readonly load: LoadState<true>
  request(): void
  succeed(): void
  /** A failed `authenticate` reply. */
  fail(code: number | undefined, serverMessage?: string): void
  /** The `unauthenticate` event. */
  unauthenticate(): void
}

export type AuthStore = StoreApi<AuthState>

export function createAuthStore(): AuthStore {
  return createStore<AuthState>()((set) => ({
    authenticated: false,
    load: initialized,
    request: () => set({ load: requested() }),
    succeed: () => set({ authenticated: true, load: received(true) }),
    fail: (code, serverMessage) =>
      set({
        authenticated: false,
        load: failed({ message: authErrorMessageKey(code, serverMessage), code }),
      }),
    unauthenticate: () =>
      set({
        authenticated: false,
        load: failed({
          message: authErrorMessageKey(unauthenticatedErrorCode),
          code: unauthenticatedErrorCode,
        }),
      }),
  }))
}
