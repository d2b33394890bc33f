// A book snapshot (getBook) is answered only once the batch it shows is durable: with the
// journal's writes held back, an order and the book flush that shows it are applied in memory
// but not yet on disk, and a crash would take both back. The snapshot waits for the disk.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExchangeServer } from '../src/server.ts'
import { holdJournalWrites } from './fixtures/journalGate.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { startTestServer } from './fixtures/testServer.ts'
import { createTrader, type Trader } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any

let server: ExchangeServer
let baseUrl: string
let maker: Trader

beforeAll(async () => {
  ;({ server, baseUrl } = await startTestServer())
  maker = await createTrader(server, 'maker@example.com', { EUR: '10000' })
})
afterAll(() => server.close())

describe('getBook', () => {
  it('answers once the batch it shows is durable, never with a level a crash could take back', async () => {
    const before: Json = await (await fetch(`${baseUrl}/v2/BTC-EUR/book`)).json()
    const release = holdJournalWrites(server)
    const placed = signedRequest(baseUrl, maker, 'POST', '/v2/order', {
      body: { market: 'BTC-EUR', side: 'buy', orderType: 'limit', amount: '0.01', price: '41234' },
    })
    // The order is applied at once; its acknowledgement and the book's flush wait for the disk.
    const deadline = Date.now() + 5_000
    while (server.service.core.engine.openOrders('BTC-EUR', maker.accountId).length === 0)
      if (Date.now() > deadline) throw new Error('order not applied within 5 s')
      else await new Promise((resolve) => setTimeout(resolve, 10))
    const flushed = server.service.submit({
      type: 'flushBook',
      timestamp: Date.now(),
      market: 'BTC-EUR',
    })
    let answered = false
    const book = fetch(`${baseUrl}/v2/BTC-EUR/book`).then(async (response): Promise<Json> => {
      answered = true
      return response.json()
    })
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(answered).toBe(false)
    release()
    const shown = await book
    expect(shown.nonce).toBe(before.nonce + 1)
    expect(shown.bids).toEqual([['41234', '0.01000000']])
    expect((await placed).status).toBe(200)
    expect((await flushed).ok).toBe(true)
  })
})
