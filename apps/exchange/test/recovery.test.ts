// Durability: every acknowledged order, fill and balance survives kill -9, and the books come
// back exactly (same levels, same priority, nonces continue).
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import {
  type AccountKey,
  buyerAndSeller,
  type ServerProcess,
  serverProcesses,
} from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, compared whole
type Json = any
type Key = AccountKey

const servers = serverProcesses('polder-recovery-')
const tradeServers = serverProcesses('polder-recovery-trades-')

/** A signed request's JSON body, whatever the status: the test compares what comes back. */
async function signed(
  url: string,
  who: Key,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  return (await signedRequest(url, who, method, path, { body })).json
}

/** Waits until the book is flushed: its nonce stops moving (two reads 300 ms apart agree). */
async function bookSettled(url: string): Promise<void> {
  let previousNonce = -1
  for (let tries = 0; tries < 50; tries += 1) {
    const published: Json = await (await fetch(`${url}/v2/BTC-EUR/book`)).json()
    if (published.nonce > 0 && published.nonce === previousNonce) return
    previousNonce = published.nonce
    await new Promise((resolve) => setTimeout(resolve, 300))
  }
}

/** Alice with 100,000 EUR, Bob with `bobBtc` BTC, each with an API key. */
async function aliceAndBob(
  server: ServerProcess,
  bobBtc: string,
): Promise<{ alice: Key; bob: Key }> {
  const { buyer, seller } = await buyerAndSeller(server, {
    buyerEmail: 'alice@example.com',
    eur: '100000',
    sellerEmail: 'bob@example.com',
    btc: bobBtc,
  })
  return { alice: buyer, bob: seller }
}

async function observe(url: string, alice: Key, bob: Key): Promise<Json> {
  return {
    book: await (await fetch(`${url}/v2/BTC-EUR/book`)).json(),
    aliceBalance: await signed(url, alice, 'GET', '/v2/balance'),
    bobBalance: await signed(url, bob, 'GET', '/v2/balance'),
    aliceOpen: await signed(url, alice, 'GET', '/v2/ordersOpen'),
    bobOpen: await signed(url, bob, 'GET', '/v2/ordersOpen'),
    bobTrades: await signed(url, bob, 'GET', '/v2/trades?market=BTC-EUR'),
    publicTrades: await (await fetch(`${url}/v2/BTC-EUR/trades`)).json(),
  }
}

