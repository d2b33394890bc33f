// What an open order holds covers every fill it can still make, as the engine charges them: each
// fill pays what brings the order's fees to the fee of its fills so far (each role at its rate;
// for orders journaled before per-role fees, this fill's rate on the filled total), capped at
// the fill's own notional. So a rest can owe more than the fee of the rest alone when an
// earlier fill paid less (a dust fill whose fee was capped; under the old rules, maker fills
// before an update that makes the order a taker). Held too little, such a fill would spend more
// than held and halt the exchange.
import { orderToWire } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import { type CoreCommand, ExchangeCore } from '../src/core/exchangeCore.ts'
import { btc, coreWithMarket, deposit, eur, order, sats } from './fixtures/coreWithMarket.ts'

/**
 * A limit buy of 1 BTC at 50,000 (account 1), half of it filled as maker; placed with the fee
 * rules of orders now, or (`feeRules` undefined) as journaled before per-role fees.
 */
function restFilledHalfAsMaker(feeRules: 2 | undefined) {
  const core = coreWithMarket()
  deposit(core, 1, 'EUR', eur(100_000))
  deposit(core, 2, 'BTC', btc(10))
  const buy = order(1, { price: 50_000, amount: sats(1), feeRules })
  expect(core.apply(buy).ok).toBe(true)
  expect(core.apply(order(2, { side: 'sell', price: 50_000, amount: sats(0.5) })).ok).toBe(true)
  return { core, buy }
}

/** Account 1's update of `orderId` to `price`; `holdRules` as made now, or none as before. */
function priceUpdate(orderId: string, price: number, rules: { holdRules?: 2 }): CoreCommand {
  return {
    type: 'updateOrder',
    timestamp: 5_000,
    market: 'BTC-EUR',
    accountId: 1,
    orderId,
    price,
    ...rules,
  }
}

describe('the hold of an open order', () => {
  it.each([
    ['per role', 2, eur(100_000 - 25_000 - 37.5 - 25_500 - 63.75)],
    // The old rules: 0.25% of the whole 50,500 EUR (126.25) less the 37.50 the maker fill paid.
    ['as journaled before', undefined, eur(100_000 - 25_000 - 37.5 - 25_500 - 88.75)],
  ] as const)(
    'covers the taker fills of an update that makes a rest partly filled as maker cross (fees %s)',
    (_rules, feeRules, available) => {
      const { core, buy } = restFilledHalfAsMaker(feeRules)
      expect(core.apply(order(2, { side: 'sell', price: 51_000, amount: sats(1) })).ok).toBe(true)
      const update = priceUpdate(buy.orderId, 51_000, { holdRules: 2 })
      expect(() => core.apply(update)).not.toThrow()
      // Filled: nothing open, nothing held, and the fees as charged.
      expect(core.engine.openOrders('BTC-EUR', 1)).toEqual([])
      expect(core.heldFor('BTC-EUR', buy.orderId)).toBe(0n)
      expect(core.ledger.balance(1, 'EUR')).toEqual({ available, inOrder: 0n })
      core.ledger.checkInvariant()
    },
  )

  it('holds no more than its rest can still spend after maker fills (fees per role)', () => {
    const { core, buy } = restFilledHalfAsMaker(2)
    // The rest, 0.5 at 50,000, costs at most 25,000 + 62.50 (all of it as taker: per role
    // 37.50 + 62.50 = 100.00 in all, less the 37.50 paid). Before, the larger rate on the
    // whole (125.00) less 37.50 held 25,087.50.
    expect(core.heldFor('BTC-EUR', buy.orderId)).toBe(eur(25_062.5))
    // Under the rules before, a taker fill charged the taker rate on the maker fills too.
    const old = restFilledHalfAsMaker(undefined)
    expect(old.core.heldFor('BTC-EUR', old.buy.orderId)).toBe(eur(25_087.5))
  })

  it('accepts an update to cross that the account can fund at the taker rate on the rest', () => {
    const core = coreWithMarket()
    // 50,125 EUR for the buy (50,000 + 0.25%) and 480 EUR more.
    deposit(core, 1, 'EUR', eur(50_125 + 480))
    deposit(core, 2, 'BTC', btc(10))
    const buy = order(1, { price: 50_000, amount: sats(1) })
    expect(core.apply(buy).ok).toBe(true)
    // Half fills as maker: 25,000 EUR and 37.50 EUR fee (0.15%).
    expect(core.apply(order(2, { side: 'sell', price: 50_000, amount: sats(0.5) })).ok).toBe(true)
    expect(core.apply(order(2, { side: 'sell', price: 51_000, amount: sats(0.5) })).ok).toBe(true)
    // At 51,000 the rest costs at most 25,500 + 63.75, of which 25,062.50 is held: 476.25 more
    // of the 480 available (the maker fill's fee is not charged again at the taker rate).
    expect(core.apply(priceUpdate(buy.orderId, 51_000, { holdRules: 2 }))).toMatchObject({
      ok: true,
    })
    expect(core.ledger.balance(1, 'EUR')).toEqual({
      available: eur(50_125 + 480 - 25_000 - 37.5 - 25_500 - 63.75),
      inOrder: 0n,
    })
  })

  it('replays an update journaled before with the hold it had then (the fee of the rest)', () => {
    const { core, buy } = restFilledHalfAsMaker(undefined)
    const update = priceUpdate(buy.orderId, 49_000, {})
    expect(core.apply(update).ok).toBe(true)
    // 0.5 × 49,000 = 24,500 EUR and 0.25% of it: 24,561.25.
    expect(core.heldFor('BTC-EUR', buy.orderId)).toBe(eur(24_561.25))
  })

  it('covers the later fills of a rest whose earlier dust fill paid a capped fee', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(100_000))
    deposit(core, 2, 'BTC', btc(10))
    deposit(core, 3, 'EUR', eur(100_000))
    // Equal maker and taker rates, which the core accepts (the catalogue's tiers keep maker
    // below taker, which hid it): 1 satoshi at 50,000 pays 0.0005 EUR of a 0.01 EUR fee step.
    const rates = { makerFeePpm: 2_500, takerFeePpm: 2_500 }
    expect(core.apply(order(2, { side: 'sell', price: 50_000, amount: 10_001, ...rates })).ok).toBe(
      true,
    )
    expect(core.apply(order(3, { side: 'buy', price: 50_000, amount: 10_000, ...rates })).ok).toBe(
      true,
    )
    const buy = order(1, { side: 'buy', price: 50_000, amount: 1_000_001, ...rates })
    expect(core.apply(buy).ok).toBe(true)
    const sell = order(2, { side: 'sell', price: 50_000, amount: 1_000_000, ...rates })
    expect(() => core.apply(sell)).not.toThrow()
    // Filled: nothing open, nothing held.
    expect(core.engine.openOrders('BTC-EUR', 1)).toEqual([])
    expect(core.heldFor('BTC-EUR', buy.orderId)).toBe(0n)
    core.ledger.checkInvariant()
  })
})

