import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { type CoreCommand, ExchangeCore } from '../src/core/exchangeCore.ts'
import { OrderHistory } from '../src/core/orderHistory.ts'
import { stringifyInSlices } from '../src/core/stringifyInSlices.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import {
  btc,
  btcEur,
  coreWithMarket,
  deposit,
  eur,
  order,
  sats,
} from './fixtures/coreWithMarket.ts'

/** Every order of an account in a market, as `OrderHistory.ordersIn` lists them. */
const allOrders = { startMs: 0, endMs: Number.MAX_SAFE_INTEGER, limit: Number.MAX_SAFE_INTEGER }
describe('exchange core: orders are funded by holds', () => {
  it('a resting limit buy holds price × amount plus the taker fee', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(1000))
    const buy = order(1, { price: 50_000, amount: sats(0.01) })
    expect(core.apply(buy).ok).toBe(true)
    // 500.00 EUR + 0.25% = 501.25 EUR
    expect(core.ledger.balance(1, 'EUR')).toEqual({ available: eur(498.75), inOrder: eur(501.25) })
    expect(core.heldFor('BTC-EUR', buy.orderId)).toBe(eur(501.25))
    core.ledger.checkInvariant()
  })

  it('refuses an order the account cannot fund with 216, and nothing changes', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(100))
    const buy = order(1, { price: 50_000, amount: sats(0.01) })
    expect(core.apply(buy)).toMatchObject({ ok: false, errorCode: 216 })
    expect(core.engine.openOrders('BTC-EUR')).toEqual([])
    expect(core.ledger.balance(1, 'EUR')).toEqual({ available: eur(100), inOrder: 0n })
  })

  it('refuses an order with the id of one the history holds in another market (205 orderId), and nothing changes', () => {
    const core = coreWithMarket()
    core.apply({
      type: 'addMarket',
      timestamp: 0,
      config: { ...btcEur, market: 'ETH-EUR', base: 'ETH' },
    })
    deposit(core, 1, 'EUR', eur(1000))
    const buy = order(1, { price: 50_000, amount: sats(0.01) })
    expect(core.apply(buy).ok).toBe(true)
    const again = { ...buy, market: 'ETH-EUR', price: 100 }
    expect(core.apply(again)).toMatchObject({ ok: false, errorCode: 205 })
    expect(core.engine.openOrders('ETH-EUR')).toEqual([])
    // Closed, it is still held (and listed), and its id still taken.
    const cancel = { accountId: 1, market: 'BTC-EUR', orderId: buy.orderId }
    expect(core.apply({ type: 'cancelOrder', timestamp: 3_000, ...cancel }).ok).toBe(true)
    expect(core.apply(again)).toMatchObject({ ok: false, errorCode: 205 })
    expect(core.ledger.balance(1, 'EUR')).toEqual({ available: eur(1000), inOrder: 0n })
    expect(core.history.order('BTC-EUR', buy.orderId)?.state.status).toBe('canceled')
    expect(core.history.order('ETH-EUR', buy.orderId)).toBeUndefined()
  })

  it('a fill moves base and quote, charges maker and taker fees, and releases what the buyer did not spend', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(1000))
    deposit(core, 2, 'BTC', btc(1))
    expect(core.apply(order(2, { side: 'sell', price: 40_000, amount: sats(0.01) })).ok).toBe(true)
    // The buyer bids 50,000 but trades at the resting 40,000: 400.00 EUR + 1.00 EUR taker fee.
    expect(core.apply(order(1, { side: 'buy', price: 50_000, amount: sats(0.01) })).ok).toBe(true)
    expect(core.ledger.balance(1, 'EUR')).toEqual({ available: eur(599), inOrder: 0n })
    expect(core.ledger.balance(1, 'BTC')).toEqual({ available: btc(0.01), inOrder: 0n })
    // The maker seller receives 400.00 EUR less 0.60 EUR maker fee.
    expect(core.ledger.balance(2, 'EUR')).toEqual({ available: eur(399.4), inOrder: 0n })
    expect(core.ledger.balance(2, 'BTC')).toEqual({ available: btc(0.99), inOrder: 0n })
    expect(core.ledger.balance('fees', 'EUR').available).toBe(eur(1.6))
    core.ledger.checkInvariant()
  })

  it('a cancel gives the whole hold back', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'BTC', btc(1))
    const sell = order(1, { side: 'sell', price: 60_000, amount: sats(0.5) })
    core.apply(sell)
    expect(core.ledger.balance(1, 'BTC')).toEqual({ available: btc(0.5), inOrder: btc(0.5) })
    expect(
      core.apply({
        type: 'cancelOrder',
        timestamp: 2_000,
        market: 'BTC-EUR',
        accountId: 1,
        orderId: sell.orderId,
      }).ok,
    ).toBe(true)
    expect(core.ledger.balance(1, 'BTC')).toEqual({ available: btc(1), inOrder: 0n })
  })

  it('a cancel-on-disconnect group: orders only while its countdown runs; canceled once it ran out, never before; kept by a snapshot', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'BTC', btc(1))
    const arm = (timestamp: number, expiresAtMs: number) =>
      core.apply({ type: 'setCancelDeadline', timestamp, accountId: 1, codGroupId: 2, expiresAtMs })
    const expire = (target: ExchangeCore, timestamp: number) =>
      target.apply({ type: 'cancelExpiredGroup', timestamp, accountId: 1, codGroupId: 2 })
    const early = order(1, { side: 'sell', price: 60_000, amount: sats(0.1), codGroupId: 2 })
    expect(core.apply(early)).toMatchObject({ ok: false, errorCode: 205 })
    expect(arm(1_000, 10_000).ok).toBe(true)
    const sell = order(1, { side: 'sell', price: 60_000, amount: sats(0.5), codGroupId: 2 })
    expect(core.apply(sell).ok).toBe(true)
    expect(expire(core, 9_999)).toMatchObject({ ok: false, errorCode: 205 })
    expect(core.expiredCancelDeadlines(9_999)).toEqual([])
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(core.snapshot())))
    expect(restored.expiredCancelDeadlines(10_000)).toEqual([
      { accountId: 1, codGroupId: 2, expiresAtMs: 10_000 },
    ])
    for (const target of [core, restored]) {
      expect(expire(target, 10_000)).toMatchObject({ ok: true, orderIds: [sell.orderId] })
      expect(target.ledger.balance(1, 'BTC')).toEqual({ available: btc(1), inOrder: 0n })
      expect(target.history.order('BTC-EUR', sell.orderId)?.state).toMatchObject({
        status: 'canceled',
        restatementReason: 'cancelOnDisconnect',
      })
      expect(expire(target, 10_001)).toMatchObject({ ok: false, errorCode: 205 }) // once
      expect(target.cancelDeadlines.size).toBe(0)
    }
  })

  it('a countdown restarted after it ran out, before the task carried it out: its orders go first', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'BTC', btc(1))
    const arm = (timestamp: number, expiresAtMs: number) =>
      core.apply({ type: 'setCancelDeadline', timestamp, accountId: 1, codGroupId: 3, expiresAtMs })
    expect(arm(1_000, 10_000).ok).toBe(true)
    const sell = order(1, { side: 'sell', price: 60_000, amount: sats(0.5), codGroupId: 3 })
    expect(core.apply(sell).ok).toBe(true)
    expect(arm(9_999, 20_000)).toMatchObject({ ok: true, events: [] }) // in time: kept
    expect(core.history.order('BTC-EUR', sell.orderId)?.state.status).toBe('new')
    expect(arm(20_000, 30_000)).toMatchObject({ ok: true, orderIds: [sell.orderId] }) // too late
    expect(core.history.order('BTC-EUR', sell.orderId)?.state).toMatchObject({
      status: 'canceled',
      restatementReason: 'cancelOnDisconnect',
    })
    expect(core.cancelDeadlines.get('1 3')?.expiresAtMs).toBe(30_000) // running again
    for (const codGroupId of [0, 1001, 2.5])
      expect(
        core.apply({
          type: 'setCancelDeadline',
          timestamp: 1,
          accountId: 1,
          codGroupId,
          expiresAtMs: 5,
        }),
      ).toMatchObject({ ok: false, errorCode: 205 })
  })

  it('an under-funded market buy is refused with 216 before it trades, and nothing changes', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(100))
    deposit(core, 2, 'BTC', btc(1))
    core.apply(order(2, { side: 'sell', price: 50_000, amount: sats(1) }))
    expect(core.apply(order(1, { orderType: 'market', amount: sats(0.01) }))).toMatchObject({
      ok: false,
      errorCode: 216,
    })
    expect(core.ledger.balance(1, 'EUR')).toEqual({ available: eur(100), inOrder: 0n })
    expect(core.engine.depth('BTC-EUR', 'sell', 10)).toEqual([[50_000, sats(1)]])
    core.ledger.checkInvariant()
  })

  it('a market sell by amountQuote holds the base it could need at the protected worst price', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'BTC', btc(0.011))
    deposit(core, 2, 'EUR', eur(100_000))
    expect(core.apply(order(2, { side: 'buy', price: 50_000, amount: sats(1) })).ok).toBe(true)
    // 500 EUR at no less than 45,000 (10% below the best bid) needs at most 0.01111112 BTC.
    expect(
      core.apply(order(1, { side: 'sell', orderType: 'market', amountQuote: 50_000_000_000 })),
    ).toMatchObject({ ok: false, errorCode: 216 })
    deposit(core, 1, 'BTC', btc(0.001))
    expect(
      core.apply(order(1, { side: 'sell', orderType: 'market', amountQuote: 50_000_000_000 })).ok,
    ).toBe(true)
    expect(core.ledger.balance(1, 'BTC')).toEqual({ available: btc(0.002), inOrder: 0n })
    core.ledger.checkInvariant()
  })

  it('a market buy by amount holds the available balance for the command and gives back the rest', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(10_000))
    deposit(core, 2, 'BTC', btc(1))
    core.apply(order(2, { side: 'sell', price: 40_000, amount: sats(0.1) }))
    expect(core.apply(order(1, { orderType: 'market', amount: sats(0.05) })).ok).toBe(true)
    // 2,000.00 EUR + 5.00 EUR taker fee spent; nothing stays held.
    expect(core.ledger.balance(1, 'EUR')).toEqual({ available: eur(7995), inOrder: 0n })
    core.ledger.checkInvariant()
  })

  it('raising a resting buy price holds more; 216 when that cannot be funded, order unchanged', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(600))
    const buy = order(1, { price: 50_000, amount: sats(0.01) })
    core.apply(buy)
    const raise = (price: number) =>
      core.apply({
        type: 'updateOrder',
        timestamp: 3_000,
        market: 'BTC-EUR',
        accountId: 1,
        orderId: buy.orderId,
        price,
      })
    expect(raise(59_000)).toMatchObject({ ok: true })
    expect(core.ledger.balance(1, 'EUR').inOrder).toBe(eur(591.475)) // 590.00 + 1.475 fee
    expect(raise(70_000)).toMatchObject({ ok: false, errorCode: 216 })
    expect(core.engine.getOrder('BTC-EUR', buy.orderId)?.price).toBe(59_000)
    core.ledger.checkInvariant()
  })

  it('a withdrawal beyond the available balance is refused with 408', () => {
    const core = coreWithMarket()
    deposit(core, 1, 'EUR', eur(10))
    const withdraw: CoreCommand = {
      type: 'withdraw',
      timestamp: 5,
      accountId: 1,
      asset: 'EUR',
      amount: eur(11).toString(),
      reference: 'w1',
    }
    expect(core.apply(withdraw)).toMatchObject({ ok: false, errorCode: 408 })
  })
})