describe('recovery after kill -9', () => {
  it('brings back every acknowledged order, fill and balance, the same book, and continuing nonces', async () => {
    const first = await servers.startTestServer()
    const { alice, bob } = await aliceAndBob(first, '2')

    for (const [price, amount] of [
      ['60000', '0.3'],
      ['60000', '0.2'],
      ['61000', '0.5'],
      ['62000', '0.1'],
    ]) {
      const placed = await signed(first.url, bob, 'POST', '/v2/order', {
        market: 'BTC-EUR',
        side: 'sell',
        orderType: 'limit',
        price,
        amount,
      })
      expect(placed.status).toBe('new')
    }
    const bid = await signed(first.url, alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      price: '55000',
      amount: '0.4',
    })
    const cancelMe = await signed(first.url, alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      price: '54000',
      amount: '0.1',
    })
    expect(
      (
        await signed(
          first.url,
          alice,
          'DELETE',
          `/v2/order?market=BTC-EUR&orderId=${cancelMe.orderId}`,
        )
      ).orderId,
    ).toBe(cancelMe.orderId)
    const take = await signed(first.url, alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      price: '61000',
      amount: '0.6',
    })
    expect(take.status).toBe('filled')
    expect(bid.status).toBe('new')
    await bookSettled(first.url)

    const before = await observe(first.url, alice, bob)
    expect(before.book.nonce).toBeGreaterThan(0)
    await first.stop('SIGKILL')

    const second = await servers.startTestServer()
    const after = await observe(second.url, alice, bob)
    expect(after).toEqual(before)

    // Nonces continue: the next change is published as exactly the next nonce.
    await signed(second.url, bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      price: '63000',
      amount: '0.1',
    })
    let book: Json
    for (let tries = 0; tries < 100; tries += 1) {
      book = await (await fetch(`${second.url}/v2/BTC-EUR/book`)).json()
      if (book.nonce !== before.book.nonce) break
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(book.nonce).toBe(before.book.nonce + 1)
    const secondHealth: Json = await (await fetch(`${second.url}/health`)).json()
    expect(secondHealth.startup.replayedRecords).toBeGreaterThan(0) // rebuilt from the journal

    // A clean stop saves a snapshot: the next start restores it and replays nothing.
    const atStop = await observe(second.url, alice, bob)
    await second.stop('SIGTERM')
    const third = await servers.startTestServer()
    const thirdHealth: Json = await (await fetch(`${third.url}/health`)).json()
    expect(thirdHealth.startup.snapshotSeq).toBeGreaterThan(0)
    expect(thirdHealth.startup.replayedRecords).toBe(0)
    expect(await observe(third.url, alice, bob)).toEqual(atStop)

    // After a snapshot that covered the whole journal, new commands still survive a kill -9.
    const late = await signed(third.url, bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      price: '64000',
      amount: '0.1',
    })
    expect(late.status).toBe('new')
    await bookSettled(third.url)
    const beforeKill = await observe(third.url, alice, bob)
    await third.stop('SIGKILL')
    const fourth = await servers.startTestServer()
    expect(await observe(fourth.url, alice, bob)).toEqual(beforeKill)
    await fourth.stop('SIGTERM')
  }, 60_000)

  it('lists a public trade, both its fills and the filled order whose archive writes a kill -9 cut off: written again from the journal', async () => {
    const first = await tradeServers.startTestServer()
    const { alice, bob } = await aliceAndBob(first, '1')
    const ask = await signed(first.url, bob, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      price: '60000',
      amount: '0.5',
    })
    expect(ask.status).toBe('new')
    await first.stop('SIGTERM')

    // The next place is the crossing one: the server kills itself the moment its journal batch
    // has committed, when the trade has just been handed to the archive, whose batch waits
    // up to 100 ms before it is written.
    const second = await tradeServers.startTestServer({
      POLDER_TEST_KILL_ON: 'placeOrder:committed',
    })
    // 'close', not 'exit': by then the child's output, its KILLED line with it, has all been read.
    const exited = new Promise((resolve) => second.child.once('close', resolve))
    await signed(second.url, alice, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      price: '60000',
      amount: '0.2',
    }).catch(() => undefined) // the connection dies with the process
    await exited
    expect(second.lines).toContain('KILLED committed placeOrder')

    const third = await tradeServers.startTestServer()
    const trades: Json = await (await fetch(`${third.url}/v2/BTC-EUR/trades`)).json()
    expect(trades).toEqual([
      { id: '1', timestamp: expect.any(Number), amount: '0.20000000', price: '60000', side: 'buy' },
    ])
    for (const [who, side, taker] of [
      [alice, 'buy', true],
      [bob, 'sell', false],
    ] as const) {
      const fills: Json = await signed(third.url, who, 'GET', '/v2/trades?market=BTC-EUR')
      expect(fills).toMatchObject([{ id: '1', side, taker, amount: '0.20000000', price: '60000' }])
    }
    await third.stop('SIGTERM')
    // Alice's filled order went to the order archive too (the core answers for it as long as it
    // holds it, so the file itself is read).
    const orders = new DatabaseSync(join(tradeServers.dataDir, 'orders.sqlite'), { readOnly: true })
    const archived = orders.prepare('select record from account_orders').all() as {
      record: string
    }[]
    orders.close()
    expect(archived.map((row) => JSON.parse(row.record).state)).toMatchObject([
      { side: 'buy', status: 'filled', amount: 20_000_000, price: 60_000 },
    ])
  }, 60_000)
})
