import { describe, expect, it } from 'vitest'
import {
  authErrorMessageKey,
  authMessageKeys,
  errorCatalogue,
  InvalidRequestIdTokenError,
  isErrorCode,
  MissingErrorParameterError,
  ProtocolError,
  protocolError,
  UnknownErrorCodeError,
  ValidationError,
  wsErrorReply,
} from '../src/index.ts'

describe('error catalogue texts clients depend on', () => {
  it('105 carries the ban expiry the SDK parses after " at "', () => {
    const reply = protocolError(105, { expiryInMs: 1548175260000 })
    expect(reply).toEqual({
      status: 429,
      body: {
        errorCode: 105,
        error:
          'Your IP or API key has been banned for not respecting the rate limit. The ban expires at 1548175260000.',
      },
    })
    // The SDK: error.split(' at ')[1].split('.')[0]
    expect(reply.body.error.split(' at ')[1]?.split('.')[0]).toBe('1548175260000')
  })

  it('203 and 205 name the parameter the way ccxt matches them', () => {
    expect(protocolError(203, { param: 'symbol' }).body.error).toBe('symbol parameter is required.')
    expect(protocolError(205, { param: 'amount' })).toEqual({
      status: 400,
      body: { errorCode: 205, error: 'amount parameter is invalid.' },
    })
  })

  it.each([
    [216, 400, 'You do not have sufficient balance to complete this operation.'],
    [
      233,
      400,
      'Order must be active (status new or partiallyFilled) to allow updating/cancelling.',
    ],
    [
      240,
      404,
      'No order found. Please be aware that simultaneously updating the same order may return this error.',
    ],
    [300, 403, 'Authentication is required for this endpoint.'],
    [301, 403, 'API Key must be of length 64.'],
    [305, 403, 'No active API key found.'],
    [309, 403, 'The signature is invalid.'],
  ] as const)('%i: %i "%s"', (code, status, text) => {
    expect(protocolError(code)).toEqual({ status, body: { errorCode: code, error: text } })
  })

  it('440 and 441 (Polder) name the limit, its amount and what is left', () => {
    expect(
      protocolError(440, { scope: 'PayPal', limitEur: '5000', remainingEur: '1200.50' }),
    ).toEqual({
      status: 400,
      body: {
        errorCode: 440,
        error:
          'This deposit exceeds the PayPal daily deposit limit of 5000 EUR; 1200.50 EUR is left in the last 24 hours.',
      },
    })
    expect(
      protocolError(441, { scope: 'crypto', limitEur: '100000', remainingEur: '0.00' }).body.error,
    ).toBe(
      'This withdrawal exceeds the crypto daily withdrawal limit of 100000 EUR; 0.00 EUR is left in the last 24 hours.',
    )
  })

  it('444 (Polder) names how many deposits a day and when the next may start', () => {
    expect(protocolError(444, { count: '100', at: '2026-11-29T10:00:00.000Z' })).toEqual({
      status: 400,
      body: {
        errorCode: 444,
        error:
          'At most 100 deposits can be started in 24 hours; the next one can be started at 2026-11-29T10:00:00.000Z.',
      },
    })
  })

  it('206 names both parameters', () => {
    expect(protocolError(206, { a: 'amount', b: 'amountQuote' }).body.error).toBe(
      'Use either amount or amountQuote parameter, not both.',
    )
  })

  it('every message parameter of every entry is a {name} placeholder', () => {
    for (const [code, entry] of Object.entries(errorCatalogue)) {
      expect(entry.message, code).not.toMatch(/\$\{|\{\s*\}/)
    }
  })

  it('refuses an unknown code and a missing parameter with named errors', () => {
    expect(isErrorCode(999)).toBe(false)
    expect(() => protocolError(999 as 101)).toThrow(UnknownErrorCodeError)
    expect(() => (protocolError as (code: number, p: object) => unknown)(205, {})).toThrow(
      MissingErrorParameterError,
    )
  })

  it('wsErrorReply adds action and requestId to the body', () => {
    expect(wsErrorReply('privateCreateOrder', protocolError(216), 7)).toEqual({
      action: 'privateCreateOrder',
      requestId: 7,
      errorCode: 216,
      error: 'You do not have sufficient balance to complete this operation.',
    })
    expect(wsErrorReply('getTime', protocolError(101))).not.toHaveProperty('requestId')
  })
})

describe('spec §8 auth message keys', () => {
  it('313 and 401 map to hermes_auth_invalid_session, whatever the server says', () => {
    expect(authErrorMessageKey(313)).toBe('hermes_auth_invalid_session')
    expect(authErrorMessageKey(401, 'Session expired')).toBe('hermes_auth_invalid_session')
  })

  it('other codes show the server message, or hermes_auth_unknown without one', () => {
    expect(authErrorMessageKey(309, 'The signature is invalid.')).toBe('The signature is invalid.')
    expect(authErrorMessageKey(309)).toBe('hermes_auth_unknown')
    expect(authErrorMessageKey(undefined, '  ')).toBe('hermes_auth_unknown')
  })

  it('defines the three keys, hermes_unauthenticated included', () => {
    expect([...authMessageKeys]).toEqual([
      'hermes_auth_invalid_session',
      'hermes_auth_unknown',
      'hermes_unauthenticated',
    ])
  })
})

describe('error classes', () => {
  it('ProtocolError carries shortMessage, details, cause and code', () => {
    const cause = new Error('root')
    const error = new ProtocolError('Short.', { code: 205, details: 'more', cause })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('ProtocolError')
    expect(error.shortMessage).toBe('Short.')
    expect(error.details).toBe('more')
    expect(error.cause).toBe(cause)
    expect(error.code).toBe(205)
    expect(error.message).toBe('Short.\n\nDetails: more')
  })

  it('every library error is a named ProtocolError', () => {
    const errors = [
      new UnknownErrorCodeError(999),
      new MissingErrorParameterError(205, 'param'),
      new InvalidRequestIdTokenError('1.5'),
      new ValidationError([
        {
          path: ['amount'],
          param: 'amount',
          message: 'required',
          errorCode: 203,
          messageParams: {},
        },
      ]),
    ]
    expect(errors.map((error) => error.name)).toEqual([
      'UnknownErrorCodeError',
      'MissingErrorParameterError',
      'InvalidRequestIdTokenError',
      'ValidationError',
    ])
    for (const error of errors) expect(error).toBeInstanceOf(ProtocolError)
    expect(errors[3]?.message).toBe('amount: required\n\nDetails: amount: required')
  })
})
