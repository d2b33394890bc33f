import { describe, expect, test } from 'vitest'
import {
  type Command,
  Engine,
  EngineConfigError,
  type EngineEvent,
  EventLog,
  type FillEvent,
  feeFor,
  type MarketConfig,
  type OrderEvent,
} from '../src/index.ts'
import {
  bookKinds,
  levels,
  makeEngine,
  nextTimestamp,
  parseCommand,
  place,
  run,
  tst,
} from './helpers.ts'

// One test per rule of the issue, each run against both book implementations.

function orders(events: readonly EngineEvent[]): OrderEvent[] {
  return events.filter((event): event is OrderEvent => event.type === 'order')
}

function lastOrder(events: readonly EngineEvent[], orderId: string): OrderEvent {
  const found = orders(events).filter((event) => event.orderId === orderId)
  const last = found[found.length - 1]
  if (last === undefined) throw new Error(`no order event for ${orderId}`)
  return last
}

describe.each(bookKinds)('rules with the %s book', (kind) => {
  describe('markets and validation', () => {
    test('an unknown market is error 205', () => {
      const { engine } = makeEngine(kind)
      const result = engine.execute(
        place({ orderId: 'x', market: 'NOPE-EUR', amount: 1, price: 1 }),
      )
      expect(result).toEqual({ ok: false, errorCode: 205, error: 'market parameter is invalid.' })
    })

    test('market status halted, cancelOnly, auction and auctionMatching refuse orders with 423 to 426; cancel stays possible', () => {
      const { engine, log } = makeEngine(kind)
      engine.execute(place({ orderId: 'rest', amount: 1, price: 100 }))
      const codes: Record<string, number> = {
        halted: 423,
        cancelOnly: 424,
        auction: 425,
        auctionMatching: 426,
      }
      for (const [status, code] of Object.entries(codes)) {
        engine.execute({
          type: 'setMarketStatus',
          timestamp: nextTimestamp(),
          market: tst.market,
          status: status as 'halted',
        })
        const result = engine.execute(place({ orderId: `o-${status}`, amount: 1, price: 100 }))
        expect(result.ok ? 0 : result.errorCode).toBe(code)
        const update = engine.execute({
          type: 'updateOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 1,
          orderId: 'rest',
          price: 99,
        })
        expect(update.ok ? 0 : update.errorCode).toBe(code)
      }
      log.take()
      expect(
        engine.execute({
          type: 'cancelOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 1,
          orderId: 'rest',
        }).ok,
      ).toBe(true)
      expect(lastOrder(log.take(), 'rest').status).toBe('canceled')
      engine.execute({
        type: 'setMarketStatus',
        timestamp: nextTimestamp(),
        market: tst.market,
        status: 'trading',
      })
      expect(engine.execute(place({ orderId: 'again', amount: 1, price: 100 })).ok).toBe(true)
    })

    test('a price that is not a multiple of tickSize is error 422', () => {
      const { engine } = makeEngine(kind, [{ ...tst, tickSize: '5' }])
      expect(engine.execute(place({ orderId: 'a', amount: 1, price: 102 }))).toMatchObject({
        errorCode: 422,
      })
      expect(engine.execute(place({ orderId: 'b', amount: 1, price: 105 })).ok).toBe(true)
    })

    test('a price with more significant digits than pricePrecision is error 214; a trigger is 218', () => {
      const { engine } = makeEngine(kind, [{ ...tst, pricePrecision: 3 }])
      expect(engine.execute(place({ orderId: 'a', amount: 1, price: 1234 }))).toMatchObject({
        errorCode: 214,
      })
      expect(engine.execute(place({ orderId: 'b', amount: 1, price: 1230 })).ok).toBe(true)
      const stop = place({
        orderId: 'c',
        orderType: 'stopLoss',
        amount: 1,
        triggerAmount: 1234,
        triggerType: 'price',
        triggerReference: 'lastTrade',
      })
      expect(engine.execute(stop)).toMatchObject({ errorCode: 218 })
    })

    test('prices outside minPrice..maxPrice are errors 213 and 211', () => {
      const { engine } = makeEngine(kind, [{ ...tst, minPrice: '10', maxPrice: '1000' }])
      expect(engine.execute(place({ orderId: 'a', amount: 1, price: 9 }))).toMatchObject({
        errorCode: 213,
      })
      expect(engine.execute(place({ orderId: 'b', amount: 1, price: 1001 }))).toMatchObject({
        errorCode: 211,
      })
    })

    test('order size limits in base and quote are errors 212, 210 and 217', () => {
      const config: MarketConfig = {
        ...tst,
        minOrderInBaseAsset: '2',
        maxOrderInBaseAsset: '100',
        minOrderInQuoteAsset: '5',
        maxOrderInQuoteAsset: '10000',
      }
      const { engine } = makeEngine(kind, [config])
      const code = (command: Command) => {
        const result = engine.execute(command)
        return result.ok ? 0 : result.errorCode
      }
      expect(code(place({ orderId: 'a', amount: 1, price: 100 }))).toBe(212)
      expect(code(place({ orderId: 'b', amount: 101, price: 1 }))).toBe(210)
      // 2 × 2 = 4.00 EUR is below the 5.00 EUR minimum notional.
      expect(code(place({ orderId: 'c', amount: 2, price: 2 }))).toBe(217)
      // 100 × 101 = 10100 EUR is above the maximum notional.
      expect(code(place({ orderId: 'd', amount: 100, price: 101 }))).toBe(210)
      expect(code(place({ orderId: 'e', orderType: 'market', amountQuote: 499 }))).toBe(217)
      expect(code(place({ orderId: 'f', orderType: 'market', amountQuote: 1_000_001 }))).toBe(210)
      expect(code(place({ orderId: 'g', amount: 2, price: 3 }))).toBe(0)
    })

    test('amount and amountQuote together are error 206; neither is 203', () => {
      const { engine } = makeEngine(kind)
      expect(
        engine.execute(place({ orderId: 'a', orderType: 'market', amount: 1, amountQuote: 100 })),
      ).toMatchObject({ errorCode: 206 })
      expect(engine.execute(place({ orderId: 'b', orderType: 'market' }))).toMatchObject({
        errorCode: 203,
        error: 'amount parameter is required.',
      })
    })

    test('a limit order needs amount and price (203); a market order takes no price (202) and no postOnly', () => {
      const { engine } = makeEngine(kind)
      expect(engine.execute(place({ orderId: 'a', amount: 1 }))).toMatchObject({
        errorCode: 203,
        error: 'price parameter is required.',
      })
      expect(engine.execute(place({ orderId: 'b', price: 1 }))).toMatchObject({ errorCode: 203 })
      expect(engine.execute(place({ orderId: 'c', amountQuote: 100, price: 1 }))).toMatchObject({
        errorCode: 202,
      })
      expect(
        engine.execute(place({ orderId: 'd', orderType: 'market', amount: 1, price: 1 })),
      ).toMatchObject({ errorCode: 202 })
      expect(
        engine.execute(place({ orderId: 'e', orderType: 'market', amount: 1, postOnly: true })),
      ).toMatchObject({ errorCode: 202 })
    })

    test('stop orders without trigger fields are errors 237 (stopLoss, takeProfit) and 238 (the Limit variants)', () => {
      const { engine } = makeEngine(kind)
      expect(
        engine.execute(
          place({ orderId: 'a', orderType: 'stopLoss', amount: 1, triggerAmount: 10 }),
        ),
      ).toMatchObject({
        errorCode: 237,
        error: 'triggerType parameter is required for stopLoss and takeProfit orders.',
      })
      expect(
        engine.execute(place({ orderId: 'b', orderType: 'takeProfit', amount: 1 })),
      ).toMatchObject({
        errorCode: 237,
        error: 'triggerAmount parameter is required for stopLoss and takeProfit orders.',
      })
      expect(
        engine.execute(
          place({
            orderId: 'c',
            orderType: 'stopLossLimit',
            amount: 1,
            price: 10,
            triggerAmount: 10,
            triggerType: 'price',
          }),
        ),
      ).toMatchObject({
        errorCode: 238,
        error:
          'triggerReference parameter is required for stopLossLimit and takeProfitLimit orders.',
      })
      expect(
        engine.execute(place({ orderId: 'd', orderType: 'takeProfitLimit', amount: 1, price: 10 })),
      ).toMatchObject({ errorCode: 238 })
    })

    test('an amountQuote finer than notionalDecimals is error 429, never rounded', () => {
      // Quote units at 5 decimals (price 2 + quantity 3); amountQuote may have only 2.
      const config: MarketConfig = {
        ...tst,
        tickSize: '0.01',
        quantityDecimals: 3,
        maxOrderInBaseAsset: '1000',
      }
      const { engine } = makeEngine(kind, [config])
      expect(
        engine.execute(place({ orderId: 'a', orderType: 'market', amountQuote: 100_001 })),
      ).toMatchObject({ errorCode: 429 })
    })

    test('clientOrderIds are per account: another account may use the same one, and cannot see or cancel ours', () => {
      const { engine } = makeEngine(kind)
      expect(
        engine.execute(place({ orderId: 'a', clientOrderId: 'same', amount: 1, price: 100 })).ok,
      ).toBe(true)
      expect(
        engine.execute(
          place({ orderId: 'b', accountId: 2, clientOrderId: 'same', amount: 1, price: 100 }),
        ).ok,
      ).toBe(true)
      expect(
        engine.execute({
          type: 'cancelOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 2,
          clientOrderId: 'same',
        }),
      ).toEqual({ ok: true })
      expect(
        engine.openOrders(tst.market).map((state) => [state.orderId, state.accountId]),
      ).toEqual([['a', 1]])
    })

    test('a clientOrderId already used by an open order of the market is error 220; free again once closed', () => {
      const { engine } = makeEngine(kind)
      expect(
        engine.execute(place({ orderId: 'a', clientOrderId: 'mine', amount: 1, price: 100 })).ok,
      ).toBe(true)
      expect(
        engine.execute(place({ orderId: 'b', clientOrderId: 'mine', amount: 1, price: 100 })),
      ).toMatchObject({ errorCode: 220 })
      engine.execute({
        type: 'cancelOrder',
        timestamp: nextTimestamp(),
        market: tst.market,
        accountId: 1,
        clientOrderId: 'mine',
      })
      expect(
        engine.execute(place({ orderId: 'c', clientOrderId: 'mine', amount: 1, price: 100 })).ok,
      ).toBe(true)
    })

    test('an orderId already known in the market is error 205', () => {
      const { engine } = makeEngine(kind)
      engine.execute(place({ orderId: 'a', amount: 1, price: 100 }))
      expect(engine.execute(place({ orderId: 'a', amount: 1, price: 100 }))).toMatchObject({
        errorCode: 205,
        error: 'orderId parameter is invalid.',
      })
    })

    test('maxOpenOrders per account and market is error 235 (default 100)', () => {
      const { engine } = makeEngine(kind)
      for (let index = 0; index < 100; index++) {
        expect(engine.execute(place({ orderId: `o${index}`, amount: 1, price: 100 })).ok).toBe(true)
      }
      expect(engine.execute(place({ orderId: 'one-more', amount: 1, price: 100 }))).toMatchObject({
        errorCode: 235,
      })
      expect(
        engine.execute(place({ orderId: 'other-account', accountId: 2, amount: 1, price: 100 })).ok,
      ).toBe(true)
      engine.execute({
        type: 'cancelOrder',
        timestamp: nextTimestamp(),
        market: tst.market,
        accountId: 1,
        orderId: 'o0',
      })
      expect(engine.execute(place({ orderId: 'one-more', amount: 1, price: 100 })).ok).toBe(true)
    })

    test('a market whose bounds could overflow safe integers is refused at listing', () => {
      const wide: MarketConfig = {
        ...tst,
        quantityDecimals: 8,
        maxOrderInBaseAsset: '1000000',
        maxPrice: '1000000',
      }
      expect(() => makeEngine(kind, [wide])).toThrow(EngineConfigError)
    })

    test('nothing hard-codes EUR: fees are paid in the market quote currency', () => {
      const usdc: MarketConfig = { ...tst, market: 'TST-USDC', quote: 'USDC' }
      const { engine, log } = makeEngine(kind, [usdc])
      engine.execute(
        place({
          orderId: 'a',
          market: 'TST-USDC',
          accountId: 2,
          side: 'sell',
          amount: 1,
          price: 100,
        }),
      )
      engine.execute(place({ orderId: 'b', market: 'TST-USDC', amount: 1, price: 100 }))
      const events = log.take()
      expect(
        events.filter((event) => event.type === 'fill').map((event) => event.feeCurrency),
      ).toEqual(['USDC', 'USDC'])
      expect(lastOrder(events, 'b').feeCurrency).toBe('USDC')
    })
  })

  describe('order types', () => {
    test('a limit order that does not cross rests as new and is visible', () => {
      const { engine, log } = makeEngine(kind)
      engine.execute(place({ orderId: 'b', amount: 5, price: 100 }))
      const event = lastOrder(log.take(), 'b')
      expect(event).toMatchObject({
        status: 'new',
        visible: true,
        amountRemaining: 5,
        filledAmount: 0,
      })
      expect(levels(engine)).toEqual({ bids: ['5@100'], asks: [] })
    })

    test('a crossing limit order trades at the resting price (price improvement for the taker)', () => {
      const { engine, log } = makeEngine(kind)
      expect(run(engine, log, ['sell a 5@100 acct=2', 'buy b 5@105'])).toContain(
        'trade #1 5@100 buy',
      )
    })

    test('price-time priority: better price first, then earlier order first', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, [
        'sell late 2@100 acct=2',
        'sell early 2@100 acct=3',
        'sell best 2@99 acct=4',
        'buy t 6@100',
      ])
      const fills = out.filter((line) => line.startsWith('fill') && line.includes('maker'))
      expect(fills).toEqual([
        'fill best 2@99 maker fee=20',
        'fill late 2@100 maker fee=20',
        'fill early 2@100 maker fee=20',
      ])
    })

    test('partial fills move an order from new to partiallyFilled to filled', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell a 10@100 acct=2', 'buy b 3@100', 'buy c 7@100'])
      expect(out.filter((line) => line.startsWith('order a'))).toEqual([
        'order a new rem=10 filled=0',
        'order a partiallyFilled rem=7 filled=3',
        'order a filled rem=0 filled=10',
      ])
    })

    test('a market order by amount walks the levels and ends filled', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell a 2@100 acct=2', 'sell b 2@101 acct=2', 'market buy m 3'])
      expect(out).toContain('trade #1 2@100 buy')
      expect(out).toContain('trade #2 1@101 buy')
      expect(out).toContain('order m filled rem=0 filled=3')
    })

    test('a market order by amountQuote buys what the quote pays for and ends filled, leaving dust', () => {
      const { engine, log } = makeEngine(kind)
      // 250.50 EUR at 100 EUR buys 2 units (200 EUR); the next 50.50 EUR cannot pay 101 EUR.
      run(engine, log, ['sell a 2@100 acct=2', 'sell b 5@101 acct=2'])
      engine.execute(place({ orderId: 'm', orderType: 'market', amountQuote: 25_050 }))
      const event = lastOrder(log.take(), 'm')
      expect(event).toMatchObject({
        status: 'filled',
        filledAmount: 2,
        filledAmountQuote: 20_000,
        amountQuoteRemaining: 5_050,
        amount: null,
      })
    })

    test('a market order by amountQuote that cannot pay for one unit is rejected', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 2@100 acct=2'])
      engine.execute(place({ orderId: 'm', orderType: 'market', amountQuote: 9_999 }))
      expect(lastOrder(log.take(), 'm')).toMatchObject({
        status: 'rejected',
        filledAmount: 0,
        restatementReason: 'rejectOnAmountQuoteBelowOneUnit',
      })
      expect(levels(engine).asks).toEqual(['2@100'])
    })

    test('a market order that finds no liquidity ends expired; so does the rest once the book is empty', () => {
      const { engine, log } = makeEngine(kind)
      expect(run(engine, log, ['market buy m 3'])).toEqual(['order m expired rem=3 filled=0'])
      expect(run(engine, log, ['sell a 1@100 acct=2', 'market buy n 3'])).toContain(
        'order n expired rem=2 filled=1',
      )
    })

    test('market protection stops a market order at 10% from the best price at arrival', () => {
      const { engine, log } = makeEngine(kind)
      // Best ask 100: the band ends at 110; the level at 111 is out of reach.
      const out = run(engine, log, [
        'sell a 1@100 acct=2',
        'sell b 1@110 acct=2',
        'sell c 1@111 acct=2',
        'market buy m 3',
      ])
      expect(out).toContain(
        'order m canceledMarketProtection rem=1 filled=2 cancelOnExecutionPriceProtection',
      )
      expect(levels(engine).asks).toEqual(['1@111'])
      expect(
        run(engine, log, ['buy d 1@90 acct=2', 'buy e 1@80 acct=2', 'market sell s 2 acct=3']),
      ).toContain(
        'order s canceledMarketProtection rem=1 filled=1 cancelOnExecutionPriceProtection',
      )
    })

    test('disableMarketProtection lets a market order walk the whole book', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, [
        'sell a 1@100 acct=2',
        'sell c 1@200 acct=2',
        'market buy m 2 noProtection',
      ])
      expect(out).toContain('order m filled rem=0 filled=2')
    })

    test('the protection band is configurable per market', () => {
      const { engine, log } = makeEngine(kind, [{ ...tst, marketProtectionPpm: 500_000 }])
      const out = run(engine, log, ['sell a 1@100 acct=2', 'sell c 1@150 acct=2', 'market buy m 2'])
      expect(out).toContain('order m filled rem=0 filled=2')
    })

    describe('triggers', () => {
      const stop = (orderId: string, fields: Partial<Parameters<typeof place>[0]>) =>
        place({
          orderId,
          triggerType: 'price',
          triggerReference: 'lastTrade',
          amount: 1,
          ...fields,
        })

      test('a stop order waits with status awaitingTrigger and is not in the book', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(stop('s', { orderType: 'stopLoss', side: 'sell', triggerAmount: 95 }))
        expect(lastOrder(log.take(), 's')).toMatchObject({
          status: 'awaitingTrigger',
          visible: false,
          triggerAmount: 95,
        })
        expect(levels(engine)).toEqual({ bids: [], asks: [] })
      })

      test('stopLoss sell fires when the last trade is at or below the trigger, then executes as a market order', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(
          stop('s', { orderType: 'stopLoss', side: 'sell', triggerAmount: 95, accountId: 3 }),
        )
        log.take()
        const before = run(engine, log, [
          'buy b1 1@96 acct=2',
          'buy b2 5@94 acct=2',
          'sell x 1@96 acct=4',
        ])
        expect(before.some((line) => line.startsWith('order s '))).toBe(false)
        const out = run(engine, log, ['sell y 1@94 acct=4'])
        expect(out).toContain('order y filled rem=0 filled=1')
        expect(out).toContain('order s filled rem=0 filled=1')
        expect(engine.getOrder(tst.market, 's')).toBeNull()
      })

      test('stopLoss buy fires when the reference is at or above the trigger', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(
          stop('s', { orderType: 'stopLoss', side: 'buy', triggerAmount: 105, accountId: 3 }),
        )
        const out = run(engine, log, ['sell a 5@105 acct=2', 'buy x 1@105 acct=4'])
        expect(out).toContain('order s filled rem=0 filled=1')
      })

      test('takeProfit sell fires when the reference is at or above the trigger; takeProfit buy at or below', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(
          stop('tps', { orderType: 'takeProfit', side: 'sell', triggerAmount: 110, accountId: 3 }),
        )
        engine.execute(
          stop('tpb', { orderType: 'takeProfit', side: 'buy', triggerAmount: 90, accountId: 3 }),
        )
        log.take()
        let out = run(engine, log, ['buy b 5@109 acct=2', 'sell x 1@109 acct=4'])
        expect(out.some((line) => line.startsWith('order tp'))).toBe(false)
        out = run(engine, log, ['buy c 5@110 acct=2', 'sell y 1@110 acct=4'])
        expect(out).toContain('order tps filled rem=0 filled=1')
        const fresh = makeEngine(kind)
        fresh.engine.execute(
          stop('tpb', { orderType: 'takeProfit', side: 'buy', triggerAmount: 90, accountId: 3 }),
        )
        out = run(fresh.engine, fresh.log, ['sell d 5@91 acct=2', 'buy z 1@91 acct=4'])
        expect(out.some((line) => line.startsWith('order tpb filled'))).toBe(false)
        out = run(fresh.engine, fresh.log, [
          'sell e 5@90 acct=2',
          'cancel d acct=2',
          'buy w 1@90 acct=4',
        ])
        expect(out).toContain('order tpb filled rem=0 filled=1')
      })

      test('stopLossLimit and takeProfitLimit enter the book as limit orders at their price', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(
          stop('sl', {
            orderType: 'stopLossLimit',
            side: 'sell',
            triggerAmount: 95,
            price: 97,
            accountId: 3,
          }),
        )
        const out = run(engine, log, ['buy b 1@95 acct=2', 'sell x 1@95 acct=4'])
        expect(out).toContain('order sl new rem=1 filled=0')
        expect(levels(engine).asks).toEqual(['1@97'])
        const state = engine.openOrders(tst.market, 3)[0]
        expect(state).toMatchObject({
          orderType: 'stopLossLimit',
          price: 97,
          visible: true,
        })
      })

      test('trigger references bestBid, bestAsk and midPrice (mid compared exactly, without rounding)', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(
          stop('bid', {
            orderType: 'stopLossLimit',
            side: 'sell',
            triggerAmount: 99,
            price: 200,
            triggerReference: 'bestBid',
            accountId: 3,
          }),
        )
        engine.execute(
          stop('ask', {
            orderType: 'takeProfitLimit',
            side: 'buy',
            triggerAmount: 101,
            price: 50,
            triggerReference: 'bestAsk',
            accountId: 3,
          }),
        )
        // Mid of 100 and 103 is 101.5: a buy stop at 102 must not fire, one at 101 must.
        engine.execute(
          stop('mid102', {
            orderType: 'stopLossLimit',
            side: 'buy',
            triggerAmount: 102,
            price: 50,
            triggerReference: 'midPrice',
            accountId: 3,
          }),
        )
        engine.execute(
          stop('mid101', {
            orderType: 'stopLossLimit',
            side: 'buy',
            triggerAmount: 101,
            price: 50,
            triggerReference: 'midPrice',
            accountId: 3,
          }),
        )
        log.take()
        const out = run(engine, log, ['buy b 1@100 acct=2', 'sell a 1@103 acct=2'])
        expect(out.filter((line) => line.startsWith('order mid'))).toEqual([
          'order mid101 new rem=1 filled=0',
        ])
        expect(
          out.some((line) => line.startsWith('order bid') || line.startsWith('order ask')),
        ).toBe(false)
        expect(run(engine, log, ['buy b2 1@99 acct=2', 'cancel b acct=2'])).toContain(
          'order bid new rem=1 filled=0',
        )
        expect(run(engine, log, ['sell a2 1@101 acct=2'])).toContain('order ask new rem=1 filled=0')
      })

      test('a trigger whose condition already holds fires at placement', () => {
        const { engine, log } = makeEngine(kind)
        run(engine, log, ['sell a 5@100 acct=2', 'buy b 1@100 acct=4'])
        const out = run(engine, log, [])
        expect(out).toEqual([])
        engine.execute(
          stop('s', { orderType: 'stopLoss', side: 'buy', triggerAmount: 100, accountId: 3 }),
        )
        const events = log.take()
        expect(orders(events).map((event) => event.status)).toEqual([
          'awaitingTrigger',
          'partiallyFilled',
          'filled',
        ])
      })

      test('triggers cascade: the trade of one triggered order fires the next', () => {
        const { engine, log } = makeEngine(kind)
        engine.execute(
          stop('s1', { orderType: 'stopLoss', side: 'sell', triggerAmount: 99, accountId: 3 }),
        )
        engine.execute(
          stop('s2', { orderType: 'stopLoss', side: 'sell', triggerAmount: 98, accountId: 3 }),
        )
        const out = run(engine, log, [
          'buy b1 1@98 acct=2',
          'buy b2 1@97 acct=2',
          'buy b3 1@99 acct=2',
          'sell x 1@99 acct=4',
        ])
        expect(out).toContain('order s1 filled rem=0 filled=1')
        expect(out).toContain('order s2 filled rem=0 filled=1')
        expect(out.indexOf('order s1 filled rem=0 filled=1')).toBeLessThan(
          out.indexOf('order s2 filled rem=0 filled=1'),
        )
      })

      test('triggers do not fire while the market is not trading', () => {
        const { engine, log } = makeEngine(kind)
        run(engine, log, ['buy b1 1@100 acct=2', 'buy b2 1@98 acct=2'])
        engine.execute(
          stop('s', {
            orderType: 'stopLossLimit',
            side: 'sell',
            triggerAmount: 99,
            price: 120,
            triggerReference: 'bestBid',
            accountId: 3,
          }),
        )
        engine.execute({
          type: 'setMarketStatus',
          timestamp: nextTimestamp(),
          market: tst.market,
          status: 'cancelOnly',
        })
        // The best bid falls to 98 while only cancels are allowed: the stop keeps waiting.
        run(engine, log, ['cancel b1 acct=2'])
        expect(engine.openOrders(tst.market, 3)[0]?.status).toBe('awaitingTrigger')
        log.take()
        engine.execute({
          type: 'setMarketStatus',
          timestamp: nextTimestamp(),
          market: tst.market,
          status: 'trading',
        })
        expect(lastOrder(log.take(), 's')).toMatchObject({ status: 'new' })
      })
    })
  })

  describe('time in force and postOnly', () => {
    test('IOC: the remainder is canceled as canceledIOC', () => {
      const { engine, log } = makeEngine(kind)
      expect(run(engine, log, ['sell a 2@100 acct=2', 'buy t 5@100 ioc'])).toContain(
        'order t canceledIOC rem=3 filled=2',
      )
      expect(levels(engine)).toEqual({ bids: [], asks: [] })
    })

    test('FOK: fills completely or not at all (canceledFOK, book untouched)', () => {
      const { engine, log } = makeEngine(kind)
      expect(
        run(engine, log, ['sell a 2@100 acct=2', 'sell b 2@101 acct=2', 'buy t 5@101 fok']),
      ).toContain('order t canceledFOK rem=5 filled=0')
      expect(levels(engine).asks).toEqual(['2@100', '2@101'])
      expect(run(engine, log, ['buy u 4@101 fok'])).toContain('order u filled rem=0 filled=4')
    })

    test('postOnly: an order that would take is canceledPostOnly; one that does not rests', () => {
      const { engine, log } = makeEngine(kind)
      expect(run(engine, log, ['sell a 2@100 acct=2', 'buy t 1@100 postOnly'])).toContain(
        'order t canceledPostOnly rem=1 filled=0',
      )
      expect(run(engine, log, ['buy u 1@99 postOnly'])).toContain('order u new rem=1 filled=0')
    })
  })

  describe('self-trade prevention', () => {
    test('decrementAndCancel (default), taker larger: the maker is canceled, the taker decremented and goes on', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell own 2@100', 'sell other 5@101 acct=2', 'buy t 5@101'])
      expect(out).toContain(
        'order own canceledSelfTradePrevention rem=2 filled=0 cancelOnSelfTradePrevention',
      )
      expect(out).toContain('trade #1 3@101 buy')
      expect(out).toContain('order t filled rem=0 filled=3 decrementOnSelfTradePrevention')
    })

    test('decrementAndCancel, maker larger: the maker is decremented in place, the taker canceled', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell own 5@100', 'buy t 2@100'])
      expect(out).toContain('order own new rem=3 filled=0 decrementOnSelfTradePrevention')
      expect(out).toContain(
        'order t canceledSelfTradePrevention rem=2 filled=0 cancelOnSelfTradePrevention',
      )
      expect(levels(engine).asks).toEqual(['3@100'])
    })

    test('decrementAndCancel, equal sizes: both are canceled', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell own 2@100', 'buy t 2@100'])
      expect(out).toEqual([
        'order own new rem=2 filled=0',
        'order own canceledSelfTradePrevention rem=2 filled=0 cancelOnSelfTradePrevention',
        'order t canceledSelfTradePrevention rem=2 filled=0 cancelOnSelfTradePrevention',
      ])
    })

    test('cancelOldest: the resting order is canceled and the taker goes on', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, [
        'sell own 2@100',
        'sell other 1@100 acct=2',
        'buy t 3@100 stp=cancelOldest',
      ])
      expect(out).toContain(
        'order own canceledSelfTradePrevention rem=2 filled=0 cancelOnSelfTradePrevention',
      )
      expect(out).toContain('order t partiallyFilled rem=2 filled=1')
      expect(levels(engine)).toEqual({ bids: ['2@100'], asks: [] })
    })

    test('cancelNewest: the taker is canceled and the resting order stays', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, [
        'sell other 1@99 acct=2',
        'sell own 2@100',
        'buy t 3@100 stp=cancelNewest',
      ])
      expect(out).toContain(
        'order t canceledSelfTradePrevention rem=2 filled=1 cancelOnSelfTradePrevention',
      )
      expect(levels(engine).asks).toEqual(['2@100'])
    })

    test('cancelBoth: both orders are canceled', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell own 2@100', 'buy t 3@100 stp=cancelBoth'])
      expect(out).toContain(
        'order own canceledSelfTradePrevention rem=2 filled=0 cancelOnSelfTradePrevention',
      )
      expect(out).toContain(
        'order t canceledSelfTradePrevention rem=3 filled=0 cancelOnSelfTradePrevention',
      )
      expect(levels(engine)).toEqual({ bids: [], asks: [] })
    })

    test('a FOK order that would meet its own resting order is canceledFOK and changes nothing', () => {
      const { engine, log } = makeEngine(kind)
      const out = run(engine, log, ['sell own 2@100', 'sell other 5@101 acct=2', 'buy t 5@101 fok'])
      expect(out).toContain('order t canceledFOK rem=5 filled=0')
      expect(levels(engine).asks).toEqual(['2@100', '5@101'])
    })

    test('a market order by amountQuote meeting its own order under decrementAndCancel is canceled', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell own 2@100'])
      engine.execute(place({ orderId: 'm', orderType: 'market', amountQuote: 50_000 }))
      expect(lastOrder(log.take(), 'm').status).toBe('canceledSelfTradePrevention')
      expect(levels(engine).asks).toEqual(['2@100'])
    })
  })

  describe('update order', () => {
    const update = (fields: Record<string, unknown>): Command =>
      ({
        type: 'updateOrder',
        timestamp: nextTimestamp(),
        market: tst.market,
        accountId: 2,
        orderId: 'a',
        ...fields,
      }) as Command

    test('a price change loses time priority', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 1@101 acct=2', 'sell b 1@100 acct=3'])
      engine.execute(update({ price: 100 }))
      expect(run(engine, log, ['buy t 1@100'])).toContain('fill b 1@100 maker fee=10')
    })

    test('an amount increase loses time priority; a decrease keeps it', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 2@100 acct=2', 'sell b 2@100 acct=3'])
      engine.execute(update({ amount: 1 }))
      expect(run(engine, log, ['buy t 1@100'])).toContain('fill a 1@100 maker fee=10')
      run(engine, log, ['sell c 2@100 acct=2'])
      engine.execute({
        type: 'updateOrder',
        timestamp: nextTimestamp(),
        market: tst.market,
        accountId: 3,
        orderId: 'b',
        amount: 3,
      })
      expect(run(engine, log, ['buy u 1@100'])).toContain('fill c 1@100 maker fee=10')
    })

    test('amountRemaining updates amount, and amount updates amountRemaining', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 10@100 acct=2', 'buy t 4@100'])
      engine.execute(update({ amountRemaining: 2 }))
      expect(lastOrder(log.take(), 'a')).toMatchObject({
        amount: 6,
        amountRemaining: 2,
        filledAmount: 4,
      })
      engine.execute(update({ amount: 5 }))
      expect(lastOrder(log.take(), 'a')).toMatchObject({
        amount: 5,
        amountRemaining: 1,
        status: 'partiallyFilled',
      })
      expect(levels(engine).asks).toEqual(['1@100'])
      expect(engine.execute(update({ amount: 4 }))).toMatchObject({ errorCode: 205 })
    })

    test('a new price that crosses trades as a taker right away', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 2@105 acct=2', 'buy b 1@100 acct=3'])
      engine.execute(update({ price: 100 }))
      const events = log.take()
      expect(
        events.some(
          (event) => event.type === 'trade' && event.price === 100 && event.side === 'sell',
        ),
      ).toBe(true)
      expect(lastOrder(events, 'a')).toMatchObject({
        status: 'partiallyFilled',
        price: 100,
        amountRemaining: 1,
      })
    })

    test('update error codes: 232 nothing changes, 233 not active, 234 market order, 236, 239, 240', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, [
        'sell a 2@105 acct=2',
        'market buy m 1 acct=3',
        'buy x 1@50 acct=2',
        'cancel x acct=2',
      ])
      const code = (command: Command) => {
        const result = engine.execute(command)
        return result.ok ? 0 : result.errorCode
      }
      expect(code(update({ price: 105 }))).toBe(232)
      expect(code(update({ orderId: 'x', price: 51 }))).toBe(233)
      expect(
        code({
          type: 'updateOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 3,
          orderId: 'm',
          amount: 2,
        }),
      ).toBe(234)
      expect(code(update({ amount: 1, amountRemaining: 1 }))).toBe(236)
      expect(code(update({ amountQuote: 100 }))).toBe(239)
      expect(code(update({ orderId: 'nope', price: 100 }))).toBe(240)
      expect(code(update({ accountId: 9, price: 100 }))).toBe(240)
    })

    test('a waiting stop order can change its trigger, amount and price', () => {
      const { engine, log } = makeEngine(kind)
      engine.execute(
        place({
          orderId: 'a',
          accountId: 2,
          side: 'sell',
          orderType: 'stopLossLimit',
          amount: 1,
          price: 90,
          triggerAmount: 95,
          triggerType: 'price',
          triggerReference: 'lastTrade',
        }),
      )
      engine.execute(update({ triggerAmount: 96, price: 91, amount: 3 }))
      expect(lastOrder(log.take(), 'a')).toMatchObject({
        status: 'awaitingTrigger',
        triggerAmount: 96,
        price: 91,
        amount: 3,
      })
    })
  })

  describe('cancel', () => {
    test('cancel one by orderId or clientOrderId; a canceled order gives 233, an unknown one 240', () => {
      const { engine, log } = makeEngine(kind)
      engine.execute(place({ orderId: 'a', amount: 1, price: 100 }))
      engine.execute(place({ orderId: 'b', clientOrderId: 'my-b', amount: 1, price: 100 }))
      const cancel = (fields: Record<string, unknown>) =>
        engine.execute({
          type: 'cancelOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 1,
          ...fields,
        } as Command)
      expect(cancel({ orderId: 'a' }).ok).toBe(true)
      expect(cancel({ clientOrderId: 'my-b' }).ok).toBe(true)
      expect(cancel({ orderId: 'a' })).toMatchObject({ errorCode: 233 })
      expect(cancel({ orderId: 'zzz' })).toMatchObject({ errorCode: 240 })
      expect(orders(log.take()).map((event) => `${event.orderId}:${event.status}`)).toEqual([
        'a:new',
        'b:new',
        'a:canceled',
        'b:canceled',
      ])
    })

    test('closed orders are remembered up to closedOrdersRememberedMax, then forgotten (240) and their id free', () => {
      const log = new EventLog()
      const engine = new Engine({ book: kind, sink: log, closedOrdersRememberedMax: 2 })
      engine.execute({ type: 'addMarket', timestamp: 0, config: tst })
      const code = (command: Command) => {
        const result = engine.execute(command)
        return result.ok ? 0 : result.errorCode
      }
      const cancel = (orderId: string) =>
        code({
          type: 'cancelOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 1,
          orderId,
        })
      for (const orderId of ['a', 'b', 'c']) {
        engine.execute(place({ orderId, amount: 1, price: 100 }))
        expect(cancel(orderId)).toBe(0)
      }
      expect(cancel('a')).toBe(240)
      expect(cancel('b')).toBe(233)
      expect(cancel('c')).toBe(233)
      expect(code(place({ orderId: 'b', amount: 1, price: 100 }))).toBe(205)
      expect(code(place({ orderId: 'a', amount: 1, price: 100 }))).toBe(0)
      expect(engine.openOrders(tst.market).map((state) => state.orderId)).toEqual(['a'])
    })

    test('another account cannot cancel an order (240, as if unknown)', () => {
      const { engine } = makeEngine(kind)
      engine.execute(place({ orderId: 'a', amount: 1, price: 100 }))
      expect(
        engine.execute({
          type: 'cancelOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 2,
          orderId: 'a',
        }),
      ).toMatchObject({ errorCode: 240 })
    })

    test('cancel all of an account, in one market or in every market', () => {
      const other: MarketConfig = { ...tst, market: 'OTH-EUR', base: 'OTH' }
      const { engine, log } = makeEngine(kind, [tst, other])
      engine.execute(place({ orderId: 'a', amount: 1, price: 100 }))
      engine.execute(place({ orderId: 'b', market: 'OTH-EUR', amount: 1, price: 100 }))
      engine.execute(
        place({
          orderId: 'c',
          orderType: 'stopLoss',
          side: 'sell',
          amount: 1,
          triggerAmount: 50,
          triggerType: 'price',
          triggerReference: 'lastTrade',
        }),
      )
      engine.execute(place({ orderId: 'z', accountId: 2, amount: 1, price: 100 }))
      log.take()
      expect(
        engine.execute({
          type: 'cancelOrders',
          timestamp: nextTimestamp(),
          accountId: 1,
          market: tst.market,
        }),
      ).toEqual({ ok: true, orderIds: ['a', 'c'] })
      expect(engine.openOrders('OTH-EUR', 1)).toHaveLength(1)
      expect(
        engine.execute({ type: 'cancelOrders', timestamp: nextTimestamp(), accountId: 1 }),
      ).toEqual({ ok: true, orderIds: ['b'] })
      expect(engine.openOrders(tst.market).map((state) => state.orderId)).toEqual(['z'])
    })

    test('cancel a cancel-on-disconnect group: only its orders, with the reason cancelOnDisconnect', () => {
      const other: MarketConfig = { ...tst, market: 'OTH-EUR', base: 'OTH' }
      const { engine, log } = makeEngine(kind, [tst, other])
      engine.execute(place({ orderId: 'a', amount: 1, price: 100, codGroupId: 7 }))
      engine.execute(
        place({ orderId: 'b', market: 'OTH-EUR', amount: 1, price: 90, codGroupId: 7 }),
      )
      engine.execute(place({ orderId: 'c', amount: 1, price: 99 }))
      engine.execute(place({ orderId: 'd', amount: 1, price: 98, codGroupId: 8 }))
      engine.execute(
        place({ orderId: 'e', accountId: 2, side: 'sell', amount: 1, price: 200, codGroupId: 7 }),
      )
      log.take()
      expect(
        engine.execute({
          type: 'cancelOrders',
          timestamp: nextTimestamp(),
          accountId: 1,
          codGroupId: 7,
        }),
      ).toEqual({ ok: true, orderIds: ['a', 'b'] })
      const canceled = orders(log.take())
      expect(
        canceled.map((event) => [event.orderId, event.status, event.restatementReason]),
      ).toEqual([
        ['a', 'canceled', 'cancelOnDisconnect'],
        ['b', 'canceled', 'cancelOnDisconnect'],
      ])
      expect(
        engine
          .openOrders(tst.market)
          .map((state) => state.orderId)
          .sort(),
      ).toEqual(['c', 'd', 'e'])
      expect(
        engine.execute({
          type: 'cancelOrders',
          timestamp: nextTimestamp(),
          accountId: 1,
          codGroupId: 0,
        }),
      ).toMatchObject({ ok: false, errorCode: 205 })
    })

    test('a cancel-on-disconnect group is 1..1000 and not for market orders', () => {
      const { engine } = makeEngine(kind)
      engine.execute(place({ orderId: 's', accountId: 2, side: 'sell', amount: 5, price: 100 }))
      expect(
        engine.execute(place({ orderId: 'a', amount: 1, price: 100, codGroupId: 1001 })),
      ).toMatchObject({
        ok: false,
        errorCode: 205,
      })
      expect(
        engine.execute(place({ orderId: 'b', orderType: 'market', amount: 1, codGroupId: 3 })),
      ).toMatchObject({ ok: false, errorCode: 202 })
      expect(
        engine.execute(place({ orderId: 'c', amount: 1, price: 90, codGroupId: 3 })),
      ).toMatchObject({ ok: true })
    })
  })

  describe('fees', () => {
    test('fees are rounded up to the notional unit (here 0.01 EUR), for takers and for makers', () => {
      // Price 1.23 × amount 0.457 = 0.56211 EUR. Taker 0.25% = 0.0014052… → 0.01; maker 0.10% → 0.01.
      const config: MarketConfig = {
        ...tst,
        tickSize: '0.01',
        quantityDecimals: 3,
        minOrderInBaseAsset: '0.001',
        maxOrderInBaseAsset: '1000',
      }
      const { engine, log } = makeEngine(kind, [config])
      engine.execute(place({ orderId: 'a', accountId: 2, side: 'sell', amount: 457, price: 123 }))
      engine.execute(place({ orderId: 'b', amount: 457, price: 123 }))
      const fills = log.take().filter((event) => event.type === 'fill')
      // Quote units at 5 decimals: 0.56211 EUR = 56211; 0.01 EUR = 1000.
      expect(fills.map((fill) => [fill.quote, fill.fee, fill.taker])).toEqual([
        [56_211, 1_000, false],
        [56_211, 1_000, true],
      ])
    })

    test('an exact fee is not rounded; a negative maker fee (rebate) rounds towards zero', () => {
      const { engine, log } = makeEngine(kind)
      // 500.00 EUR notional: taker 0.25% = 1.25 exactly; maker −0.10% = −0.50 exactly.
      const out = run(engine, log, ['sell a 5@100 acct=2 maker=-1000', 'buy b 5@100'])
      expect(out.filter((line) => line.startsWith('fill'))).toEqual([
        'fill a 5@100 maker fee=-50',
        'fill b 5@100 taker fee=125',
      ])
      // 1 × 10001 = 10001.00 EUR: −0.1% = −10.001 → −10.00 (towards zero); 0.25% = 25.0025 → 25.01.
      const odd = run(engine, log, ['sell c 1@10001 acct=2 maker=-1000', 'buy d 1@10001'])
      expect(odd.filter((line) => line.startsWith('fill'))).toEqual([
        'fill c 1@10001 maker fee=-1000',
        'fill d 1@10001 taker fee=2501',
      ])
    })

    test('feePaid accumulates over the fills of an order', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 1@100 acct=2', 'sell b 1@100 acct=2'])
      engine.execute(place({ orderId: 't', amount: 2, price: 100 }))
      expect(lastOrder(log.take(), 't')).toMatchObject({
        feePaid: 50,
        filledAmountQuote: 20_000,
        feeCurrency: 'EUR',
      })
    })

    test('an order split into many fills pays the fee of its total, not a rounded fee per fill', () => {
      // Same market as the rounding test: each fill of 0.457 @ 1.23 alone would round 0.0014 EUR
      // of taker fee up to 0.01; ten of them must cost what one fill of the total costs.
      const config: MarketConfig = {
        ...tst,
        tickSize: '0.01',
        quantityDecimals: 3,
        minOrderInBaseAsset: '0.001',
        maxOrderInBaseAsset: '1000',
      }
      const { engine, log } = makeEngine(kind, [config])
      for (let index = 0; index < 10; index++) {
        engine.execute(
          place({ orderId: `s${index}`, accountId: 2, side: 'sell', amount: 457, price: 123 }),
        )
      }
      engine.execute(place({ orderId: 't', amount: 4_570, price: 123 }))
      const events = log.take()
      const takerFees = events
        .filter((event) => event.type === 'fill' && event.taker)
        .map((event) => (event as FillEvent).fee)
      expect(takerFees).toHaveLength(10)
      // Total 5.6211 EUR; 0.25% = 0.01405… → 0.02 EUR = 2,000 quote units, once.
      expect(takerFees.reduce((sum, fee) => sum + fee, 0)).toBe(feeFor(562_110, 2_500, 1_000))
      expect(lastOrder(events, 't').feePaid).toBe(2_000)
    })

    test('a dust fill never costs more than its own notional', () => {
      // 1 unit @ 0.01 is 0.00001 EUR of notional; a rounded-up fee of 0.01 EUR would exceed it.
      const config: MarketConfig = {
        ...tst,
        tickSize: '0.01',
        quantityDecimals: 3,
        minOrderInBaseAsset: '0.001',
        minOrderInQuoteAsset: '0',
        maxOrderInBaseAsset: '1000',
      }
      const { engine, log } = makeEngine(kind, [config])
      engine.execute(place({ orderId: 's', accountId: 2, side: 'sell', amount: 1, price: 1 }))
      engine.execute(place({ orderId: 'b', amount: 1, price: 1 }))
      const fills = log.take().filter((event) => event.type === 'fill') as FillEvent[]
      expect(fills.map((fill) => [fill.quote, fill.fee])).toEqual([
        [1, 1],
        [1, 1],
      ])
    })

    test('an order filled as taker and then as maker pays each role its own rate', () => {
      // 0.15% maker, 0.25% taker: 1 @ 100 as taker costs 0.25 EUR, then 1 @ 100 as maker 0.15.
      const { engine, log } = makeEngine(kind)
      const fills = (lines: string[]) =>
        run(engine, log, lines).filter((line) => line.startsWith('fill t'))
      expect(fills(['sell a 1@100 acct=2', 'buy t 2@100 maker=1500'])).toEqual([
        'fill t 1@100 taker fee=25',
      ])
      expect(fills(['sell b 1@100 acct=3'])).toEqual(['fill t 1@100 maker fee=15'])
      // Placed under the rules journaled before: the maker rate on the whole 200 EUR less 0.25.
      expect(fills(['sell c 1@100 acct=2', 'buy t2 2@100 maker=1500 rules=1'])).toEqual([
        'fill t2 1@100 taker fee=25',
      ])
      expect(
        run(engine, log, ['sell d 1@100 acct=3']).filter((line) => line.startsWith('fill t2')),
      ).toEqual(['fill t2 1@100 maker fee=5'])
    })

    test('an order filled as maker and then updated to cross pays the taker rate on the rest only', () => {
      const { engine, log } = makeEngine(kind)
      // Rests at 99, fills 1 as maker, then is moved to 100 where it takes 1 of another seller.
      const feesOf = (orderId: string, events: readonly EngineEvent[]) =>
        events
          .filter((event) => event.type === 'fill' && event.orderId === orderId)
          .map((event) => (event as FillEvent).fee)
      const cross = (orderId: string, rules: string): number[] => {
        const events: EngineEvent[] = []
        engine.execute(parseCommand(`buy ${orderId} 2@99 maker=1500 ${rules}`))
        engine.execute(parseCommand(`sell ${orderId}a 1@99 acct=2`))
        engine.execute(parseCommand(`sell ${orderId}b 1@100 acct=3`))
        events.push(...log.take())
        engine.execute({
          type: 'updateOrder',
          timestamp: nextTimestamp(),
          market: tst.market,
          accountId: 1,
          orderId,
          price: 100,
        })
        events.push(...log.take())
        return feesOf(orderId, events)
      }
      // 0.15% of 99 = 0.1485 → 0.15; with 0.25% of 100 = 0.25 it is 0.3985 → 0.40 rounded up
      // once, so the taker fill pays 0.25.
      expect(cross('t', '')).toEqual([15, 25])
      // Placed under the rules journaled before: 0.25% of the whole 199 EUR (0.50) less 0.15.
      expect(cross('t2', 'rules=1')).toEqual([15, 35])
    })

    test('fee rates outside ±10%, a negative taker fee or unknown fee rules are error 205', () => {
      const { engine } = makeEngine(kind)
      expect(
        engine.execute(place({ orderId: 'a', amount: 1, price: 1, takerFeePpm: -1 })),
      ).toMatchObject({ errorCode: 205 })
      expect(
        engine.execute(place({ orderId: 'b', amount: 1, price: 1, makerFeePpm: 100_001 })),
      ).toMatchObject({ errorCode: 205 })
      const rules = { feeRules: 3 } as unknown as { feeRules: 2 }
      expect(engine.execute(place({ orderId: 'c', amount: 1, price: 1, ...rules }))).toMatchObject({
        errorCode: 205,
        error: expect.stringContaining('feeRules'),
      })
    })
  })

  describe('events', () => {
    test('each trade gives a fill for both sides with one fillId, the taker flag, and a public trade with the taker side', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['buy a 1@100 acct=2'])
      log.take()
      engine.execute(place({ orderId: 't', accountId: 3, side: 'sell', amount: 1, price: 100 }))
      const [makerFill, takerFill, trade] = log.take()
      expect(makerFill).toMatchObject({
        type: 'fill',
        orderId: 'a',
        side: 'buy',
        taker: false,
        fillId: 1,
        amount: 1,
        price: 100,
      })
      expect(takerFill).toMatchObject({
        type: 'fill',
        orderId: 't',
        side: 'sell',
        taker: true,
        fillId: 1,
      })
      expect(trade).toEqual({
        type: 'trade',
        market: tst.market,
        tradeId: 1,
        timestamp: expect.any(Number),
        price: 100,
        amount: 1,
        side: 'sell',
      })
    })

    test('book deltas: one batch per flush with changed levels only, the nonce rises by exactly 1', () => {
      const { engine, log } = makeEngine(kind)
      const nonces: number[] = []
      const flush = () => {
        const delta = engine.flushBook({
          type: 'flushBook',
          timestamp: nextTimestamp(),
          market: tst.market,
        })
        for (const event of log.take()) if (event.type === 'book') nonces.push(event.nonce)
        return delta
      }
      expect(flush()).toBeNull()
      run(engine, log, ['buy a 1@100', 'buy b 2@100', 'sell c 3@105 acct=2', 'buy d 1@99'])
      expect(flush()).toMatchObject({
        nonce: 1,
        bids: [
          [100, 3],
          [99, 1],
        ],
        asks: [[105, 3]],
      })
      expect(flush()).toBeNull()
      // A change that is undone inside the batch publishes nothing and keeps the nonce.
      run(engine, log, ['buy e 1@98', 'cancel e'])
      expect(flush()).toBeNull()
      run(engine, log, ['cancel d', 'market sell m 1 acct=2'])
      expect(flush()).toMatchObject({
        nonce: 2,
        bids: [
          [100, 2],
          [99, 0],
        ],
        asks: [],
      })
      expect(nonces).toEqual([1, 2])
    })

    test('knows of unpublished changes, a restored engine too, until a flush', () => {
      const { engine, log } = makeEngine(kind)
      const changed = (of: Engine) => of.hasUnpublishedChanges(tst.market)
      expect(changed(engine)).toBe(false)
      run(engine, log, ['buy a 1@100'])
      expect(changed(engine)).toBe(true)
      const restored = Engine.restore(engine.snapshot(), { book: kind, sink: new EventLog() })
      expect(changed(restored)).toBe(true)
      expect(
        restored.flushBook({ type: 'flushBook', timestamp: nextTimestamp(), market: tst.market }),
      ).toMatchObject({ nonce: 1, bids: [[100, 1]] })
      expect(changed(restored)).toBe(false)
      expect(engine.hasUnpublishedChanges('NOPE-EUR')).toBe(false)
    })

    test('a book snapshot is the published state with its nonce, unpublished changes left out', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['buy a 1@100', 'sell c 3@105 acct=2'])
      engine.flushBook({ type: 'flushBook', timestamp: nextTimestamp(), market: tst.market })
      run(engine, log, ['buy b 2@100', 'buy d 1@101', 'cancel a'])
      expect(engine.bookSnapshot(tst.market)).toEqual({
        market: tst.market,
        nonce: 1,
        bids: [[100, 1]],
        asks: [[105, 3]],
      })
      const delta = engine.flushBook({
        type: 'flushBook',
        timestamp: nextTimestamp(),
        market: tst.market,
      })
      expect(delta).toMatchObject({
        nonce: 2,
        bids: [
          [101, 1],
          [100, 2],
        ],
      })
      expect(engine.bookSnapshot(tst.market, 1)).toEqual({
        market: tst.market,
        nonce: 2,
        bids: [[101, 1]],
        asks: [[105, 3]],
      })
    })

    test('ticker events carry best bid, best ask and last price, only when one of them changes', () => {
      const { engine, log } = makeEngine(kind)
      const tickers = (line: string) => {
        engine.execute(parseCommand(line))
        return log.take().filter((event) => event.type === 'ticker')
      }
      expect(tickers('buy a 1@100')).toEqual([
        {
          type: 'ticker',
          market: tst.market,
          bestBid: 100,
          bestBidSize: 1,
          bestAsk: null,
          bestAskSize: null,
          lastPrice: null,
        },
      ])
      expect(tickers('buy b 1@99')).toEqual([])
      expect(tickers('sell c 1@100 acct=2')).toEqual([
        {
          type: 'ticker',
          market: tst.market,
          bestBid: 99,
          bestBidSize: 1,
          bestAsk: null,
          bestAskSize: null,
          lastPrice: 100,
        },
      ])
    })

    test('order events carry the full order state', () => {
      const { engine, log } = makeEngine(kind)
      engine.execute(
        place({
          orderId: 'a',
          clientOrderId: 'c-a',
          operatorId: 7,
          amount: 2,
          price: 100,
          timestamp: 5,
        }),
      )
      expect(log.take()[0]).toEqual({
        type: 'order',
        orderId: 'a',
        clientOrderId: 'c-a',
        market: tst.market,
        accountId: 1,
        operatorId: 7,
        created: 5,
        updated: 5,
        status: 'new',
        side: 'buy',
        orderType: 'limit',
        amount: 2,
        amountRemaining: 2,
        amountQuote: null,
        amountQuoteRemaining: null,
        price: 100,
        triggerAmount: null,
        triggerType: null,
        triggerReference: null,
        filledAmount: 0,
        filledAmountQuote: 0,
        feePaid: 0,
        feeCurrency: 'EUR',
        selfTradePrevention: 'decrementAndCancel',
        visible: true,
        timeInForce: 'GTC',
        postOnly: false,
        disableMarketProtection: false,
        restatementReason: null,
      })
    })
  })

  describe('snapshot and restore', () => {
    test('a restored engine continues exactly like the original', () => {
      const { engine, log } = makeEngine(kind)
      run(engine, log, ['sell a 5@101 acct=2', 'buy b 3@99', 'buy c 2@101'])
      engine.execute(
        place({
          orderId: 's',
          orderType: 'stopLoss',
          side: 'sell',
          amount: 1,
          triggerAmount: 99,
          triggerType: 'price',
          triggerReference: 'lastTrade',
          accountId: 3,
        }),
      )
      log.take()
      const snapshot = JSON.parse(JSON.stringify(engine.snapshot()))
      const restoredLog = new EventLog()
      const restored = Engine.restore(snapshot, { book: kind, sink: restoredLog })
      const later = ['sell d 4@99 acct=4', 'cancel b', 'market buy m 3 acct=5']
      expect(run(restored, restoredLog, later)).toEqual(run(engine, log, later))
      expect(restored.stateHash()).toBe(engine.stateHash())
    })

    test('a restored order keeps its cancel-on-disconnect group', () => {
      const { engine, log } = makeEngine(kind)
      engine.execute(place({ orderId: 'a', amount: 1, price: 100, codGroupId: 4 }))
      engine.execute(place({ orderId: 'b', amount: 1, price: 99 }))
      log.take()
      const snapshot = JSON.parse(JSON.stringify(engine.snapshot()))
      const restored = Engine.restore(snapshot, { book: kind, sink: new EventLog() })
      expect(restored.stateHash()).toBe(engine.stateHash())
      expect(
        restored.execute({
          type: 'cancelOrders',
          timestamp: nextTimestamp(),
          accountId: 1,
          codGroupId: 4,
        }),
      ).toEqual({ ok: true, orderIds: ['a'] })
    })
  })
})
