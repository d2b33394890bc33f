import { describe, expect, test } from 'vitest'
import { bookKinds, levels, makeEngine, run } from './helpers.ts'

// The book contract as a table a reviewer can check by eye: the book before (commands that build
// it), one command, the events it emits, and the book after. Account 1 is the actor unless a line
// says acct=N. Fees: maker 0.10%, taker 0.25%, in cents (quote units of TST-EUR).
interface Scenario {
  readonly name: string
  readonly before: readonly string[]
  readonly command: string
  readonly events: readonly string[]
  readonly after: { readonly bids: readonly string[]; readonly asks: readonly string[] }
}

const scenarios: readonly Scenario[] = [
  {
    name: 'a bid below the ask rests',
    before: ['sell a 5@101 acct=2'],
    command: 'buy b 3@100',
    events: ['order b new rem=3 filled=0'],
    after: { bids: ['3@100'], asks: ['5@101'] },
  },
  {
    name: 'a bid at the ask takes it completely; both fill at the maker price',
    before: ['sell a 3@101 acct=2'],
    command: 'buy b 3@101',
    events: [
      'fill a 3@101 maker fee=31',
      'fill b 3@101 taker fee=76',
      'trade #1 3@101 buy',
      'order a filled rem=0 filled=3',
      'order b filled rem=0 filled=3',
    ],
    after: { bids: [], asks: [] },
  },
  {
    name: 'a larger bid sweeps two levels and rests the remainder at its limit',
    before: ['sell a 2@101 acct=2', 'sell c 2@102 acct=3', 'sell d 2@104 acct=3'],
    command: 'buy b 6@102',
    events: [
      'fill a 2@101 maker fee=21',
      'fill b 2@101 taker fee=51',
      'trade #1 2@101 buy',
      'order a filled rem=0 filled=2',
      'fill c 2@102 maker fee=21',
      'fill b 2@102 taker fee=51',
      'trade #2 2@102 buy',
      'order c filled rem=0 filled=2',
      'order b partiallyFilled rem=2 filled=4',
    ],
    after: { bids: ['2@102'], asks: ['2@104'] },
  },
  {
    name: 'time priority inside a level: the earlier order fills first',
    before: ['buy first 2@100 acct=2', 'buy second 2@100 acct=3'],
    command: 'sell s 3@100',
    events: [
      'fill first 2@100 maker fee=20',
      'fill s 2@100 taker fee=50',
      'trade #1 2@100 sell',
      'order first filled rem=0 filled=2',
      'fill second 1@100 maker fee=10',
      'fill s 1@100 taker fee=25',
      'trade #2 1@100 sell',
      'order second partiallyFilled rem=1 filled=1',
      'order s filled rem=0 filled=3',
    ],
    after: { bids: ['1@100'], asks: [] },
  },
  {
    name: 'IOC takes what it can and cancels the rest',
    before: ['sell a 1@101 acct=2'],
    command: 'buy b 3@101 ioc',
    events: [
      'fill a 1@101 maker fee=11',
      'fill b 1@101 taker fee=26',
      'trade #1 1@101 buy',
      'order a filled rem=0 filled=1',
      'order b canceledIOC rem=2 filled=1',
    ],
    after: { bids: [], asks: [] },
  },
  {
    name: 'FOK that cannot fill completely does nothing',
    before: ['sell a 1@101 acct=2', 'sell c 5@103 acct=2'],
    command: 'buy b 3@102 fok',
    events: ['order b canceledFOK rem=3 filled=0'],
    after: { bids: [], asks: ['1@101', '5@103'] },
  },
  {
    name: 'postOnly that would take is canceled, the book unchanged',
    before: ['sell a 1@101 acct=2'],
    command: 'buy b 1@101 postOnly',
    events: ['order b canceledPostOnly rem=1 filled=0'],
    after: { bids: [], asks: ['1@101'] },
  },
  {
    name: 'a market sell walks the bids until filled',
    before: ['buy a 1@100 acct=2', 'buy c 4@99 acct=3'],
    command: 'market sell m 2',
    events: [
      'fill a 1@100 maker fee=10',
      'fill m 1@100 taker fee=25',
      'trade #1 1@100 sell',
      'order a filled rem=0 filled=1',
      'fill c 1@99 maker fee=10',
      'fill m 1@99 taker fee=25',
      'trade #2 1@99 sell',
      'order c partiallyFilled rem=3 filled=1',
      'order m filled rem=0 filled=2',
    ],
    after: { bids: ['3@99'], asks: [] },
  },
  {
    name: 'a market buy by quote spends 250.00 EUR: 2 at 100, then 0.5 cannot be bought at 101',
    before: ['sell a 2@100 acct=2', 'sell c 4@101 acct=3'],
    command: 'market buy m quote=25000',
    events: [
      'fill a 2@100 maker fee=20',
      'fill m 2@100 taker fee=50',
      'trade #1 2@100 buy',
      'order a filled rem=0 filled=2',
      'order m filled quoteRem=5000 filled=2',
    ],
    after: { bids: [], asks: ['4@101'] },
  },
  {
    name: 'a market order beyond the 10% band stops with canceledMarketProtection',
    before: ['sell a 1@100 acct=2', 'sell c 1@120 acct=2'],
    command: 'market buy m 2',
    events: [
      'fill a 1@100 maker fee=10',
      'fill m 1@100 taker fee=25',
      'trade #1 1@100 buy',
      'order a filled rem=0 filled=1',
      'order m canceledMarketProtection rem=1 filled=1 cancelOnExecutionPriceProtection',
    ],
    after: { bids: [], asks: ['1@120'] },
  },
  {
    name: 'self-trade, decrementAndCancel: own smaller ask canceled, taker decremented, then trades',
    before: ['sell own 1@100', 'sell a 3@100 acct=2'],
    command: 'buy b 3@100',
    events: [
      'order own canceledSelfTradePrevention rem=1 filled=0 cancelOnSelfTradePrevention',
      'fill a 2@100 maker fee=20',
      'fill b 2@100 taker fee=50',
      'trade #1 2@100 buy',
      'order a partiallyFilled rem=1 filled=2',
      'order b filled rem=0 filled=2 decrementOnSelfTradePrevention',
    ],
    after: { bids: [], asks: ['1@100'] },
  },
  {
    name: 'self-trade, cancelNewest: the taker is canceled before its own ask',
    before: ['sell a 1@99 acct=2', 'sell own 1@100'],
    command: 'buy b 3@101 stp=cancelNewest',
    events: [
      'fill a 1@99 maker fee=10',
      'fill b 1@99 taker fee=25',
      'trade #1 1@99 buy',
      'order a filled rem=0 filled=1',
      'order b canceledSelfTradePrevention rem=2 filled=1 cancelOnSelfTradePrevention',
    ],
    after: { bids: [], asks: ['1@100'] },
  },
  {
    name: 'cancel removes the order and its level',
    before: ['buy a 1@100', 'buy c 1@99'],
    command: 'cancel a',
    events: ['order a canceled rem=1 filled=0'],
    after: { bids: ['1@99'], asks: [] },
  },
]

describe.each(bookKinds)('book contract with the %s book', (kind) => {
  test.each(scenarios)('$name', (scenario) => {
    const { engine, log } = makeEngine(kind)
    run(engine, log, scenario.before)
    expect(run(engine, log, [scenario.command])).toEqual(scenario.events)
    expect(levels(engine)).toEqual(scenario.after)
  })
})
