import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  formatLedgerUnits,
  InsufficientBalanceError,
  Ledger,
  toLedgerUnits,
} from '../src/ledger/ledger.ts'

const eur = (euros: number) => toLedgerUnits(Math.round(euros * 100), 2)
const btc = (units: number) => toLedgerUnits(units, 8)

describe('ledger', () => {
  it('a deposit credits available and is balanced by the external account', () => {
    const ledger = new Ledger()
    const entry = ledger.deposit(1, 'EUR', eur(100), 'dep-1', 0)
    expect(ledger.balance(1, 'EUR')).toEqual({ available: eur(100), inOrder: 0n })
    expect(entry.postings.reduce((sum, posting) => sum + posting.delta, 0n)).toBe(0n)
    expect(ledger.checkInvariant().get('EUR')).toEqual({
      customers: eur(100),
      fees: 0n,
      netDeposits: eur(100),
    })
  })

  it('hold and release move funds between available and inOrder', () => {
    const ledger = new Ledger()
    ledger.deposit(1, 'EUR', eur(100), 'dep', 0)
    ledger.hold(1, 'EUR', eur(30), 'order-1', 0)
    expect(ledger.balance(1, 'EUR')).toEqual({ available: eur(70), inOrder: eur(30) })
    ledger.release(1, 'EUR', eur(10), 'order-1', 0)
    expect(ledger.balance(1, 'EUR')).toEqual({ available: eur(80), inOrder: eur(20) })
  })

  it('refuses to overdraw and leaves every balance as it was', () => {
    const ledger = new Ledger()
    ledger.deposit(1, 'EUR', eur(10), 'dep', 0)
    expect(() => ledger.hold(1, 'EUR', eur(10.01), 'order', 0)).toThrow(InsufficientBalanceError)
    expect(() => ledger.withdraw(1, 'EUR', eur(11), 'wd', 0)).toThrow(InsufficientBalanceError)
    expect(ledger.balance(1, 'EUR')).toEqual({ available: eur(10), inOrder: 0n })
    // The next entry id shows the refused movements posted nothing.
    expect(ledger.deposit(1, 'EUR', eur(1), 'dep', 0).entryId).toBe(2)
  })

  it('settles a fill: base to the buyer, quote to the seller, both fees to the fee account', () => {
    const ledger = new Ledger()
    ledger.deposit(1, 'EUR', eur(1000), 'dep', 0)
    ledger.deposit(2, 'BTC', btc(100_000_000), 'dep', 0)
    ledger.hold(1, 'EUR', eur(501.25), 'buy', 0)
    ledger.hold(2, 'BTC', btc(1_000_000), 'sell', 0)
    ledger.settleFill({
      reference: 'fill-1',
      timestampMs: 0,
      base: 'BTC',
      quote: 'EUR',
      buyer: 1,
      seller: 2,
      baseAmount: btc(1_000_000),
      quoteAmount: eur(500),
      buyerFee: eur(1.25),
      sellerFee: eur(0.75),
    })
    expect(ledger.balance(1, 'BTC')).toEqual({ available: btc(1_000_000), inOrder: 0n })
    expect(ledger.balance(1, 'EUR')).toEqual({ available: eur(498.75), inOrder: 0n })
    expect(ledger.balance(2, 'EUR')).toEqual({ available: eur(499.25), inOrder: 0n })
    expect(ledger.balance('fees', 'EUR').available).toBe(eur(2))
    expect(ledger.checkInvariant().get('EUR')).toEqual({
      customers: eur(998),
      fees: eur(2),
      netDeposits: eur(1000),
    })
  })

  it('formats ledger units exactly, rounding down to the asset decimals', () => {
    expect(formatLedgerUnits(eur(1234.5), 2)).toBe('1234.50')
    expect(formatLedgerUnits(btc(1), 8)).toBe('0.00000001')
    expect(formatLedgerUnits(btc(1), 2)).toBe('0.00')
    expect(formatLedgerUnits(0n, 0)).toBe('0')
    expect(formatLedgerUnits(toLedgerUnits(7n, 18), 18)).toBe('0.000000000000000007')
    expect(formatLedgerUnits(-eur(0.5), 2)).toBe('-0.50')
  })

  it('refuses decimals outside 0 to 18, or not whole, in both directions', () => {
    for (const decimals of [-1, 19, 2.5]) {
      expect(() => toLedgerUnits(1, decimals)).toThrow(RangeError)
      expect(() => formatLedgerUnits(1n, decimals)).toThrow(RangeError)
    }
  })

  it('property: any sequence of movements keeps customers + fees = deposits − withdrawals', () => {
    const accounts = [1, 2, 3]
    const operation = fc.oneof(
      fc.record({
        op: fc.constant('deposit'),
        account: fc.constantFrom(...accounts),
        amount: fc.bigInt({ min: 1n, max: 1000n }),
      }),
      fc.record({
        op: fc.constant('withdraw'),
        account: fc.constantFrom(...accounts),
        amount: fc.bigInt({ min: 1n, max: 1000n }),
      }),
      fc.record({
        op: fc.constant('hold'),
        asset: fc.constantFrom('EUR', 'BTC'),
        account: fc.constantFrom(...accounts),
        amount: fc.bigInt({ min: 1n, max: 1000n }),
      }),
      fc.record({
        op: fc.constant('release'),
        account: fc.constantFrom(...accounts),
        amount: fc.bigInt({ min: 1n, max: 1000n }),
      }),
      fc.record({
        op: fc.constant('fill'),
        buyer: fc.constantFrom(...accounts),
        seller: fc.constantFrom(...accounts),
        base: fc.bigInt({ min: 1n, max: 300n }),
        quote: fc.bigInt({ min: 1n, max: 1000n }),
        fee: fc.bigInt({ min: 0n, max: 10n }),
      }),
    )
    let fillsSettled = 0
    fc.assert(
      fc.property(fc.array(operation, { minLength: 20, maxLength: 60 }), (operations) => {
        const ledger = new Ledger()
        for (const operation of operations) {
          const before = [...accounts].map((account) => [
            ledger.balance(account, 'EUR'),
            ledger.balance(account, 'BTC'),
          ])
          try {
            switch (operation.op) {
              case 'deposit':
                ledger.deposit(operation.account, 'EUR', operation.amount, 'd', 0)
                ledger.deposit(operation.account, 'BTC', operation.amount, 'd', 0)
                break
              case 'withdraw':
                ledger.withdraw(operation.account, 'EUR', operation.amount, 'w', 0)
                break
              case 'hold':
                ledger.hold(operation.account, operation.asset, operation.amount, 'h', 0)
                break
              case 'release':
                ledger.release(operation.account, 'EUR', operation.amount, 'r', 0)
                break
              case 'fill': {
                // Sized from what the two sides hold, sometimes a little more (then refused).
                const baseHeld = ledger.balance(operation.seller, 'BTC').inOrder
                const quoteHeld = ledger.balance(operation.buyer, 'EUR').inOrder
                const baseAmount = (baseHeld * operation.base) / 270n
                const quotePaid = (quoteHeld * operation.quote) / 900n
                const fee = operation.fee < quotePaid / 2n ? operation.fee : 0n
                if (baseAmount === 0n || quotePaid - fee <= 0n) break
                ledger.settleFill({
                  reference: 'f',
                  timestampMs: 0,
                  base: 'BTC',
                  quote: 'EUR',
                  buyer: operation.buyer,
                  seller: operation.seller,
                  baseAmount,
                  quoteAmount: quotePaid - fee,
                  buyerFee: fee,
                  sellerFee: fee,
                })
                fillsSettled += 1
              }
            }
          } catch (error) {
            if (!(error instanceof InsufficientBalanceError)) throw error
            // A refused movement changes nothing.
            expect(
              [...accounts].map((account) => [
                ledger.balance(account, 'EUR'),
                ledger.balance(account, 'BTC'),
              ]),
            ).toEqual(before)
          }
          ledger.checkInvariant()
        }
      }),
      { seed: 20261122, numRuns: 300 },
    )
    expect(fillsSettled).toBeGreaterThan(10) // the stream really exercises settlement
  })
})
