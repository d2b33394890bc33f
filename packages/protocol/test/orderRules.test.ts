import { describe, expect, it } from 'vitest'
import {
  createOrderRequest,
  createOrderRuleViolations,
  privateCreateOrderRequest,
  privateUpdateOrderRequest,
  safeParse,
  updateOrderRequest,
} from '../src/index.ts'
import { orderId } from './fixtures.ts'

const base = { market: 'BTC-EUR', side: 'buy', operatorId: 1 }
const trigger = { triggerAmount: '4000', triggerType: 'price', triggerReference: 'lastTrade' }

/** [rule, body, expected errorCode or 'ok', expected wire message] */
const createCases: [string, object, number | 'ok', string?][] = [
  ['limit with amount and price', { orderType: 'limit', amount: '1', price: '3000' }, 'ok'],
  ['limit without price', { orderType: 'limit', amount: '1' }, 203, 'price parameter is required.'],
  [
    'limit without amount',
    { orderType: 'limit', price: '3000' },
    203,
    'amount parameter is required.',
  ],
  [
    'limit with amountQuote',
    { orderType: 'limit', amount: '1', price: '1', amountQuote: '5' },
    202,
    'amountQuote order parameter is not supported',
  ],
  ['market by amount', { orderType: 'market', amount: '1' }, 'ok'],
  ['market by amountQuote', { orderType: 'market', amountQuote: '50' }, 'ok'],
  [
    'market with both',
    { orderType: 'market', amount: '1', amountQuote: '50' },
    206,
    'Use either amount or amountQuote parameter, not both.',
  ],
  ['market with neither', { orderType: 'market' }, 203, 'amount parameter is required.'],
  [
    'market with a price',
    { orderType: 'market', amount: '1', price: '3000' },
    202,
    'price order parameter is not supported',
  ],
  [
    'postOnly on a market order',
    { orderType: 'market', amount: '1', postOnly: true },
    202,
    'postOnly order parameter is not supported',
  ],
  [
    'a cancel-on-disconnect group on a limit order',
    { orderType: 'limit', amount: '1', price: '1', codGroupId: 1000 },
    'ok',
  ],
  [
    'a cancel-on-disconnect group outside 1..1000',
    { orderType: 'limit', amount: '1', price: '1', codGroupId: 0 },
    205,
    'codGroupId parameter is invalid.',
  ],
  [
    'a cancel-on-disconnect group on a market order',
    { orderType: 'market', amount: '1', codGroupId: 1 },
    202,
    'codGroupId order parameter is not supported',
  ],
  [
    'postOnly false on a market order is tolerated',
    { orderType: 'market', amount: '1', postOnly: false },
    'ok',
  ],
  [
    'postOnly on a limit order',
    { orderType: 'limit', amount: '1', price: '1', postOnly: true },
    'ok',
  ],
  ['stopLoss with trigger fields', { orderType: 'stopLoss', amount: '1', ...trigger }, 'ok'],
  [
    'stopLoss without triggerAmount',
    { orderType: 'stopLoss', amount: '1', triggerType: 'price', triggerReference: 'lastTrade' },
    237,
    'triggerAmount parameter is required for stopLoss and takeProfit orders.',
  ],
  [
    'takeProfit without triggerReference',
    { orderType: 'takeProfit', amountQuote: '10', triggerAmount: '1', triggerType: 'price' },
    237,
  ],
  [
    'stopLossLimit without trigger fields',
    { orderType: 'stopLossLimit', amount: '1', price: '3000' },
    238,
    'triggerAmount parameter is required for stopLossLimit and takeProfitLimit orders.',
  ],
  [
    'takeProfitLimit with everything',
    { orderType: 'takeProfitLimit', amount: '1', price: '5000', ...trigger, postOnly: true },
    'ok',
  ],
  [
    'trigger fields on a limit order',
    { orderType: 'limit', amount: '1', price: '1', triggerAmount: '1' },
    202,
    'triggerAmount order parameter is not supported',
  ],
  [
    'disableMarketProtection true',
    { orderType: 'market', amount: '1', disableMarketProtection: true },
    205,
    'disableMarketProtection parameter is invalid.',
  ],
  [
    'every parameter ccxt and the SDK send',
    {
      orderType: 'limit',
      amount: '1',
      price: '1',
      timeInForce: 'GTC',
      selfTradePrevention: 'cancelBoth',
      clientOrderId: orderId,
      responseRequired: false,
      disableMarketProtection: false,
    },
    'ok',
  ],
  ['operatorId 0 (SDK 1.5.0)', { orderType: 'market', amount: '1', operatorId: 0 }, 'ok'],
  [
    'no operatorId (SDK 1.4.1)',
    { market: 'BTC-EUR', side: 'sell', operatorId: undefined, orderType: 'market', amount: '1' },
    'ok',
  ],
  [
    'clientOrderId that is not a UUID',
    { orderType: 'market', amount: '1', clientOrderId: 'mine' },
    205,
    'clientOrderId parameter is invalid.',
  ],
  ['amount zero', { orderType: 'market', amount: '0' }, 205, 'amount parameter is invalid.'],
]

