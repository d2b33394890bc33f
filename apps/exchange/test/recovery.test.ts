// Durability: every acknowledged order, fill and balance survives kill -9, and the books come
// back exactly (same levels, same priority, nonces continue).
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sign } from '../src/auth/signature.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, compared whole
type Json = any
type Key = { key: string; secret: string; accountId: number }

const dataDir = mkdtempSync(join(tmpdir(), 'polder-recovery-'))
const children: ChildProcess[] = []
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  rmSync(dataDir, { recursive: true, force: true })
})

function startServer(): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    [join(import.meta.dirname, 'fixtures', 'serveTestListing.ts'), dataDir],
    {
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  )
  children.push(child)
  return new Promise((resolve, reject) => {
    let output = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      output += chunk.toString()
      const match = /READY (\S+)/.exec(output)
      if (match) resolve({ child, url: match[1]! })
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
}

async function admin(url: string, path: string, body: unknown): Promise<Json> {
  const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim()
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const json = await response.json()
  expect(response.status, JSON.stringify(json)).toBe(200)
  return json
}

async function signed(
  url: string,
  who: Key,
  method: string,
  path: string,
  body?: unknown,
): Promise<Json> {
  const timestamp = Date.now()
  const text = body === undefined ? '' : JSON.stringify(body)
  const response = await fetch(`${url}${path}`, {
    method,
    headers: {
      'bitvavo-access-key': who.key,
      'bitvavo-access-timestamp': String(timestamp),
      'bitvavo-access-signature': sign(who.secret, timestamp, method, path, text),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: text }),
  })
  return response.json()
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

async function observe(url: string, alice: Key, bob: Key): Promise<Json> {
  return {
    book: await (await fetch(`${url}/v2/BTC-EUR/book`)).json(),
    aliceBalance: await signed(url, alice, 'GET', '/v2/balance'),
    bobBalance: await signed(url, bob, 'GET', '/v2/balance'),
    aliceOpen: await signed(url, alice, 'GET', '/v2/ordersOpen'),
    bobOpen: await signed(url, bob, 'GET', '/v2/ordersOpen'),
    bobTrades: await signed(url, bob, 'GET', '/v2/trades?market=BTC-EUR'),
  }
}

describe('recovery after kill -9', () => {
  it('brings back every acknowledged order, fill and balance, the same book, and continuing nonces', async () => {
    const first = await startServer()
    const alice: Key = await admin(first.url, '/admin/accounts', {
      email: 'alice@example.com',
      password: 'a long enough password',
      eur: '100000',
    })
    const bob: Key = await admin(first.url, '/admin/accounts', {
      email: 'bob@example.com',
      password: 'a long enough password',
    })
    await admin(first.url, '/admin/deposits', {
      accountId: bob.accountId,
      asset: 'BTC',
      amount: '2',
    })

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
    first.child.kill('SIGKILL')
    await new Promise((resolve) => first.child.once('exit', resolve))

    const second = await startServer()
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
    second.child.kill('SIGTERM')
    await new Promise((resolve) => second.child.once('exit', resolve))
    const third = await startServer()
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
    third.child.kill('SIGKILL')
    await new Promise((resolve) => third.child.once('exit', resolve))
    const fourth = await startServer()
    expect(await observe(fourth.url, alice, bob)).toEqual(beforeKill)
    fourth.child.kill('SIGTERM')
    await new Promise((resolve) => fourth.child.once('exit', resolve))
  }, 60_000)
})
