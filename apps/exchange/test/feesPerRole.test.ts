// An order that fills as taker and then as maker pays each role its own rate, on the wire and in
// the balance, and a restart after kill -9 (replaying the journaled commands) charges the same.
import { describe, expect, it } from 'vitest'
import { buyerAndSeller, serverProcesses } from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'

const servers = serverProcesses('polder-fees-per-role-')

describe('fees of an order filled in both roles', () => {
  it('a limit buy that takes, rests and then fills as maker pays 0.25% and then 0.15%, the same after kill -9', async () => {
    const first = await servers.startTestServer()
    const { buyer, seller } = await buyerAndSeller(first, {
      buyerEmail: 'alice@example.com',
      eur: '10000',
      sellerEmail: 'bob@example.com',
      btc: '1',
    })
    const call = async (
      url: string,
      who: typeof buyer,
      method: string,
      path: string,
      body?: unknown,
    ) => (await signedRequest(url, who, method, path, { body })).json
    const sell = {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      price: '50000',
      amount: '0.01',
    }
    expect((await call(first.url, seller, 'POST', '/v2/order', sell)).status).toBe('new')
    const buy = await call(first.url, buyer, 'POST', '/v2/order', {
      ...sell,
      side: 'buy',
      amount: '0.02',
    })
    // Took 0.01 as taker (500 EUR at 0.25%) and rests with the rest.
    expect(buy).toMatchObject({ status: 'partiallyFilled', feePaid: '1.25000000' })
    expect((await call(first.url, seller, 'POST', '/v2/order', sell)).status).toBe('filled')
    const observe = async (url: string) => ({
      fills: (await call(url, buyer, 'GET', '/v2/trades?market=BTC-EUR'))
        .map((fill: { taker: boolean; fee: string }) => [fill.taker, fill.fee])
        .sort(),
      order: await call(url, buyer, 'GET', `/v2/order?market=BTC-EUR&orderId=${buy.orderId}`),
      balance: await call(url, buyer, 'GET', '/v2/balance?symbol=EUR'),
    })
    const before = await observe(first.url)
    expect(before.fills).toEqual([
      [false, '0.75000000'],
      [true, '1.25000000'],
    ])
    expect(before.order).toMatchObject({ status: 'filled', feePaid: '2.00000000' })
    // 10,000 − 1,000 − 2.00 in fees, nothing held.
    expect(before.balance).toEqual([{ symbol: 'EUR', available: '8998.00', inOrder: '0.00' }])
    await first.stop('SIGKILL')

    const second = await servers.startTestServer()
    expect(await observe(second.url)).toEqual(before)
    await second.stop('SIGTERM')
  }, 60_000)
})
