// Book changes applied but not yet published (waiting for the batch timer) when the server stops
// are published after the restart, on a market that stays quiet too: getBook and every book
// subscriber would otherwise go on without them while the live book has them (found by a review;
// the hub learns of them from the restored engine as it starts).
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../src/config.ts'
import { createExchangeServer } from '../src/server.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { testListing } from './fixtures/testListing.ts'
import { createTrader, limitOrderBody } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON
type Json = any

describe('book across a restart', () => {
  it('publishes after a restart the book changes that were still waiting for the batch timer', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'polder-book-restart-'))
    const config = { ...defaultConfig, port: 0, logLevel: 'silent' as const, dataDir }
    // A long timer: the first change goes out at its leading edge, the second waits.
    const first = await createExchangeServer(config, testListing, undefined, {
      bookFlushIntervalMs: 60_000,
    })
    const firstUrl = await first.listen()
    const maker = await createTrader(first, 'book-restart@example.com', { EUR: '100000' })
    const order = (price: string) =>
      signedRequest(firstUrl, maker, 'POST', '/v2/order', {
        body: limitOrderBody('buy', '0.01', price, { operatorId: 1 }),
      })
    expect((await order('40000')).status).toBe(200)
    expect((await order('40001')).status).toBe(200)
    const before: Json = await (await fetch(`${firstUrl}/v2/BTC-EUR/book`)).json()
    expect(before.bids).toEqual([['40000', '0.01000000']])
    await first.close()

    // Default timer (100 ms) after the restart.
    const second = await createExchangeServer(config, testListing)
    const secondUrl = await second.listen()
    try {
      // The best bid reads the book as it is; getBook, what has been published.
      const live: Json = await (await fetch(`${secondUrl}/v2/ticker/book?market=BTC-EUR`)).json()
      expect(live.bid).toBe('40001')
      // Published within the first ticks of the timer (polled: a server just started can be slow
      // to tick on a loaded machine; a fixed second was waited before).
      let book: Json
      await expect
        .poll(
          async () => {
            book = await (await fetch(`${secondUrl}/v2/BTC-EUR/book`)).json()
            return book.nonce
          },
          { timeout: 15_000 },
        )
        .toBe(before.nonce + 1)
      // The order at 40001 rests in the book; a client's book must show it.
      expect(book.bids).toEqual([
        ['40001', '0.01000000'],
        ['40000', '0.01000000'],
      ])
    } finally {
      await second.close()
    }
  })
})
