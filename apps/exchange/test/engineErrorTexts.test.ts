// One text per errorCode: the engine words its refusals (it depends on nothing) as the
// protocol's error catalogue does, so that an order refused by the engine and the same code
// answered by the exchange itself read the same.
import { ErrorCode, errorMessage } from '@polder/engine'
import { protocolError } from '@polder/protocol'
import { describe, expect, it } from 'vitest'

describe("the engine's error texts", () => {
  it("are the catalogue's, parameters filled in alike", () => {
    for (const code of Object.values(ErrorCode)) {
      // Each code's own parameters; the extra ones are ignored.
      const expected = protocolError(
        code as 205,
        { param: 'amount', a: 'amount', b: 'amountQuote' } as never,
      )
      const param = code === ErrorCode.incompatibleParameters ? 'amount or amountQuote' : 'amount'
      expect(errorMessage(code, param), String(code)).toBe(expected.body.error)
    }
  })
})
