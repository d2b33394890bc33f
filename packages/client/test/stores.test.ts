import { describe, expect, test } from 'vitest'
import {
  assetNetworkStatus,
  createFeesStore,
  createLoadStore,
  createTicker24hStore,
  createTradesStore,
  defaultFees,
  type LoadState,
  matchLoadState,
} from '../src/index.ts'
import {
  account,
  asset,
  balance,
  publicTrade,
  ticker24h,
  tickerEntry,
} from './support/wireFixtures.ts'

// Spec §3, §4 (parts 1 and 10): load states and the data stores.

describe('spec §4 load states', () => {
  test('every data source goes through initialized, requested, received, failed and reset', () => {
    const store = createLoadStore<readonly string[]>()
    const seen: LoadState<readonly string[]>[] = [store.getState().load]
    store.subscribe((state) => seen.push(state.load))
    store.getState().request()
    store.getState().receive(['a'])
    store.getState().fail({ message: 'boom', code: 101 })
    store.getState().reset({ message: 'cleared' })
    expect(seen).toEqual([
      { status: 'initialized' },
      { status: 'requested' },
      { status: 'received', data: ['a'] },
      { status: 'failed', error: { message: 'boom', code: 101 } },
      { status: 'reset', error: { message: 'cleared' } },
    ])
  })

  test('failed and reset carry an error field', () => {
    const store = createLoadStore<number>()
    store.getState().reset()
    expect(store.getState().load).toHaveProperty('error', undefined)
    store.getState().fail({ message: 'x' })
    expect(store.getState().load).toHaveProperty('error', { message: 'x' })
  })

  test('a load state is handled exhaustively', () => {
    const describe = (state: LoadState<number>) =>
      matchLoadState(state, {
        initialized: () => 'idle',
        requested: (market) => `loading ${market ?? ''}`.trim(),
        received: (data) => `got ${data}`,
        failed: (error) => `failed ${error.message}`,
        reset: () => 'reset',
      })
    expect(describe({ status: 'requested', market: 'BTC-EUR' })).toBe('loading BTC-EUR')
    expect(describe({ status: 'received', data: 3 })).toBe('got 3')
    expect(describe({ status: 'reset', error: undefined })).toBe('reset')
  })
})

describe('spec §4 trades', () => {
  test('trades are requested with the market id, received with data, and clearTrades sets reset', () => {
    const store = createTradesStore()
    expect(store.getState().load).toEqual({ status: 'initialized' })
    store.getState().request('BTC-EUR')
    expect(store.getState().load).toEqual({ status: 'requested', market: 'BTC-EUR' })
    store.getState().receive({ market: 'BTC-EUR', trades: [publicTrade] })
    expect(store.getState().load.status).toBe('received')
    store.getState().clearTrades()
    expect(store.getState().load).toEqual({ status: 'reset', error: undefined })
  })
})

describe('spec §3, §4 24h ticker', () => {
  test('ticker price updates apply only in state received', () => {
    const store = createTicker24hStore()
    store.getState().applyTickers([tickerEntry()])
    store.getState().applyPriceUpdates({ BTC: ['1', '2'] })
    expect(store.getState().load).toEqual({ status: 'initialized' })
    expect(store.getState().priceUpdates).toEqual({})
    store.getState().request()
    store.getState().applyPriceUpdates({ BTC: ['1', '2'] })
    expect(store.getState().priceUpdates).toEqual({})
    store.getState().receive([ticker24h])
    store.getState().applyTickers([tickerEntry({ last: '8400' })])
    store.getState().applyPriceUpdates({ BTC: ['8400', '5'] })
    const load = store.getState().load
    expect(load.status === 'received' && load.data['BTC-EUR']).toMatchObject({
      last: '8400',
      change: '5.00',
    })
    expect(store.getState().priceUpdates).toEqual({ BTC: ['8400', '5'] })
  })

  test('ticker entries are market pairs with the -EUR suffix', () => {
    const store = createTicker24hStore()
    store.getState().receive([ticker24h, { ...ticker24h, market: 'BTC-USDC' }])
    store.getState().applyTickers([tickerEntry({ market: 'ETH-BTC' })])
    const load = store.getState().load
    expect(load.status === 'received' && Object.keys(load.data)).toEqual(['BTC-EUR'])
  })

  test('the price-update map is keyed by symbol with [last, change]; mobile updates carry only the last price', () => {
    const store = createTicker24hStore()
    store.getState().receive([])
    store.getState().applyPriceUpdates({ BTC: ['8400', '-1.25'], ETH: ['2000', '3'] })
    store.getState().applyPriceUpdates({ ETH: ['2100'] })
    expect(store.getState().priceUpdates).toEqual({ BTC: ['8400', '-1.25'], ETH: ['2100'] })
  })

  test('resetTicker24h resets the ticker and its price updates', () => {
    const store = createTicker24hStore()
    store.getState().receive([ticker24h])
    store.getState().applyPriceUpdates({ BTC: ['1', '1'] })
    store.getState().resetTicker24h()
    expect(store.getState()).toMatchObject({
      load: { status: 'reset', error: undefined },
      priceUpdates: {},
    })
  })
})

describe('spec §4 time, balance and assets', () => {
  test('the time store holds data and state: initialized, received, failed, reset', () => {
    const store = createLoadStore<{ time: number }>()
    store.getState().receive({ time: 5 })
    expect(store.getState().load).toEqual({ status: 'received', data: { time: 5 } })
    store.getState().fail({ message: 'late', code: 109 })
    store.getState().reset()
    expect(store.getState().load.status).toBe('reset')
  })

  test('the balance is a list of assets', () => {
    const store = createLoadStore<readonly (typeof balance)[]>()
    store.getState().receive([balance])
    expect(store.getState().load).toEqual({ status: 'received', data: [balance] })
  })

  test('an asset network status is OK, MAINTENANCE or DELISTED', () => {
    expect(assetNetworkStatus({ depositStatus: 'OK', withdrawalStatus: 'OK' })).toBe('OK')
    expect(assetNetworkStatus(asset)).toBe('MAINTENANCE')
    expect(assetNetworkStatus({ depositStatus: 'DELISTED', withdrawalStatus: 'MAINTENANCE' })).toBe(
      'DELISTED',
    )
  })
})

describe('spec §3, §9 fees', () => {
  test('fees default to maker 0.15, taker 0.25 and required 0, in percent', () => {
    expect(createFeesStore().getState().fees).toEqual({
      maker: '0.15',
      taker: '0.25',
      required: '0',
    })
    expect(defaultFees).toEqual({ maker: '0.15', taker: '0.25', required: '0' })
  })

  test('server fee fractions are multiplied by 100 on receipt', () => {
    const store = createFeesStore()
    store.getState().receive({ fees: { maker: '0.001', taker: '0.0035', volume: '5' } })
    expect(store.getState().fees).toEqual({ maker: '0.1', taker: '0.35', required: '0' })
    store.getState().receive(account)
    expect(store.getState().load).toEqual({
      status: 'received',
      data: { maker: '0.15', taker: '0.25', required: '0' },
    })
  })
})
