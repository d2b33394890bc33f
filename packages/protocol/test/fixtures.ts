// Example payloads. The `verbatim` ones are copied character for character from
// ../shared/protocol.md (section in the name); the others are built from the field lists of the
// same sections.

export const apiKey64 = 'a'.repeat(64)
/** protocol §2.1 test vector for `1548175200641GET/v2/websocket` with secret `bitvavo`. */
export const websocketSignature = '653fc0505431c63a043273da4bd2f0927eae83948d796084f313e5d1131b0d6f'

export const verbatim = {
  /** §2.2, with the `<apiKey>` and `<hex>` placeholders filled in below. */
  authenticate:
    '{"action":"authenticate","key":"<apiKey>","signature":"<hex>","timestamp":1548175200641,"window":10000}',
  /** §2.2 success reply. */
  authenticated: '{"event":"authenticate","authenticated":true}',
  /** §2.2 failure reply (the "..." is the doc's). */
  authenticateFailed: '{"action":"authenticate","errorCode":309,"error":"..."}',
  /** §2.1 first signing test vector body. */
  createOrderBody:
    '{"market":"BTC-EUR","side":"buy","price":"5000","amount":"1.23","orderType":"limit"}',
  /** §6.1 framing example. */
  privateCreateOrder:
    '{"action":"privateCreateOrder","requestId":7,"market":"BTC-EUR","side":"buy","orderType":"limit","amount":"1","price":"3000","operatorId":1}',
  /** §6.3 subscribe example. */
  subscribe:
    '{"action":"subscribe","channels":[{"name":"book","markets":["BTC-EUR","ETH-EUR"]},{"name":"candles","interval":["1m","1h"],"markets":["BTC-EUR"]}]}',
  /** §6.3 subscribed confirmation example. */
  subscribed:
    '{"event":"subscribed","subscriptions":{"book":["BTC-EUR"],"ticker24h":["ETH-EUR"],"candles":{"1m":["BTC-EUR"],"1h":["BTC-EUR"]},"account":["BTC-EUR"]}}',
  /** §6.4 step 1 of the SDK's local book (with M = BTC-EUR). */
  getBook: '{"action":"getBook","market":"BTC-EUR"}',
  sdkBookSubscribe: '{"action":"subscribe","channels":[{"name":"book","markets":["BTC-EUR"]}]}',
  /** §3.2 GET /account response. */
  account: '{"fees":{"taker":"0.0025","maker":"0.0015","volume":"10000.00"}}',
  /** §5 WS error example. */
  wsError:
    '{"action":"privateCreateOrder","market":"BTC-EUR","errorCode":216,"error":"You do not have sufficient balance to complete this operation."}',
} as const

export function authenticateExample(): unknown {
  return JSON.parse(
    verbatim.authenticate.replace('<apiKey>', apiKey64).replace('<hex>', websocketSignature),
  )
}

export const orderId = 'dec6a640-5b4c-45bc-8d22-3b41c6716630'
export const otherOrderId = '2e7ce7fc-44e2-4d80-a4a7-d079c4750b61'
export const fillId = 'b0c86aa5-6ed3-4a2d-ba3a-be9a964220f4'

export const market = {
  market: 'BTC-EUR',
  status: 'trading',
  base: 'BTC',
  quote: 'EUR',
  pricePrecision: 5,
  minOrderInBaseAsset: '0.0001',
  minOrderInQuoteAsset: '5',
  maxOrderInBaseAsset: '1000000000',
  maxOrderInQuoteAsset: '1000000000',
  orderTypes: ['market', 'limit', 'stopLoss', 'stopLossLimit', 'takeProfit', 'takeProfitLimit'],
  quantityDecimals: 8,
  notionalDecimals: 2,
  tickSize: '1',
  maxOpenOrders: 100,
  feeCategory: 'A',
}

export const asset = {
  symbol: 'BTC',
  name: 'Bitcoin',
  decimals: 8,
  depositFee: '0',
  depositConfirmations: 10,
  depositStatus: 'OK',
  withdrawalFee: '0.000001',
  withdrawalMinAmount: '0.000001',
  withdrawalStatus: 'OK',
  networks: ['Mainnet'],
  message: '',
}

export const fill = {
  id: fillId,
  timestamp: 1590505649245,
  amount: '0.249825',
  price: '183.49',
  taker: true,
  fee: '0.12038925',
  feeCurrency: 'EUR',
  settled: true,
}

