import type {
  AccountResponse,
  Asset,
  Balance,
  Market,
  Order,
  PrivateTrade,
  PublicTrade,
  Ticker24h,
  Ticker24hEntry,
} from '@polder/protocol'
import { orderId } from './fixtures.ts'

// Response payloads shaped after protocol §4 (valid for the @polder/protocol schemas).

export const market: Market = {
  market: 'BTC-EUR',
  status: 'trading',
  base: 'BTC',
  quote: 'EUR',
  pricePrecision: 5,
  minOrderInBaseAsset: '0.0001',
  minOrderInQuoteAsset: '5',
  maxOrderInBaseAsset: '1000000000',
  maxOrderInQuoteAsset: '1000000000',
  orderTypes: ['market', 'limit'],
  quantityDecimals: 8,
  notionalDecimals: 2,
  tickSize: '1',
  maxOpenOrders: 100,
  feeCategory: 'A',
}

export const asset: Asset = {
  symbol: 'BTC',
  name: 'Bitcoin',
  decimals: 8,
  depositFee: '0',
  depositConfirmations: 10,
  depositStatus: 'OK',
  withdrawalFee: '0.000001',
  withdrawalMinAmount: '0.000001',
  withdrawalStatus: 'MAINTENANCE',
  networks: ['Mainnet'],
  message: 'node upgrade',
}

export const publicTrade: PublicTrade = {
  id: 'trade-1',
  timestamp: 1_700_000_000_000,
  amount: '0.1',
  price: '30000',
  side: 'buy',
}

export const privateTrade: PrivateTrade = {
  id: 'trade-2',
  orderId,
  timestamp: 1_700_000_000_000,
  market: 'BTC-EUR',
  side: 'sell',
  amount: '0.1',
  price: '30000',
  taker: true,
  fee: '7.5',
  feeCurrency: 'EUR',
  settled: true,
}

export const balance: Balance = { symbol: 'EUR', available: '1000.5', inOrder: '20' }

export const openOrder: Order = {
  orderId,
  market: 'BTC-EUR',
  created: 1_000,
  updated: 1_000,
  status: 'new',
  side: 'buy',
  orderType: 'limit',
  amount: '1',
  amountRemaining: '1',
  price: '30000',
  onHold: '30000',
  onHoldCurrency: 'EUR',
  filledAmount: '0',
  filledAmountQuote: '0',
  feePaid: '0',
  feeCurrency: 'EUR',
  fills: [],
  selfTradePrevention: 'decrementAndCancel',
  visible: true,
  timeInForce: 'GTC',
  postOnly: false,
}

export const account: AccountResponse = {
  fees: { taker: '0.0025', maker: '0.0015', volume: '10000.00' },
}

export const ticker24h: Ticker24h = {
  market: 'BTC-EUR',
  startTimestamp: 1,
  timestamp: 2,
  open: '8000',
  openTimestamp: 1,
  high: '8200',
  low: '7900',
  last: '8100',
  closeTimestamp: 2,
  bid: '8099',
  bidSize: '0.5',
  ask: '8101',
  askSize: '0.25',
  volume: '123.45',
  volumeQuote: '999999.99',
}

export function tickerEntry(overrides: Partial<Ticker24hEntry> = {}): Ticker24hEntry {
  return {
    market: 'BTC-EUR',
    open: '8000',
    high: '8200',
    low: '7900',
    last: '8400',
    volume: '1',
    volumeQuote: '8400',
    bid: '8399',
    bidSize: '1',
    ask: '8401',
    askSize: '1',
    timestamp: 3,
    ...overrides,
  }
}
