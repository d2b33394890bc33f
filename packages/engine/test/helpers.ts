import {
  type BookKind,
  type Command,
  Engine,
  type EngineEvent,
  EventLog,
  type MarketConfig,
  type PlaceOrder,
} from '../src/index.ts'

/**
 * The test market: whole-number prices and amounts so scenarios read easily. Quote units are
 * cents (notionalDecimals 2): price 100 × amount 5 = 50000 quote units = 500.00 EUR.
 */
export const tst: MarketConfig = {
  market: 'TST-EUR',
  base: 'TST',
  quote: 'EUR',
  tickSize: '1',
  quantityDecimals: 0,
  notionalDecimals: 2,
  pricePrecision: 6,
  minOrderInBaseAsset: '1',
  maxOrderInBaseAsset: '1000000',
  minOrderInQuoteAsset: '0',
  maxOrderInQuoteAsset: '1000000000',
  maxPrice: '1000000',
}

export const bookKinds: readonly BookKind[] = ['reference', 'fast']

export function makeEngine(kind: BookKind, markets: readonly MarketConfig[] = [tst]) {
  const log = new EventLog()
  const engine = new Engine({ book: kind, sink: log })
  for (const config of markets) engine.addMarket({ type: 'addMarket', timestamp: 0, config })
  return { engine, log }
}

let clock = 1_000

/** A limit buy of account 1 with fees 0.10% maker / 0.25% taker unless overridden. */
export function place(fields: Partial<PlaceOrder> & { orderId: string }): PlaceOrder {
  clock++
  return {
    type: 'placeOrder',
    timestamp: clock,
    market: tst.market,
    accountId: 1,
    side: 'buy',
    orderType: 'limit',
    makerFeePpm: 1_000,
    takerFeePpm: 2_500,
    feeRules: 2,
    ...fields,
  }
}

export function nextTimestamp(): number {
  return ++clock
}

/**
 * A one-line command notation for readable scenarios:
 *   'buy b1 5@100'              limit buy, account 1
 *   'sell a1 5@101 acct=2'      limit sell of account 2
 *   'buy t 8@102 ioc|fok|postOnly stp=cancelOldest'
 *   'market buy m 8'            market buy by amount; 'market buy m quote=50000' by amountQuote
 *   'cancel a1', 'cancel a1 acct=2'
 *   'buy b1 5@100 maker=1500 taker=2500 rules=1'   fee rates and rules (default 2)
 */
export function parseCommand(text: string, market = tst.market): Command {
  const words = text.trim().split(/\s+/)
  const options = new Map<string, string>()
  const flags = new Set<string>()
  const positional: string[] = []
  for (const word of words) {
    const equals = word.indexOf('=')
    if (equals > 0) options.set(word.slice(0, equals), word.slice(equals + 1))
    else if (['ioc', 'fok', 'postOnly', 'noProtection'].includes(word)) flags.add(word)
    else positional.push(word)
  }
  const accountId = Number(options.get('acct') ?? '1')
  const timestamp = nextTimestamp()
  const stp = options.get('stp') as PlaceOrder['selfTradePrevention']
  const common = {
    timestamp,
    market,
    accountId,
    makerFeePpm: Number(options.get('maker') ?? '1000'),
    takerFeePpm: Number(options.get('taker') ?? '2500'),
    // 'rules=1': fees as journaled before per-role fees (PlaceOrder.feeRules).
    ...(options.get('rules') === '1' ? {} : { feeRules: 2 as const }),
    ...(stp === undefined ? {} : { selfTradePrevention: stp }),
  }
  const [first, second, third, fourth] = positional
  if (first === 'cancel') {
    return { type: 'cancelOrder', timestamp, market, accountId, orderId: second as string }
  }
  if (first === 'market') {
    const quote = options.get('quote')
    return {
      type: 'placeOrder',
      ...common,
      orderId: third as string,
      side: second as 'buy' | 'sell',
      orderType: 'market',
      ...(quote === undefined ? { amount: Number(fourth) } : { amountQuote: Number(quote) }),
      ...(flags.has('noProtection') ? { disableMarketProtection: true } : {}),
    }
  }
  const [amount, price] = (third as string).split('@')
  return {
    type: 'placeOrder',
    ...common,
    orderId: second as string,
    side: first as 'buy' | 'sell',
    orderType: 'limit',
    amount: Number(amount),
    price: Number(price),
    ...(flags.has('ioc') ? { timeInForce: 'IOC' as const } : {}),
    ...(flags.has('fok') ? { timeInForce: 'FOK' as const } : {}),
    ...(flags.has('postOnly') ? { postOnly: true } : {}),
  }
}

/** A one-line rendering of an event for scenario tables (tickers and books left out). */
export function describeEvent(event: EngineEvent): string | null {
  switch (event.type) {
    case 'order': {
      const remaining =
        event.amountRemaining === null
          ? `quoteRem=${event.amountQuoteRemaining}`
          : `rem=${event.amountRemaining}`
      const reason = event.restatementReason === null ? '' : ` ${event.restatementReason}`
      return `order ${event.orderId} ${event.status} ${remaining} filled=${event.filledAmount}${reason}`
    }
    case 'fill':
      return `fill ${event.orderId} ${event.amount}@${event.price} ${event.taker ? 'taker' : 'maker'} fee=${event.fee}`
    case 'trade':
      return `trade #${event.tradeId} ${event.amount}@${event.price} ${event.side}`
    default:
      return null
  }
}

export function run(engine: Engine, log: EventLog, lines: readonly string[]): string[] {
  const described: string[] = []
  for (const line of lines) {
    const result = engine.execute(parseCommand(line))
    if (!result.ok) described.push(`error ${result.errorCode}`)
    for (const event of log.take()) {
      const text = describeEvent(event)
      if (text !== null) described.push(text)
    }
  }
  return described
}

/** The book as compact strings: 'price x size' per level, best first. */
export function levels(engine: Engine, market = tst.market) {
  const show = (side: 'buy' | 'sell') =>
    engine.depth(market, side).map(([price, size]) => `${size}@${price}`)
  return { bids: show('buy'), asks: show('sell') }
}