/** A filled market order (§4.2 fields). */
export const order = {
  orderId,
  market: 'ETH-EUR',
  created: 1590505649241,
  updated: 1590505649241,
  status: 'filled',
  side: 'sell',
  orderType: 'market',
  amount: '0.249825',
  amountRemaining: '0',
  onHold: '0',
  onHoldCurrency: 'ETH',
  filledAmount: '0.249825',
  filledAmountQuote: '45.84038925',
  feePaid: '0.12038925',
  feeCurrency: 'EUR',
  fills: [fill],
  selfTradePrevention: 'decrementAndCancel',
  visible: false,
  timeInForce: 'GTC',
  postOnly: false,
  disableMarketProtection: false,
  operatorId: 1,
}

export const ticker24h = {
  market: 'BTC-EUR',
  startTimestamp: 1590505649241,
  timestamp: 1590592049241,
  open: '8000',
  openTimestamp: 1590505650000,
  high: '8200',
  low: '7900',
  last: '8100',
  closeTimestamp: 1590592040000,
  bid: '8099',
  bidSize: '0.5',
  ask: '8101',
  askSize: '0.25',
  volume: '123.45',
  volumeQuote: '999999.99',
}

export const book = {
  market: 'BTC-EUR',
  nonce: 61569869,
  bids: [
    ['9704.2', '0.47596972'],
    ['9704.1', '0.1'],
  ],
  asks: [['9704.3', '0.88470161']],
}

/** A sample response body for every REST endpoint, by endpoint key. */
export const restResponses: Record<string, unknown> = {
  'GET /time': { time: 1548175200641 },
  'GET /markets': [market],
  'GET /assets': [asset],
  'GET /{market}/book': book,
  'GET /{market}/trades': [
    { id: fillId, timestamp: 1590505649245, amount: '0.1', price: '9704.2', side: 'buy' },
  ],
  'GET /{market}/candles': [[1590505620000, '9700', '9710', '9690', '9704.2', '3.5']],
  'GET /ticker/price': [{ market: 'BTC-EUR', price: '9704.2' }],
  'GET /ticker/book': [
    { market: 'BTC-EUR', bid: '9704.2', bidSize: '0.4', ask: '9704.3', askSize: '0.8' },
  ],
  'GET /ticker/24h': [ticker24h],
  'GET /report/{market}/book': {
    submissionTimestamp: '2025-05-02T14:23:11.123456Z',
    assetCode: '4K6P57CMJ',
    assetName: 'Bitcoin',
    bids: [{ side: 'BUYI', price: '28500.12', quantity: '0.5', numOrders: 12 }],
    asks: [{ side: 'SELL', price: '28510.00', quantity: '0.4', numOrders: 9 }],
    priceCurrency: '4K6P57CMJ',
    priceNotation: 'MONE',
    quantityCurrency: 'EUR',
    quantityNotation: 'CRYP',
    venue: 'VAVO',
    tradingSystem: 'VAVO',
    publicationTimestamp: '2025-05-02T14:23:11.123456Z',
  },
  'GET /report/{market}/trades': [
    {
      tradeId: '57b1159b-6bf5-4cde-9e2c-6bd6a5678baf',
      transactTimestamp: '2024-05-02T14:43:11.123456Z',
      assetCode: '4K6P57CMJ',
      assetName: 'Bitcoin',
      price: '34243',
      missingPrice: 'PNDG',
      priceNotation: 'MONE',
      priceCurrency: 'EUR',
      quantity: '0.0324',
      quantityCurrency: 'EUR',
      quantityNotation: 'CRYP',
      venue: 'VAVO',
      publicationTimestamp: '2025-05-02T14:23:11.123456Z',
      publicationVenue: 'VAVO',
    },
  ],
  'POST /order': order,
  'PUT /order': order,
  'GET /order': order,
  'DELETE /order': { orderId, operatorId: 1 },
  'GET /orders': [order],
  'DELETE /orders': [{ orderId }, { orderId: otherOrderId, operatorId: 0 }],
  'GET /ordersOpen': [{ ...order, status: 'new', fills: [], visible: true }],
  'GET /trades': [
    {
      id: fillId,
      orderId,
      timestamp: 1590505649245,
      market: 'ETH-EUR',
      side: 'sell',
      amount: '0.249825',
      price: '183.49',
      taker: true,
      fee: '0.12038925',
      feeCurrency: 'EUR',
      settled: true,
    },
  ],
  'GET /account': JSON.parse(verbatim.account),
  'GET /account/fees': { tier: '0', volume: '10000.00', taker: '0.0025', maker: '0.0015' },
  'GET /balance': [{ symbol: 'BTC', available: '1.57593193', inOrder: '0.74832374' }],
  'GET /deposit': { address: 'bc1qexampleaddress', paymentId: '10002653' },
  'POST /withdrawal': { success: true, symbol: 'BTC', amount: '1.5' },
  'GET /depositHistory': [
    {
      timestamp: 1590492401000,
      symbol: 'ETH',
      amount: '0.249825',
      fee: '0',
      status: 'completed',
      txId: '0x5167b473fd37811f9ef22364c3d54726a859ef9d98934b3a1e11d7baa8d2c2e2',
    },
  ],
  'GET /withdrawalHistory': [
    {
      timestamp: 1542967486256,
      symbol: 'BTC',
      amount: '0.99994',
      address: 'BitcoinAddress',
      paymentId: '10002653',
      txId: '927b3ea50c5bb52c6854152d305dfa1e27fc01d10464cf10825d96d69d235eb3',
      fee: '0.00006',
      status: 'awaiting_processing',
    },
  ],
  'GET /account/history': {
    items: [
      {
        transactionId: '5f5e7b3b-4f5b-4b2b-8b2f-0b2b2b2b2b2b',
        executedAt: '2024-05-02T14:43:11.123Z',
        type: 'sell',
        priceCurrency: 'EUR',
        priceAmount: '34243',
        sentCurrency: 'BTC',
        sentAmount: '0.1',
        receivedCurrency: 'EUR',
        receivedAmount: '3424.3',
        feesCurrency: 'EUR',
        feesAmount: '8.56',
        address: null,
      },
    ],
    currentPage: 1,
    totalPages: 1,
    maxItems: 100,
  },
  'POST /cancelOrdersAfter': { codGroupId: 1, timeOfExpirySeconds: 1714660000 },
}