describe('exchange core: properties over random order streams', () => {
  const accounts = [1, 2, 3, 4]
  // Each account's fee rates: the tier's, a rebate, a maker rate above the taker rate, and one
  // rate for both, so that holds are checked against every shape of per-role fees.
  const ratesOf = new Map([
    [1, { makerFeePpm: 1_500, takerFeePpm: 2_500 }],
    [2, { makerFeePpm: -1_000, takerFeePpm: 2_500 }],
    [3, { makerFeePpm: 3_000, takerFeePpm: 1_000 }],
    [4, { makerFeePpm: 2_500, takerFeePpm: 2_500 }],
  ])
  const command = fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        kind: fc.constant('limit' as const),
        account: fc.constantFrom(...accounts),
        side: fc.constantFrom('buy' as const, 'sell' as const),
        price: fc.integer({ min: 45_000, max: 55_000 }),
        amount: fc.integer({ min: 10_000, max: 5_000_000 }),
        postOnly: fc.boolean(),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('market' as const),
        account: fc.constantFrom(...accounts),
        side: fc.constantFrom('buy' as const, 'sell' as const),
        amount: fc.integer({ min: 10_000, max: 5_000_000 }),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('stop' as const),
        account: fc.constantFrom(...accounts),
        side: fc.constantFrom('buy' as const, 'sell' as const),
        price: fc.integer({ min: 45_000, max: 55_000 }),
        amount: fc.integer({ min: 10_000, max: 1_000_000 }),
      }),
    },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('cancel' as const),
        account: fc.constantFrom(...accounts),
        pick: fc.nat(),
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        kind: fc.constant('update' as const),
        account: fc.constantFrom(...accounts),
        pick: fc.nat(),
        price: fc.integer({ min: 45_000, max: 55_000 }),
      }),
    },
  )

  it('after every command: the ledger balances, inOrder equals the holds of open orders, and a replay gives the same state', () => {
    let tradesSeen = 0
    fc.assert(
      fc.property(fc.array(command, { minLength: 50, maxLength: 150 }), (steps) => {
        const core = coreWithMarket()
        const applied: CoreCommand[] = []
        for (const account of accounts) {
          for (const [asset, amount] of [
            ['EUR', eur(20_000)],
            ['BTC', btc(2)],
          ] as const) {
            const depositCommand: CoreCommand = {
              type: 'deposit',
              timestamp: 1,
              accountId: account,
              asset,
              amount: amount.toString(),
              reference: `d${account}${asset}`,
            }
            core.apply(depositCommand)
            applied.push(depositCommand)
          }
        }
        steps.forEach((step, index) => {
          const timestamp = 10_000 + index
          let next: CoreCommand
          const open = core.engine.openOrders('BTC-EUR', step.account)
          const picked = 'pick' in step ? open[step.pick % Math.max(open.length, 1)] : undefined
          switch (step.kind) {
            case 'limit':
              next = order(step.account, {
                ...ratesOf.get(step.account),
                timestamp,
                side: step.side,
                price: step.price,
                amount: step.amount,
                postOnly: step.postOnly,
              })
              break
            case 'market':
              next = order(step.account, {
                ...ratesOf.get(step.account),
                timestamp,
                side: step.side,
                orderType: 'market',
                amount: step.amount,
              })
              break
            case 'stop':
              next = order(step.account, {
                ...ratesOf.get(step.account),
                timestamp,
                side: step.side,
                orderType: 'stopLossLimit',
                price: step.price,
                triggerAmount: step.price,
                triggerType: 'price',
                triggerReference: 'lastTrade',
                amount: step.amount,
              })
              break
            case 'cancel':
              if (!picked) return
              next = {
                type: 'cancelOrder',
                timestamp,
                market: 'BTC-EUR',
                accountId: step.account,
                orderId: picked.orderId,
              }
              break
            case 'update':
              if (!picked || picked.price === null) return
              next = {
                type: 'updateOrder',
                timestamp,
                market: 'BTC-EUR',
                accountId: step.account,
                orderId: picked.orderId,
                price: step.price,
                holdRules: 2,
              }
              break
          }
          const outcome = core.apply(next)
          if (outcome.ok) {
            applied.push(next)
            tradesSeen += outcome.events.filter((event) => event.type === 'trade').length
          }
          core.ledger.checkInvariant()
          for (const account of accounts) {
            for (const asset of ['EUR', 'BTC']) {
              const held = core.engine
                .openOrders('BTC-EUR', account)
                .filter((openOrder) => (openOrder.side === 'buy' ? 'EUR' : 'BTC') === asset)
                .reduce((sum, openOrder) => sum + core.heldFor('BTC-EUR', openOrder.orderId), 0n)
              expect(core.ledger.balance(account, asset).inOrder, `${account} ${asset}`).toBe(held)
            }
          }
        })
        const replayed = coreWithMarket()
        for (const commandApplied of applied) expect(replayed.apply(commandApplied).ok).toBe(true)
        expect(replayed.engine.stateHash()).toBe(core.engine.stateHash())
        for (const account of accounts) {
          expect(replayed.ledger.balances(account)).toEqual(core.ledger.balances(account))
        }
      }),
      { seed: 20261122, numRuns: 40 },
    )
    expect(tradesSeen).toBeGreaterThan(100)
  })
})
describe('exchange core: no order ever spends more than it holds', () => {
  const accounts = [1, 2, 3]
  const step = fc.record({
    account: fc.constantFrom(...accounts),
    side: fc.constantFrom('buy' as const, 'sell' as const),
    kind: fc.constantFrom(
      'limit' as const,
      'marketAmount' as const,
      'marketQuote' as const,
      'cancel' as const,
    ),
    // Few distinct prices: a buy filled by many asks at exactly its limit has no price slack.
    price: fc.constantFrom(49_999, 50_000, 50_001),
    // Tiny and larger sizes: dust fills are where rounding bites.
    // Just above the 0.0001 BTC minimum leaves remainders of a few satoshis to fill later.
    amount: fc.oneof(
      fc.integer({ min: 10_000, max: 10_050 }),
      fc.integer({ min: 10_000, max: 3_000_000 }),
    ),
    quote: fc.integer({ min: 1, max: 200_000_000_000 }),
    pick: fc.nat(),
  })

  it('property: small balances, dust sizes, market orders both ways: refusals or trades, never a broken ledger', () => {
    let trades = 0
    fc.assert(
      fc.property(
        fc.array(
          fc.tuple(fc.integer({ min: 0, max: 2_000 }), fc.integer({ min: 0, max: 5_000_000 })),
          { minLength: 3, maxLength: 3 },
        ),
        fc.array(step, { minLength: 40, maxLength: 120 }),
        (funds, steps) => {
          const core = coreWithMarket()
          accounts.forEach((account, index) => {
            const [euros, satoshis] = funds[index]!
            if (euros > 0) deposit(core, account, 'EUR', eur(euros))
            if (satoshis > 0) deposit(core, account, 'BTC', toLedgerUnits(satoshis, 8))
          })
          steps.forEach((s, index) => {
            const timestamp = 50_000 + index
            let next: CoreCommand
            if (s.kind === 'cancel') {
              const open = core.engine.openOrders('BTC-EUR', s.account)
              const picked = open[s.pick % Math.max(open.length, 1)]
              if (!picked) return
              next = {
                type: 'cancelOrder',
                timestamp,
                market: 'BTC-EUR',
                accountId: s.account,
                orderId: picked.orderId,
              }
            } else if (s.kind === 'limit') {
              next = order(s.account, { timestamp, side: s.side, price: s.price, amount: s.amount })
            } else if (s.kind === 'marketAmount') {
              next = order(s.account, {
                timestamp,
                side: s.side,
                orderType: 'market',
                amount: s.amount,
              })
            } else {
              next = order(s.account, {
                timestamp,
                side: s.side,
                orderType: 'market',
                amountQuote: s.quote,
              })
            }
            // apply throws if any fill were unfunded: that is the failure this looks for
            const outcome = core.apply(next)
            if (outcome.ok)
              trades += outcome.events.filter((event) => event.type === 'trade').length
            core.ledger.checkInvariant()
          })
        },
      ),
      { seed: 1122, numRuns: 150 },
    )
    expect(trades).toBeGreaterThan(200)
  })
})

