import { describe, expect, it } from 'vitest'
import {
  encodeWsMessage,
  InvalidRequestIdTokenError,
  parse,
  readRequestIdToken,
  requestIdEcho,
  signingString,
  toProtocolBookSubscription,
  websocketSigningPath,
  wsRequest,
} from '../src/index.ts'

describe('requestId beyond 2^53 (protocol §6.1)', () => {
  const raw = '{"action":"getTime","requestId":17000000000000001234}'

  it('the schema accepts the parsed number', () => {
    expect(parse(wsRequest, JSON.parse(raw))).toMatchObject({ action: 'getTime' })
  })

  it('JSON.parse rounds it, so the raw token is what a server echoes', () => {
    expect(String((JSON.parse(raw) as { requestId: number }).requestId)).not.toBe(
      '17000000000000001234',
    )
    const token = readRequestIdToken(raw)
    expect(token).toBe('17000000000000001234')
    expect(encodeWsMessage({ action: 'getTime', response: { time: 1 } }, token)).toBe(
      '{"action":"getTime","requestId":17000000000000001234,"response":{"time":1}}',
    )
  })

  it('only the top-level requestId counts, and strings cannot fool the scanner', () => {
    expect(readRequestIdToken('{"a":"\\"requestId\\":5","x":{"requestId":6},"requestId": 7}')).toBe(
      '7',
    )
    expect(readRequestIdToken('{"action":"getTime"}')).toBeUndefined()
    expect(readRequestIdToken('{"requestId":"7"}')).toBeUndefined()
    expect(readRequestIdToken('{"requestId":1.5}')).toBeUndefined()
    expect(readRequestIdToken('[{"requestId":1}]')).toBeUndefined()
    expect(readRequestIdToken('{"requestId":1e3}')).toBeUndefined()
  })

  it('reads a key written with escapes as the key it names', () => {
    expect(readRequestIdToken('{"action":"getTime","request\\u0049d":12}')).toBe('12')
    expect(readRequestIdToken('{"request\\u0049d":12,"requestIdx":13}')).toBe('12')
    expect(readRequestIdToken('{"requestIdx":13,"\\u0072equestI":14}')).toBeUndefined()
  })

  it('serialises without a token, and refuses a token that is not an integer', () => {
    expect(encodeWsMessage({ action: 'getTime', requestId: 7, response: { time: 1 } })).toBe(
      '{"action":"getTime","requestId":7,"response":{"time":1}}',
    )
    expect(encodeWsMessage({ action: 'x' }, '9')).toBe('{"action":"x","requestId":9}')
    expect(() => encodeWsMessage({ action: 'x' }, '1,"error":"x"')).toThrow(
      InvalidRequestIdTokenError,
    )
  })

  it('serialises an error to a message without an action with the token first', () => {
    expect(encodeWsMessage({ errorCode: 203 }, '17000000000000001234')).toBe(
      '{"requestId":17000000000000001234,"errorCode":203}',
    )
  })
})

describe('the requestId a reply echoes (protocol §6.1)', () => {
  const echo = (text: string) =>
    requestIdEcho(text, (JSON.parse(text) as { requestId: number }).requestId)

  it('is the raw token when it is an integer one', () => {
    expect(echo('{"requestId":17000000000000001234}')).toBe('17000000000000001234')
  })

  it('is the parsed number when the client wrote it another way', () => {
    expect(echo('{"requestId":1e5}')).toBe('100000')
    expect(echo('{"requestId":7.0}')).toBe('7')
    expect(echo('{"requestId":9007199254740991e0}')).toBe('9007199254740991')
  })

  it('is the value JSON.parse kept when the key is repeated', () => {
    expect(echo('{"requestId":5,"requestId":1e5}')).toBe('100000')
  })

  it('is none when the parse may have rounded the number the client wrote', () => {
    expect(echo('{"requestId":123456789012345678901}')).toBeUndefined()
    expect(echo('{"requestId":1.5e17}')).toBeUndefined()
  })
})

describe('signing strings (protocol §2.1, §2.2)', () => {
  it('match the reference test vectors', () => {
    expect(
      signingString(
        1548172481125,
        'post',
        '/v2/order',
        '{"market":"BTC-EUR","side":"buy","price":"5000","amount":"1.23","orderType":"limit"}',
      ),
    ).toBe(
      '1548172481125POST/v2/order{"market":"BTC-EUR","side":"buy","price":"5000","amount":"1.23","orderType":"limit"}',
    )
    expect(signingString('1548175200641', 'GET', websocketSigningPath)).toBe(
      '1548175200641GET/v2/websocket',
    )
  })
})

describe('spec socket names', () => {
  it('subscribeToBook and unsubscribeFromBook become protocol subscribe/unsubscribe of book', () => {
    const subscribe = toProtocolBookSubscription('subscribeToBook', ['BTC-EUR'])
    expect(subscribe).toEqual({
      action: 'subscribe',
      channels: [{ name: 'book', markets: ['BTC-EUR'] }],
    })
    expect(parse(wsRequest, subscribe)).toEqual(subscribe)
    expect(toProtocolBookSubscription('unsubscribeFromBook', ['ETH-EUR']).action).toBe(
      'unsubscribe',
    )
  })
})
