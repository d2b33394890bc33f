import { describe, expect, test } from 'vitest'
import {
  decimalsOf,
  feeFor,
  formatDecimal,
  marketSpecFromConfig,
  orderToWire,
  parseBigDecimal,
  parseDecimal,
  placeOrderFromWire,
  significantDigits,
  updateOrderFromWire,
} from '../src/index.ts'
import { tst } from './helpers.ts'

describe('parseDecimal', () => {
  test.each([
    ['0', 2, 0],
    ['1', 2, 100],
    ['1.5', 2, 150],
    ['1.50', 2, 150],
    ['0.01', 2, 1],
    ['123456.789', 3, 123_456_789],
    ['1.5000', 2, 150],
    ['7', 0, 7],
    ['9007199254740991', 0, Number.MAX_SAFE_INTEGER],
  ])('%s at %i decimals is %i units', (text, decimals, units) => {
    expect(parseDecimal(text, decimals)).toEqual({ ok: true, units })
  })

  test('too many decimals is error 429, never a rounding', () => {
    expect(parseDecimal('1.505', 2)).toMatchObject({ ok: false, errorCode: 429 })
    expect(parseDecimal('0.001', 2)).toMatchObject({ ok: false, errorCode: 429 })
    expect(parseDecimal('1.5', 0)).toMatchObject({ ok: false, errorCode: 429 })
  })

  test.each([
    '1e5',
    '1E5',
    '+1',
    '.5',
    '5.',
    '01',
    ' 1',
    '1 ',
    '',
    '1,5',
    '0x10',
    'NaN',
    'Infinity',
    '--1',
    '1.2.3',
  ])('%j is not a plain decimal (205)', (text) => {
    expect(parseDecimal(text, 8)).toMatchObject({ ok: false, errorCode: 205 })
  })

  test('negative values only when allowed', () => {
    expect(parseDecimal('-1.25', 2)).toMatchObject({ ok: false, errorCode: 205 })
    expect(parseDecimal('-1.25', 2, { allowNegative: true })).toEqual({ ok: true, units: -125 })
    expect(parseDecimal('-0', 2, { allowNegative: true })).toEqual({ ok: true, units: 0 })
  })

  test('values beyond safe integers are refused (205)', () => {
    expect(parseDecimal('9007199254740992', 0)).toMatchObject({ ok: false, errorCode: 205 })
    expect(parseDecimal('100000000000', 8)).toMatchObject({ ok: false, errorCode: 205 })
  })

  test('non-strings are refused', () => {
    expect(parseDecimal(5 as unknown as string, 2)).toMatchObject({ ok: false, errorCode: 205 })
  })
})

describe('parseBigDecimal', () => {
  test('holds amounts past safe integers exactly', () => {
    // 100 million SHIB at its 8 decimals: 10^16 units, about 1,100 euros.
    expect(parseBigDecimal('100000000', 8)).toEqual({ ok: true, units: 10n ** 16n })
    expect(parseBigDecimal('46000000000.12345678', 8)).toEqual({
      ok: true,
      units: 4_600_000_000_012_345_678n,
    })
    expect(parseBigDecimal('9007199254740993', 0)).toEqual({ ok: true, units: 9007199254740993n })
  })

  test('refuses as parseDecimal does', () => {
    expect(parseBigDecimal('1.505', 2)).toMatchObject({ ok: false, errorCode: 429 })
    expect(parseBigDecimal('1e20', 2)).toMatchObject({ ok: false, errorCode: 205 })
    expect(parseBigDecimal('-1', 2)).toMatchObject({ ok: false, errorCode: 205 })
    expect(parseBigDecimal('-1.25', 2, { allowNegative: true })).toEqual({ ok: true, units: -125n })
    expect(parseBigDecimal('1'.repeat(65), 0)).toMatchObject({ ok: false, errorCode: 205 })
  })
})

describe('formatDecimal', () => {
  test.each([
    [150, 2, '1.50'],
    [1, 2, '0.01'],
    [0, 2, '0.00'],
    [0, 0, '0'],
    [5, 0, '5'],
    [-3, 3, '-0.003'],
    [123_456_789, 3, '123456.789'],
    [Number.MAX_SAFE_INTEGER, 8, '90071992.54740991'],
  ])('%i units at %i decimals is %s (fixed width, plain notation)', (units, decimals, text) => {
    expect(formatDecimal(units, decimals)).toBe(text)
  })

  test('round-trips with parseDecimal', () => {
    for (const units of [0, 1, 9, 10, 99, 100, 12_345, 1_000_000_007]) {
      for (const decimals of [0, 1, 2, 8]) {
        expect(parseDecimal(formatDecimal(units, decimals), decimals)).toEqual({ ok: true, units })
      }
    }
  })

  test('refuses a non-integer', () => {
    expect(() => formatDecimal(1.5, 2)).toThrow(RangeError)
  })
})

