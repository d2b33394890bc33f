// The trade archive keeps each market's newest 1,000 trades whatever their age (README, Public
// trades), and the start's catch-up writes what a kill -9 kept from it however old it is by then:
// it wrote only the trades newer than the retention, so a market's last trade cut off by a crash,
// with the next start more than 7 days later, was never listed (found by an archives review).
import { describe, expect, it } from 'vitest'
import { type AccountKey, buyerAndSeller, serverProcesses } from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { limitOrderBody } from './fixtures/trader.ts'

const servers = serverProcesses('polder-trade-catch-up-')
const dayMs = 86_400_000

async function place(url: string, who: AccountKey, body: unknown) {
  return (await signedRequest(url, who, 'POST', '/v2/order', { body })).json
}

describe('the trade catch-up after a long stop', () => {
  it("writes a market's newest trade a kill -9 cut off, however old it is by then", async () => {
    const first = await servers.startTestServer()
    const { buyer, seller } = await buyerAndSeller(first, {
      buyerEmail: 'buyer@example.com',
      eur: '100000',
      sellerEmail: 'seller@example.com',
      btc: '1',
    })
    const ask = await place(first.url, seller, limitOrderBody('sell', '0.5', '60000'))
    expect(ask.status).toBe('new')
    await first.stop('SIGTERM')

    // The crossing buy: the process kills itself once its commit is done, the trade unwritten.
    const second = await servers.startTestServer({ POLDER_TEST_KILL_ON: 'placeOrder:committed' })
    const exited = new Promise((resolve) => second.child.once('close', resolve))
    await place(second.url, buyer, limitOrderBody('buy', '0.2', '60000')).catch(() => undefined)
    await exited
    expect(second.lines).toContain('KILLED committed placeOrder')

    // Started again eight days later (the server's clock that far ahead).
    const third = await servers.startTestServer({
      POLDER_TEST_CLOCK_OFFSET_MS: String(8 * dayMs),
    })
    const trades = await (await fetch(`${third.url}/v2/BTC-EUR/trades`)).json()
    // The buyer's own fill is there (the fill catch-up has no age limit): the trade happened.
    const fills = (
      await signedRequest(third.url, buyer, 'GET', '/v2/trades?market=BTC-EUR', {
        timestampMs: Date.now() + 8 * dayMs,
      })
    ).json
    expect(fills).toMatchObject([{ id: '1', side: 'buy' }])
    expect(trades).toMatchObject([{ id: '1', amount: '0.20000000', price: '60000' }])
    await third.stop('SIGTERM')
  }, 90_000)
})