describe('create-order rules of protocol §4.1', () => {
  it.each(createCases)('%s', (_rule, body, expected, message) => {
    const input = JSON.parse(JSON.stringify({ ...base, ...body }))
    for (const [schema, extra] of [
      [createOrderRequest, {}],
      [privateCreateOrderRequest, { action: 'privateCreateOrder', requestId: 3 }],
    ] as const) {
      const result = safeParse(schema, { ...extra, ...input }, { location: 'body' })
      if (expected === 'ok') {
        expect(result.success ? 'ok' : result.error.message).toBe('ok')
        continue
      }
      expect(result.success).toBe(false)
      if (result.success) continue
      expect(result.error.code).toBe(expected)
      if (message !== undefined) expect(result.error.body.error).toBe(message)
    }
  })

  it('the rules are usable on their own, with their codes', () => {
    expect(
      createOrderRuleViolations({ orderType: 'market', amount: '1', amountQuote: '2' }),
    ).toEqual([
      {
        errorCode: 206,
        param: 'amountQuote',
        message: 'use either amount or amountQuote, not both',
        messageParams: { param: 'amountQuote', a: 'amount', b: 'amountQuote' },
      },
    ])
    expect(createOrderRuleViolations({ orderType: 'limit', amount: '1', price: '2' })).toEqual([])
  })

  it('a missing field is reported before a rule', () => {
    const result = safeParse(createOrderRequest, {
      market: 'BTC-EUR',
      orderType: 'market',
      amount: '1',
      amountQuote: '1',
    })
    expect(result.success ? undefined : result.error.body.error).toBe('side parameter is required.')
  })
})

const updateCases: [string, object, number | 'ok'][] = [
  ['price by orderId', { orderId, price: '3001' }, 'ok'],
  ['amountRemaining by clientOrderId', { clientOrderId: orderId, amountRemaining: '0.5' }, 'ok'],
  ['ccxt editOrder body', { price: '1', amount: '2', orderId, operatorId: 1 }, 'ok'],
  ['neither orderId nor clientOrderId', { price: '3001' }, 203],
  ['nothing to change', { orderId }, 232],
  ['amount and amountRemaining together', { orderId, amount: '1', amountRemaining: '1' }, 236],
  ['an unknown parameter', { orderId, price: '1', side: 'buy' }, 201],
]

describe('update-order rules of protocol §3.2', () => {
  it.each(updateCases)('%s', (_rule, body, expected) => {
    for (const [schema, extra] of [
      [updateOrderRequest, {}],
      [privateUpdateOrderRequest, { action: 'privateUpdateOrder' }],
    ] as const) {
      const result = safeParse(
        schema,
        { ...extra, market: 'BTC-EUR', ...body },
        { location: 'body' },
      )
      if (expected === 'ok') expect(result.success ? 'ok' : result.error.message).toBe('ok')
      else expect(result.success ? 'ok' : result.error.code).toBe(expected)
    }
  })
})
