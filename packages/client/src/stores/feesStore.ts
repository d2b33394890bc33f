import type { AccountResponse } from '@polder/protocol'
import { createStore, type StoreApi } from 'zustand/vanilla'
import { PolderDecimal } from '../decimal/decimal.ts'
import {
  failed,
  initialized,
  type LoadError,
  type LoadState,
  received,
  requested,
} from '../loadState.ts'

// Spec §3, §9: fees in percent. Until the account answers, the defaults apply (maker 0.15,
// taker 0.25, required 0); the server sends fractions ('0.0015'), multiplied by 100 on receipt.

export type Fees = {
  /** Percent, e.g. '0.15'. */
  readonly maker: string
  readonly taker: string
  readonly required: string
}

export const defaultFees: Fees = { maker: '0.15', taker: '0.25', required: '0' }

/** Server fractions to percent, exactly ('0.0015' → '0.15'). */
export function feesFromAccount(account: AccountResponse): Fees {
  return {
    maker: new PolderDecimal(account.fees.maker).times(100).toFixed(),
    taker: new PolderDecimal(account.fees.taker).times(100).toFixed(),
    required: defaultFees.required,
  }
}

export type FeesState = {
  readonly load: LoadState<Fees>
  /** The received fees, or the defaults. */
  readonly fees: Fees
  request(): void
  receive(account: AccountResponse): void
  fail(error: LoadError): void
}

export type FeesStore = StoreApi<FeesState>

export function createFeesStore(): FeesStore {
  return createStore<FeesState>()((set) => ({
    load: initialized,
    fees: defaultFees,
    request: () => set({ load: requested() }),
    receive: (account) => {
      const fees = feesFromAccount(account)
      set({ load: received(fees), fees })
    },
    fail: (error) => set({ load: failed(error) }),
  }))
}