describe('scales and digits', () => {
  test('decimalsOf a tick size ignores trailing zeros', () => {
    expect(decimalsOf('0.01')).toBe(2)
    expect(decimalsOf('5')).toBe(0)
    expect(decimalsOf('0.50')).toBe(1)
    expect(() => decimalsOf('1e-2')).toThrow(RangeError)
  })

  test('significant digits ignore leading and trailing zeros', () => {
    expect(significantDigits(1200)).toBe(2)
    expect(significantDigits(12)).toBe(2)
    expect(significantDigits(10_203)).toBe(5)
    expect(significantDigits(0)).toBe(0)
  })

  test('feeFor rounds up to a whole step, rebates towards zero, and stays exact beyond 2^53', () => {
    expect(feeFor(50_000, 2_500, 1)).toBe(125)
    expect(feeFor(50_001, 2_500, 1)).toBe(126)
    expect(feeFor(50_001, -1_000, 1)).toBe(-50)
    expect(feeFor(56_211, 2_500, 1_000)).toBe(1_000)
    expect(feeFor(0, 2_500, 1)).toBe(0)
    // 9e15 × 2500 exceeds 2^53: computed with bigint, still exact.
    expect(feeFor(9_000_000_000_000_001, 2_500, 1)).toBe(22_500_000_000_001)
  })
})

describe('wire edge', () => {
  const spec = marketSpecFromConfig({
    ...tst,
    tickSize: '0.05',
    quantityDecimals: 3,
    minOrderInBaseAsset: '0.001',
    maxOrderInBaseAsset: '1000',
  })
  const context = {
    timestamp: 1,
    orderId: 'o1',
    accountId: 7,
    makerFeePpm: 1_000,
    takerFeePpm: 2_500,
  }

  test('converts wire parameters into integer units', () => {
    const command = placeOrderFromWire(
      spec,
      { side: 'buy', orderType: 'limit', amount: '1.5', price: '10.05', operatorId: 3 },
      context,
    )
    expect(command).toMatchObject({
      type: 'placeOrder',
      market: 'TST-EUR',
      amount: 1_500,
      price: 1_005,
      operatorId: 3,
      accountId: 7,
    })
    const byQuote = placeOrderFromWire(
      spec,
      { side: 'buy', orderType: 'market', amountQuote: '12.34' },
      context,
    )
    // Quote units at 5 decimals (2 price + 3 quantity).
    expect(byQuote).toMatchObject({ amountQuote: 1_234_000 })
  })

  test('too many decimals is 429, a malformed number 205, each naming the parameter', () => {
    expect(
      placeOrderFromWire(
        spec,
        { side: 'buy', orderType: 'limit', amount: '1.0001', price: '1' },
        context,
      ),
    ).toMatchObject({ errorCode: 429, error: 'amount parameter has too many decimal digits.' })
    expect(
      placeOrderFromWire(
        spec,
        { side: 'buy', orderType: 'limit', amount: '1', price: '1e3' },
        context,
      ),
    ).toMatchObject({ errorCode: 205, error: 'price parameter is invalid.' })
    expect(
      updateOrderFromWire(
        spec,
        { orderId: 'x', amountRemaining: '0.0001' },
        { timestamp: 1, accountId: 7 },
      ),
    ).toMatchObject({ errorCode: 429 })
  })

  test('formats an order state with the market scales', () => {
    const wire = orderToWire(spec, {
      orderId: 'o1',
      clientOrderId: null,
      market: 'TST-EUR',
      accountId: 7,
      operatorId: 0,
      created: 1,
      updated: 2,
      status: 'partiallyFilled',
      side: 'buy',
      orderType: 'limit',
      amount: 1_500,
      amountRemaining: 500,
      amountQuote: null,
      amountQuoteRemaining: null,
      price: 1_005,
      triggerAmount: null,
      triggerType: null,
      triggerReference: null,
      filledAmount: 1_000,
      filledAmountQuote: 1_005_000,
      feePaid: 3_000,
      feeCurrency: 'EUR',
      selfTradePrevention: 'decrementAndCancel',
      visible: true,
      timeInForce: 'GTC',
      postOnly: false,
      disableMarketProtection: false,
      restatementReason: null,
    })
    expect(wire).toMatchObject({
      amount: '1.500',
      amountRemaining: '0.500',
      price: '10.05',
      filledAmount: '1.000',
      filledAmountQuote: '10.05000',
      feePaid: '0.03000',
      feeCurrency: 'EUR',
    })
    expect(wire).not.toHaveProperty('amountQuote')
  })
})
