import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  bookEvent,
  bookResponse,
  createOrderRequest,
  decimalString,
  decimalStringLengthMax,
  nonNegativeDecimalString,
  order,
  parse,
  positiveDecimalString,
  safeParse,
} from '../src/index.ts'
import { order as orderSample } from './fixtures.ts'

/** Any decimal string in plain notation, including leading and trailing zeros. */
const decimalArbitrary = fc
  .tuple(
    fc.boolean(),
    fc.stringMatching(/^\d{1,20}$/),
    fc.option(fc.stringMatching(/^\d{1,20}$/), { nil: undefined }),
  )
  .map(
    ([negative, whole, fraction]) =>
      `${negative ? '-' : ''}${whole}${fraction === undefined ? '' : `.${fraction}`}`,
  )

describe('numbers travel as decimal strings', () => {
  it('any valid decimal string parses and re-serialises unchanged through JSON', () => {
    fc.assert(
      fc.property(decimalArbitrary, (value) => {
        const wire = JSON.stringify({ price: value })
        const parsed = parse(decimalString, (JSON.parse(wire) as { price: unknown }).price)
        expect(parsed).toBe(value)
        expect(JSON.stringify({ price: parsed })).toBe(wire)
      }),
    )
  })

  it('an order keeps every amount and price as the exact string received', () => {
    fc.assert(
      fc.property(
        decimalArbitrary.filter((value) => !value.startsWith('-') && /[1-9]/.test(value)),
        (amount) => {
          const body = { market: 'BTC-EUR', side: 'buy', orderType: 'limit', amount, price: amount }
          const wire = JSON.stringify(body)
          const parsed = parse(createOrderRequest, JSON.parse(wire))
          expect(JSON.stringify(parsed)).toBe(wire)
        },
      ),
    )
  })

  it('a book event round-trips byte for byte', () => {
    const wire =
      '{"event":"book","market":"BTC-EUR","nonce":61569870,"bids":[["9704.2","0"],["9703.7","0"],["9702.8","0.136674"]],"asks":[["9704.3","0.70075910"]]}'
    expect(JSON.stringify(parse(bookEvent, JSON.parse(wire)))).toBe(wire)
  })

  it('a response order round-trips with trailing zeros intact', () => {
    const sample = { ...orderSample, amountRemaining: '0.000', filledAmountQuote: '45.84038900' }
    const parsed = parse(order, sample)
    expect(parsed).toEqual(sample)
    expect([parsed.amountRemaining, parsed.filledAmountQuote]).toEqual(['0.000', '45.84038900'])
  })

  const numberWhereStringRequired: [string, unknown][] = [
    [
      'amount in a create-order body',
      { market: 'BTC-EUR', side: 'buy', orderType: 'market', amount: 1.5 },
    ],
    [
      'price in a create-order body',
      { market: 'BTC-EUR', side: 'buy', orderType: 'limit', amount: '1', price: 3000 },
    ],
  ]
  it.each(numberWhereStringRequired)('a JSON number is rejected: %s', (_name, body) => {
    const result = safeParse(createOrderRequest, body, { location: 'body' })
    expect(result.success).toBe(false)
    if (!result.success) {
      expect(result.error.code).toBe(205)
      expect(result.error.shortMessage).toMatch(/: expected a decimal string$/)
    }
  })

  it('a JSON number is rejected in a book level and an order response', () => {
    expect(
      safeParse(bookResponse, { market: 'BTC-EUR', nonce: 1, bids: [[1, '1']], asks: [] }).success,
    ).toBe(false)
    expect(safeParse(order, { ...orderSample, feePaid: 0.12 }).success).toBe(false)
  })

  const invalid = [
    '',
    '1e5',
    '1E-7',
    '+1',
    '.5',
    '5.',
    '1,5',
    ' 1',
    '0x10',
    'NaN',
    'Infinity',
    '--1',
    '1.2.3',
  ]
  it.each(invalid)('"%s" is not a decimal string', (value) => {
    expect(decimalString.safeParse(value).success).toBe(false)
  })

  it('bounds the length of a decimal string', () => {
    expect(decimalString.safeParse('1'.repeat(decimalStringLengthMax)).success).toBe(true)
    expect(decimalString.safeParse('1'.repeat(decimalStringLengthMax + 1)).success).toBe(false)
  })

  it('signs: non-negative refuses "-1", positive refuses zero in any spelling', () => {
    expect(decimalString.safeParse('-1').success).toBe(true)
    expect(nonNegativeDecimalString.safeParse('-1').success).toBe(false)
    expect(nonNegativeDecimalString.safeParse('0').success).toBe(true)
    for (const zero of ['0', '0.0', '000.000']) {
      expect(positiveDecimalString.safeParse(zero).success).toBe(false)
    }
    expect(positiveDecimalString.safeParse('0.00000001').success).toBe(true)
  })
})