/** A sample of the parameters of every REST endpoint (query values as strings). */
export const restRequests: Record<string, unknown> = {
  'GET /time': {},
  'GET /markets': { market: 'BTC-EUR' },
  'GET /assets': { symbol: 'BTC' },
  'GET /{market}/book': { depth: '10' },
  'GET /{market}/trades': { limit: '1000', start: '1590505649245' },
  'GET /{market}/candles': { interval: '1h', limit: '1440', start: '1', end: '86400001' },
  'GET /ticker/price': { market: 'BTC-EUR' },
  'GET /ticker/book': {},
  'GET /ticker/24h': {},
  'GET /report/{market}/book': {},
  'GET /report/{market}/trades': { limit: '5' },
  'POST /order': JSON.parse(verbatim.createOrderBody),
  'PUT /order': { price: '5001', orderId, operatorId: 1, market: 'BTC-EUR' },
  'GET /order': { market: 'BTC-EUR', orderId },
  'DELETE /order': { market: 'BTC-EUR', orderId, operatorId: '0' },
  'GET /orders': { market: 'BTC-EUR', start: '1590505649245', limit: '500' },
  'DELETE /orders': { operatorId: '1' },
  'GET /ordersOpen': { base: 'BTC' },
  'GET /trades': { market: 'BTC-EUR', start: '1', end: '86400001', limit: '1000' },
  'GET /account': {},
  'GET /account/fees': { quote: 'EUR' },
  'GET /balance': { symbol: 'BTC' },
  'GET /deposit': { symbol: 'BTC' },
  'POST /withdrawal': { symbol: 'BTC', amount: '1.5', address: 'BitcoinAddress' },
  'GET /depositHistory': { symbol: 'ETH', limit: '500', start: '1' },
  'GET /withdrawalHistory': {},
  'GET /account/history': { fromDate: '1', maxItems: '100', page: '1' },
  'POST /cancelOrdersAfter': { codGroupId: 1, expiryAfterSeconds: 60 },
}

/** A sample pushed event for every protocol event. */
export const wsEventSamples: Record<string, unknown> = {
  subscribed: JSON.parse(verbatim.subscribed),
  unsubscribed: { event: 'unsubscribed', subscriptions: { book: ['BTC-EUR'] } },
  book: { event: 'book', ...book, bids: [['9704.1', '0']], timestamp: 1602709278882 },
  trade: {
    event: 'trade',
    timestamp: 1590505649245,
    market: 'BTC-EUR',
    id: fillId,
    amount: '0.1',
    price: '9704.2',
    side: 'sell',
  },
  candle: {
    event: 'candle',
    market: 'BTC-EUR',
    interval: '1m',
    candle: [[1590505620000, '9700', '9710', '9690', '9704.2', '3.5']],
  },
  ticker: { event: 'ticker', market: 'BTC-EUR', bestBid: '9704.2', bestBidSize: '0.4' },
  ticker24h: {
    event: 'ticker24h',
    data: [
      {
        market: 'BTC-EUR',
        open: '8000',
        high: '8200',
        low: '7900',
        last: '8100',
        volume: '123.45',
        volumeQuote: '999999.99',
        bid: '8099',
        bidSize: '0.5',
        ask: '8101',
        askSize: '0.25',
        timestamp: 1590592049241,
      },
    ],
  },
  order: {
    event: 'order',
    orderId,
    market: 'BTC-EUR',
    created: 1590505649241,
    updated: 1590505649241,
    status: 'new',
    side: 'buy',
    orderType: 'limit',
    amount: '1',
    amountRemaining: '1',
    price: '3000',
    onHold: '3007.5',
    onHoldCurrency: 'EUR',
    timeInForce: 'GTC',
    postOnly: false,
    selfTradePrevention: 'decrementAndCancel',
    visible: true,
  },
  fill: {
    event: 'fill',
    timestamp: 1590505649245,
    market: 'BTC-EUR',
    orderId,
    fillId,
    side: 'buy',
    amount: '0.1',
    price: '3000',
    taker: true,
    fee: '0.75',
    feeCurrency: 'EUR',
  },
  authenticate: JSON.parse(verbatim.authenticated),
}