describe('exchange core: snapshots', () => {
  it('property: snapshot (through JSON) + the later commands = the same state and events as never snapshotting; a snapshot written after later commands is still the state at its capture', async () => {
    const step = fc.record({
      account: fc.constantFrom(1, 2, 3),
      side: fc.constantFrom('buy' as const, 'sell' as const),
      market: fc.boolean(),
      price: fc.integer({ min: 49_900, max: 50_100 }),
      amount: fc.integer({ min: 10_000, max: 2_000_000 }),
      cancel: fc.nat({ max: 9 }),
    })
    await fc.assert(
      fc.asyncProperty(
        fc.array(step, { minLength: 30, maxLength: 90 }),
        fc.nat(),
        async (steps, cut) => {
          const toCommand = (
            core: ExchangeCore,
            s: (typeof steps)[number],
            index: number,
          ): CoreCommand => {
            const timestamp = 90_000 + index * 1_000
            const open = core.engine.openOrders('BTC-EUR', s.account)
            if (s.cancel === 0 && open.length > 0) {
              return {
                type: 'cancelOrder',
                timestamp,
                market: 'BTC-EUR',
                accountId: s.account,
                orderId: open[0]!.orderId,
              }
            }
            if (s.cancel === 1) return { type: 'flushBook', timestamp, market: 'BTC-EUR' }
            return order(
              s.account,
              s.market
                ? {
                    timestamp,
                    side: s.side,
                    orderType: 'market',
                    amount: s.amount,
                    orderId: `m${index}`,
                  }
                : {
                    timestamp,
                    side: s.side,
                    price: s.price,
                    amount: s.amount,
                    orderId: `l${index}`,
                  },
            )
          }
          const whole = coreWithMarket()
          for (const account of [1, 2, 3]) {
            deposit(whole, account, 'EUR', eur(1_000_000))
            deposit(whole, account, 'BTC', btc(20))
          }
          const at = cut % steps.length
          steps.slice(0, at).forEach((s, index) => {
            whole.apply(toCommand(whole, s, index))
          })
          const captured = whole.snapshot()
          const atCapture = JSON.stringify(captured)
          const restored = new ExchangeCore(JSON.parse(atCapture))
          steps.slice(at).forEach((s, offset) => {
            const index = at + offset
            const command = toCommand(whole, s, index)
            expect(JSON.stringify(restored.apply(command))).toBe(
              JSON.stringify(whole.apply(command)),
            )
          })
          expect(restored.engine.stateHash()).toBe(whole.engine.stateHash())
          expect(JSON.stringify(restored.snapshot())).toBe(JSON.stringify(whole.snapshot()))
          // The exchange writes a snapshot a slice at a time while later commands run.
          expect(await stringifyInSlices(captured, 0)).toBe(atCapture)
          // The order history also comes back from its capture itself (closed orders as text).
          const history = OrderHistory.restore(whole.history.snapshot())
          expect(JSON.stringify(history.snapshot())).toBe(JSON.stringify(whole.history.snapshot()))
          for (const account of [1, 2, 3])
            expect(history.ordersIn(account, 'BTC-EUR', allOrders)).toEqual(
              whole.history.ordersIn(account, 'BTC-EUR', allOrders),
            )
        },
      ),
      { seed: 77, numRuns: 60 },
    )
  })
})

