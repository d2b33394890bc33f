// Sign-up counts a password's characters, not its UTF-16 code units (10 to 256, README "Browser
// sessions"), and says the rule in words for one too long as for one too short; the market
// list's 24-hour change rounds half away from zero for a fall as for a rise (a web API review);
// an address at .invalid, the exchange's own accounts', cannot be signed up for.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { percentChange } from '../src/api/webRoutes.ts'
import type { ExchangeServer } from '../src/server.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { webRequest } from './fixtures/webRequest.ts'

let server: ExchangeServer
let baseUrl: string

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
})
afterAll(() => server.close())

const signup = (email: string, password: string) =>
  webRequest(baseUrl, undefined, 'POST', '/exchange/auth/v1/signup', { email, password })

describe('sign-up password length (README: "a password outside 10 to 256 characters" is 400/205)', () => {
  it('refuses a password of 5 characters (5 emoji, 10 UTF-16 code units)', async () => {
    const answer = await signup('five@example.com', '😀😀😀😀😀')
    expect(answer.status).toBe(400)
    expect(answer.json.errorCode).toBe(205)
  })

  it('accepts a password of 200 characters (200 emoji, 400 UTF-16 code units)', async () => {
    expect((await signup('twohundred@example.com', '😀'.repeat(200))).status).toBe(201)
  })

  it('states the rule in words for a password of 257 characters', async () => {
    const answer = await signup('long@example.com', 'x'.repeat(257))
    expect(answer).toEqual({
      status: 400,
      json: { errorCode: 205, error: 'password must have 10 to 256 characters' },
    })
  })
})

describe("the exchange's own accounts (the simulator's, at .invalid)", () => {
  it("cannot be signed up for: an address at .invalid is no one's", async () => {
    // Before, a customer who signed up as simulator-maker@polder.invalid on a server started
    // without the simulator was given that account, and its funding, by the simulator's first
    // start (found by its email).
    for (const email of ['simulator-maker@polder.invalid', 'Someone@Else.Invalid'])
      expect(await signup(email, 'a long enough password')).toEqual({
        status: 400,
        json: { errorCode: 205, error: 'email is not a valid address' },
      })
    // Nor made by an admin (account create refuses it the same way).
    await expect(
      server.accounts.createAccount('simulator-taker@polder.invalid', 'a long enough password'),
    ).rejects.toThrow('email is not a valid address')
    // The exchange's own accounts are there, and only there.
    await expect(
      server.accounts.createAccount('house@example.com', 'a long enough password', 'exchange'),
    ).rejects.toThrow('an account of the exchange has an address at .invalid')
  })
})

describe('24 h change of the market list', () => {
  it('rounds half away from zero, as its doc says, symmetrically for falls and rises', () => {
    expect(percentChange(20_000, 20_001)).toBe('0.01')
    expect(percentChange(20_000, 19_999)).toBe('-0.01')
    expect(percentChange(20_000, 20_000)).toBe('0.00')
    expect(percentChange(30_000, 29_999)).toBe('0.00') // a third of a basis point
    expect(percentChange(3, 4)).toBe('33.33')
    expect(percentChange(3, 2)).toBe('-33.33')
    expect(percentChange(8, 9)).toBe('12.50')
    expect(percentChange(2 ** 52, 2 ** 53 - 1)).toBe('100.00')
  })
})
