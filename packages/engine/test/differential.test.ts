import { expect, test } from 'vitest'
import { Engine, EventLog } from '../src/index.ts'
import { CommandGenerator, randomMarkets, seeded } from './generate.ts'

// The fast book against the reference book on one long seeded random stream: every event and a
// state hash are compared after every command. Any difference stops the test at that command.
const commandCount = 100_000
const seed = 20261122

function engineWith(kind: 'fast' | 'reference') {
  const log = new EventLog()
  const engine = new Engine({ book: kind, sink: log })
  for (const config of randomMarkets) engine.addMarket({ type: 'addMarket', timestamp: 0, config })
  return { engine, log }
}

test('the fast book and the reference book emit identical events on 100,000 random commands', () => {
  const reference = engineWith('reference')
  const fast = engineWith('fast')
  const generator = new CommandGenerator(seeded(seed))
  const seen = new Map<string, number>()
  let events = 0
  for (let index = 0; index < commandCount; index++) {
    const command = generator.next()
    const expected = JSON.stringify(reference.engine.execute(command))
    const actual = JSON.stringify(fast.engine.execute(command))
    const expectedEvents = reference.log.take()
    const actualEvents = fast.log.take()
    events += expectedEvents.length
    for (const event of expectedEvents) {
      const key = event.type === 'order' ? `${event.orderType}:${event.status}` : event.type
      seen.set(key, (seen.get(key) ?? 0) + 1)
    }
    const expectedText = JSON.stringify(expectedEvents)
    const actualText = JSON.stringify(actualEvents)
    if (
      expected !== actual ||
      expectedText !== actualText ||
      reference.engine.stateHash() !== fast.engine.stateHash()
    ) {
      // Only on a difference: let vitest print a readable diff.
      expect({ index, command, result: actual, events: actualEvents }).toEqual({
        index,
        command,
        result: expected,
        events: expectedEvents,
      })
      expect(fast.engine.stateHash()).toBe(reference.engine.stateHash())
    }
  }
  // The stream must really exercise the rules it claims to compare.
  expect(events).toBeGreaterThan(commandCount)
  for (const key of [
    'trade',
    'book',
    'ticker',
    'limit:filled',
    'limit:partiallyFilled',
    'limit:canceledIOC',
    'limit:canceledFOK',
    'limit:canceledPostOnly',
    'limit:canceledSelfTradePrevention',
    'limit:canceled',
    'market:filled',
    'market:expired',
    'market:canceledMarketProtection',
    'market:canceledSelfTradePrevention',
    'stopLoss:awaitingTrigger',
    'stopLoss:filled',
    'stopLossLimit:new',
    'takeProfit:filled',
    'takeProfitLimit:partiallyFilled',
  ]) {
    expect(seen.get(key) ?? 0, key).toBeGreaterThan(0)
  }
}, 60_000)