describe('exchange core: payments and withdrawals in progress', () => {
  const commands: CoreCommand[] = [
    {
      type: 'startPayment',
      timestamp: 10,
      paymentId: 'p1',
      accountId: 1,
      method: 'card',
      amount: eur(100).toString(),
      fee: eur(1.75).toString(),
    },
    {
      type: 'updatePayment',
      timestamp: 11,
      paymentId: 'p1',
      status: 'confirmed',
      providerReference: 'r1',
    },
    {
      type: 'startPayment',
      timestamp: 12,
      paymentId: 'p2',
      accountId: 1,
      method: 'paypal',
      amount: eur(50).toString(),
      fee: eur(0.95).toString(),
    },
    {
      type: 'withdraw',
      timestamp: 13,
      accountId: 1,
      asset: 'EUR',
      amount: eur(20).toString(),
      reference: 'w1',
      schedule: { sendingAtMs: 100, completedAtMs: 200 },
      valueEurCents: 2_000,
    },
    { type: 'advanceWithdrawal', timestamp: 100, reference: 'w1', status: 'sending' },
  ]

  it('a confirmed payment credits the amount and charges the fee as its own movement; the ledger balances', () => {
    const core = new ExchangeCore()
    for (const command of commands) expect(core.apply(command).ok, command.type).toBe(true)
    expect(core.ledger.balance(1, 'EUR').available).toBe(eur(100 - 1.75 - 20))
    expect(core.ledger.balance('fees', 'EUR').available).toBe(eur(1.75))
    expect(core.ledger.checkInvariant().get('EUR')).toEqual({
      customers: eur(78.25),
      fees: eur(1.75),
      netDeposits: eur(80),
    })
    expect(core.payments.get('p2')?.status).toBe('pending') // nothing credited yet
    // Final states are final.
    expect(
      core.apply({ type: 'updatePayment', timestamp: 20, paymentId: 'p1', status: 'failed' }).ok,
    ).toBe(false)
    expect(
      core.apply({ type: 'updatePayment', timestamp: 20, paymentId: 'p2', status: 'failed' }).ok,
    ).toBe(true)
    expect(core.ledger.balance(1, 'EUR').available).toBe(eur(78.25))
  })

  it('come back the same from a replay of the journal and from a snapshot', () => {
    const whole = new ExchangeCore()
    for (const command of commands) whole.apply(command)
    const replayed = new ExchangeCore()
    for (const command of commands) replayed.apply(command)
    const restored = new ExchangeCore(JSON.parse(JSON.stringify(whole.snapshot())))
    for (const core of [replayed, restored]) {
      expect(core.snapshot()).toEqual(whole.snapshot())
      expect(core.pendingWithdrawals.get('w1')?.status).toBe('sending')
      expect(core.payments.get('p2')?.status).toBe('pending')
      // And they carry on alike: the withdrawal completes once, the pending payment confirms.
      expect(
        core.apply({
          type: 'advanceWithdrawal',
          timestamp: 200,
          reference: 'w1',
          status: 'completed',
        }).ok,
      ).toBe(true)
      expect(core.history.transfersOf(1, 'withdraw')[0]?.status).toBe('completed')
      expect(
        core.apply({ type: 'updatePayment', timestamp: 201, paymentId: 'p2', status: 'confirmed' })
          .ok,
      ).toBe(true)
      expect(core.ledger.balance(1, 'EUR').available).toBe(eur(78.25 + 49.05))
    }
  })
})

