// An order as the wire shows it, built from the engine's own order events: the full object of
// REST and WebSocket replies, and the account channel's `order` event (protocol §4.2, §6.3).
import type { EngineEvent, OrderState } from '@polder/engine'
import { orderEvent } from '@polder/protocol'
import { describe, expect, it } from 'vitest'
import { orderEventText, orderObject } from '../src/api/wireFormat.ts'
import { ExchangeCore } from '../src/core/exchangeCore.ts'
import { toLedgerUnits } from '../src/ledger/ledger.ts'
import { testListing } from './fixtures/testListing.ts'

const btcEur = testListing.markets[0]!
const decimalsOf = (asset: string) => (asset === 'EUR' ? 2 : 8)

/** A resting buy's order event, as the core's outcome carries it, and the core. */
function restingBuy() {
  const core = new ExchangeCore()
  core.apply({ type: 'addMarket', timestamp: 0, config: btcEur })
  core.apply({
    type: 'deposit',
    timestamp: 1,
    accountId: 1,
    asset: 'EUR',
    amount: toLedgerUnits(100_000, 2).toString(),
    reference: 'd1',
  })
  const outcome = core.apply({
    type: 'placeOrder',
    timestamp: 2,
    market: 'BTC-EUR',
    orderId: '019aa000-0000-7000-8000-000000000001',
    accountId: 1,
    side: 'buy',
    orderType: 'limit',
    price: 50_000,
    amount: 1_000_000,
    makerFeePpm: 1_500,
    takerFeePpm: 2_500,
  })
  if (!outcome.ok) throw new Error(`the order was refused: ${outcome.errorCode}`)
  const event = outcome.events.find((each: EngineEvent) => each.type === 'order')
  if (event?.type !== 'order') throw new Error('no order event')
  const spec = core.engine.market('BTC-EUR')
  if (spec === null) throw new Error('no market')
  return { core, event, spec }
}

describe('an order on the wire', () => {
  it("is the order's fields, its funds on hold and its fills, and never the event's type", () => {
    const { core, event, spec } = restingBuy()
    const wire = orderObject(spec, event, core.heldFor('BTC-EUR', event.orderId), [], decimalsOf)
    expect(wire).not.toHaveProperty('type')
    expect(wire).toMatchObject({
      orderId: event.orderId,
      market: 'BTC-EUR',
      status: 'new',
      amount: '0.01000000',
      price: '50000',
      onHold: '501.25',
      onHoldCurrency: 'EUR',
      fills: [],
    })
    // The same state without its event's type gives the same object.
    const { type: _type, ...state } = event
    expect(orderObject(spec, state as OrderState, 50_125n * 10n ** 16n, [], decimalsOf)).toEqual(
      wire,
    )
  })

  it('as an account event is that object without its fills, `event` first, as the protocol reads it', () => {
    const { core, event, spec } = restingBuy()
    const held = core.heldFor('BTC-EUR', event.orderId)
    const text = orderEventText(spec, event, held, decimalsOf)
    expect(text.startsWith('{"event":"order",')).toBe(true)
    const { fills: _fills, ...withoutFills } = orderObject(spec, event, held, [], decimalsOf)
    expect(JSON.parse(text)).toEqual({ event: 'order', ...withoutFills })
    expect(orderEvent.strict().parse(JSON.parse(text))).toEqual(JSON.parse(text))
  })
})
