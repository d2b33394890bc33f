// Where ccxt 4.5.84 (`pro.bitvavo`) needed the server to answer as the live v2 API does, beyond
// what thirdPartyCcxt.test.ts shows: a WebSocket error echoes the orderId it was about (ccxt
// files the error under it), and an order waiting for its trigger carries its triggerPrice.
import ccxt from 'ccxt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { type Bitvavo, ccxtFor } from './fixtures/ccxtClient.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader } from './fixtures/trader.ts'

let server: ExchangeServer
let trader: Bitvavo

beforeAll(async () => {
  const started = await startTestServer({ simulator: false })
  server = started.server
  const credentials = await createTrader(server, 'ccxt-fields@example.com', {
    BTC: '1',
    EUR: '10000',
  })
  trader = await ccxtFor(started.baseUrl, { credentials, operatorId: 7 })
  await trader.loadMarkets()
})

afterAll(async () => {
  await trader?.close()
  await server?.close()
})

describe('ccxt and the fields it looks for', () => {
  it('a WebSocket error to an order-addressed action echoes its orderId, so ccxt fails only that call, with the mapped exception', async () => {
    // ccxt, node_modules/ccxt/js/src/pro/bitvavo.js:1781, handleErrorMessage:
    //     const buildMessage = this.buildMessageHash(action, message);
    // which for privateUpdateOrder, privateCancelOrder and privateGetOrder (:1606-1608) is
    // actionAndOrderIdMessageHash, :1622-1625:
    //     const orderId = this.safeString(params, 'orderId');
    //     if (orderId === undefined) {
    //         throw new ExchangeError(this.id + ' privateUpdateOrderMessageHash requires a orderId parameter');
    // ccxt expects the error reply to echo the request's orderId, as the live API echoes the
    // request's fields (protocol.md:378 "The live API also echoes request fields such as
    // `market`"; :487 "...echoed params}"). When the server echoed only `market`, ccxt threw
    // inside its message handler, and base/ws/Client.js:352-353 (`catch (error) {
    // this.reject(error); }`, no message hash) rejected EVERY pending call on the connection:
    // here the unrelated watchOrders too.
    const orders = trader.watchOrders('BTC/EUR')
    let ordersOutcome = 'pending'
    orders.then(
      () => {
        ordersOutcome = 'resolved'
      },
      (error: Error) => {
        ordersOutcome = `rejected: ${error.message}`
      },
    )
    await new Promise((resolve) => setTimeout(resolve, 300)) // authenticated and subscribed
    const unknownOrderId = '01a2205e-c815-71c5-a92a-a69ba15e21a4'

    // OrderNotFound (240, bitvavo.js:367), as over REST; before, an ExchangeError
    // "bitvavo privateUpdateOrderMessageHash requires a orderId parameter".
    await expect(trader.cancelOrderWs(unknownOrderId, 'BTC/EUR')).rejects.toBeInstanceOf(
      ccxt.OrderNotFound,
    )
    await expect(trader.fetchOrderWs(unknownOrderId, 'BTC/EUR')).rejects.toBeInstanceOf(
      ccxt.OrderNotFound,
    )
    // The account subscription untouched by another call's failure.
    expect(ordersOutcome).toBe('pending')
  })

  it('an order waiting for its trigger carries triggerPrice, which ccxt reports as the order triggerPrice', async () => {
    // ccxt, node_modules/ccxt/js/src/bitvavo.js:2133, parseOrder:
    //     'triggerPrice': this.safeNumber(order, 'triggerPrice'),
    // The live API returns triggerPrice on every stop/takeProfit order: "The price calculated
    // using triggerAmount and triggerType" (the live API's docs, Get order; its example is a
    // `new` order with triggerAmount "4000" and triggerPrice "4000"). protocol.md:302 lists
    // triggerPrice with the trigger fields of stop/takeProfit orders. The engine used to leave it
    // out until the order fired (then the reference price that fired it), so ccxt showed no
    // trigger price for an open stop order.
    const stop = await trader.createOrder('BTC/EUR', 'market', 'sell', 0.01, undefined, {
      stopLossPrice: 50_000,
    })
    expect(stop).toMatchObject({ type: 'stopLoss', status: 'open' })
    expect(stop.info).toMatchObject({ status: 'awaitingTrigger', triggerAmount: '50000' })
    // 50000: triggerAmount, as triggerType is price (before, undefined).
    expect(stop.triggerPrice).toBe(50_000)
    expect((await trader.fetchOrder(String(stop.id), 'BTC/EUR')).triggerPrice).toBe(50_000)
  })
})