describe('exchange core: cancel-on-disconnect deadlines', () => {
  it('knows the earliest running countdown through any mix of starts, restarts, stops and cancels', () => {
    const step = fc.record({
      accountId: fc.integer({ min: 1, max: 3 }),
      codGroupId: fc.integer({ min: 1, max: 3 }),
      // 0 stops the countdown; otherwise its end.
      expiresAtMs: fc.oneof(fc.constant(0), fc.integer({ min: 1_000, max: 2_000 })),
      cancelAt: fc.option(fc.integer({ min: 1_000, max: 2_000 }), { nil: undefined }),
    })
    fc.assert(
      fc.property(fc.array(step, { maxLength: 40 }), (steps) => {
        const core = new ExchangeCore()
        const earliest = () =>
          Math.min(...[...core.cancelDeadlines.values()].map((deadline) => deadline.expiresAtMs))
        for (const { accountId, codGroupId, expiresAtMs, cancelAt } of steps) {
          core.apply({
            type: 'setCancelDeadline',
            timestamp: 1,
            accountId,
            codGroupId,
            expiresAtMs,
          })
          expect(core.earliestCancelDeadlineMs()).toBe(earliest())
          if (cancelAt === undefined) continue
          for (const deadline of core.expiredCancelDeadlines(cancelAt))
            core.apply({
              type: 'cancelExpiredGroup',
              timestamp: cancelAt,
              accountId: deadline.accountId,
              codGroupId: deadline.codGroupId,
            })
          expect(core.earliestCancelDeadlineMs()).toBe(earliest())
          expect(core.expiredCancelDeadlines(cancelAt)).toEqual([])
        }
      }),
      { numRuns: 300 },
    )
  })
})