const savingsPlan = {
  id: '0b7d5a4e-33a5-4f5b-9b44-61d9b6b0a1c2',
  asset: 'BTC',
  market: 'BTC-EUR',
  amount: '25.00',
  frequency: 'MONTHLY',
  startDate: '2025-01-01',
  status: 'ACTIVE',
  nextExecutionDate: '2025-02-01',
  created: 1735689600000,
  updated: 1735689600000,
}

/** A sample request and response for every web endpoint of spec §7. */
export const webSamples: Record<string, { request: unknown; response: unknown }> = {
  'GET /exchange/proxy/v3/markets/data': {
    request: { markets: 'BTC-EUR,ETH-EUR', theme: 'dark', miniChart: 'true' },
    response: [
      {
        market: 'BTC-EUR',
        base: { symbol: 'BTC', name: 'Bitcoin', slug: 'bitcoin' },
        quote: { symbol: 'EUR', name: 'Euro', slug: 'euro' },
        lastPrice: '61234.5',
        change24h: '-1.25',
        volume24h: '123.4',
        volumeQuote24h: '7556240.3',
        miniChart: [
          { timestamp: 1735689600000, price: '61000' },
          { timestamp: 1735693200000, price: '61234.5' },
        ],
        theme: { icon: 'https://polder.example/icons/dark/btc.svg' },
      },
    ],
  },
  'GET /exchange/xp/v1/markets/price/candles': {
    request: { market: 'BTC-EUR', interval: '4h', start: '1735689600000' },
    response: [[1735689600000, '61000', '61500', '60900', '61234.5', '12.5']],
  },
  'GET /exchange/savings-plans/v1': { request: { status: 'ACTIVE' }, response: [savingsPlan] },
  'GET /exchange/savings-plans/v1/{id}': { request: {}, response: savingsPlan },
  'POST /exchange/savings-plans/v1': {
    request: { asset: 'BTC', amount: '25.00', frequency: 'MONTHLY', startDate: '2025-01-01' },
    response: savingsPlan,
  },
  'PATCH /exchange/savings-plans/v1/{id}': {
    request: { data: { amount: '50', frequency: 'FORTNIGHTLY' } },
    response: { ...savingsPlan, amount: '50', frequency: 'FORTNIGHTLY' },
  },
  'DELETE /exchange/savings-plans/v1/{id}': {
    request: {},
    response: { ...savingsPlan, status: 'DELETED', nextExecutionDate: null },
  },
  'GET /exchange/savings-plans/v1/assets': {
    request: {},
    response: [
      { symbol: 'BTC', name: 'Bitcoin', market: 'BTC-EUR', minAmount: '10', maxAmount: '5000' },
    ],
  },
  'GET /exchange/savings-plans/v1/{id}/executions': {
    request: { page: '1', size: '20' },
    response: {
      items: [
        {
          id: '6c1f0c9e-1f7e-4a53-a8a1-2a0f5d1c9e11',
          savingsPlanId: savingsPlan.id,
          status: 'SUCCESS',
          scheduledAt: 1738368000000,
          executedAt: 1738368001234,
          amount: '25.00',
          filledAmount: '0.00040816',
          price: '61250',
          orderId,
          failureErrorCode: null,
        },
        {
          id: '7d2f0c9e-1f7e-4a53-a8a1-2a0f5d1c9e12',
          savingsPlanId: savingsPlan.id,
          status: 'SCHEDULED',
          scheduledAt: 1740787200000,
          executedAt: null,
          amount: '25.00',
          filledAmount: null,
          price: null,
          orderId: null,
          failureErrorCode: null,
        },
      ],
      page: 1,
      size: 20,
      total: 2,
    },
  },
}