describe('a stop order waiting for its trigger', () => {
  it('shows triggerPrice on the wire, and its state restores from a snapshot the same', () => {
    const live = coreWithMarket()
    deposit(live, 1, 'EUR', eur(100_000))
    const stop = order(1, {
      side: 'buy',
      orderType: 'stopLossLimit',
      price: 60_000,
      amount: sats(0.01),
      triggerAmount: 55_000,
      triggerType: 'price',
      triggerReference: 'lastTrade',
    })
    expect(live.apply(stop).ok).toBe(true)
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(live.snapshot())))
    const update: CoreCommand = {
      type: 'updateOrder',
      timestamp: 9_000,
      market: 'BTC-EUR',
      accountId: 1,
      orderId: stop.orderId,
      triggerAmount: 56_000,
      holdRules: 2,
    }
    expect(live.apply(update).ok).toBe(true)
    expect(restored.apply(update).ok).toBe(true)
    const spec = live.engine.market('BTC-EUR')!
    for (const core of [live, restored])
      expect(orderToWire(spec, core.engine.getOrder('BTC-EUR', stop.orderId)!)).toMatchObject({
        status: 'awaitingTrigger',
        triggerAmount: '56000',
        triggerPrice: '56000',
      })
    // Before, the wire's figure was kept in the state, and the snapshot's read back as the
    // price that fired it: the restored core kept 55,000.
    expect(JSON.stringify(restored.snapshot())).toBe(JSON.stringify(live.snapshot()))
  })
})

describe('the fees of an order filled in both roles', () => {
  // The maker rate is 0.15% and the taker rate 0.25% (the fixture's order).
  it.each([
    // 0.01 BTC at 50,000 as taker (500 EUR: 1.25) and 0.01 as maker (0.75).
    ['per role', 2, [1.25, 0.75]],
    // The old rules: the maker rate on the whole 1,000 EUR (1.50) less the 1.25 paid.
    ['as journaled before', undefined, [1.25, 0.25]],
  ] as const)(
    'a limit buy that takes, rests and fills as maker pays each role its rate (fees %s)',
    (_rules, feeRules, fees) => {
      const core = coreWithMarket()
      deposit(core, 1, 'EUR', eur(10_000))
      deposit(core, 2, 'BTC', btc(1))
      expect(core.apply(order(2, { side: 'sell', price: 50_000, amount: sats(0.01) })).ok).toBe(
        true,
      )
      const buy = order(1, { price: 50_000, amount: sats(0.02), feeRules })
      const taken = core.apply(buy)
      const rested = core.apply(order(2, { side: 'sell', price: 50_000, amount: sats(0.01) }))
      const paid = [taken, rested].flatMap((outcome) =>
        outcome.ok
          ? outcome.events.flatMap((event) =>
              event.type === 'fill' && event.orderId === buy.orderId ? [event.fee / 1e8] : [],
            )
          : [],
      )
      expect(paid).toEqual(fees)
      const feesTotal = fees[0] + fees[1]
      expect(core.ledger.balance(1, 'EUR')).toEqual({
        available: eur(10_000 - 1_000 - feesTotal),
        inOrder: 0n,
      })
      // The sellers were makers then taker at their own rates: 0.75 + 1.25.
      expect(core.ledger.balance('fees', 'EUR').available).toBe(eur(feesTotal + 0.75 + 1.25))
      core.ledger.checkInvariant()
    },
  )
})
