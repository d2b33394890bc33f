// Transfers acknowledged over the API survive a kill -9 of the server (SIGKILL: no clean close,
// so no snapshot; the restart replays the journal) and take effect exactly once: a withdrawal's
// debit stays, once, and the withdrawal goes on to `completed`, once; a confirmed euro deposit
// stays credited, once. Each test restarts the real server process on its own data directory.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { type ServerProcess, serverProcesses } from './fixtures/serverProcess.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any
type Key = ApiKey & { accountId: number }

const iban = 'NL91ABNA0417164300'
// Half of it (when the withdrawal is sent) is the room the kill after the acknowledgement has.
const withdrawalDelayMs = 4_000

/** A signed request that must succeed; its JSON body. */
async function signed(
  server: ServerProcess,
  who: ApiKey,
  method: string,
  path: string,
  body?: unknown,
) {
  const { status, json } = await signedRequest(server.url, who, method, path, { body })
  expect(status, `${method} ${path}: ${JSON.stringify(json)}`).toBeLessThan(300)
  return json
}

/** The ledger check of the admin API (every asset balances, or it answers 500). */
async function ledgerCheck(server: ServerProcess, dataDir: string): Promise<Json> {
  const token = readFileSync(join(dataDir, 'admin.token'), 'utf8').trim()
  const response = await fetch(`${server.url}/admin/ledger/check`, {
    headers: { authorization: `Bearer ${token}` },
  })
  expect(response.status).toBe(200)
  return response.json()
}

/** How many commands of `kind` this server process has accepted (its /metrics counter). */
async function accepted(server: ServerProcess, kind: string): Promise<number> {
  const metrics = await (await fetch(`${server.url}/metrics`)).text()
  const line = metrics
    .split('\n')
    .find((row) => row.startsWith(`polder_commands_total{kind="${kind}",outcome="accepted"}`))
  return line === undefined ? 0 : Number(line.split(' ').at(-1))
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let value = await read()
  for (let tries = 0; tries < 100 && !done(value); tries += 1) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    value = await read()
  }
  return value
}

describe('a withdrawal across a kill -9', () => {
  const servers = serverProcesses('polder-withdrawal-restart-')
  const serve = () =>
    servers.startMain(['--no-simulator', '--withdrawal-delay-ms', String(withdrawalDelayMs)], {
      LOG_LEVEL: 'warn',
    })

  it('keeps the debit exactly once and completes the withdrawal exactly once after the restart', async () => {
    let server = await serve()
    const customer: Key = await server.admin('/admin/accounts', {
      email: 'withdrawer@example.com',
      password: 'a long enough password',
      eur: '1000',
      withdraw: true,
    })
    const requested = await signed(server, customer, 'POST', '/v2/withdrawal', {
      symbol: 'EUR',
      amount: '100',
      address: iban,
    })
    expect(requested).toEqual({ success: true, symbol: 'EUR', amount: '100' })
    // Acknowledged, so durable: killed at once, long before it is due to move on.
    await server.stop('SIGKILL')

    server = await serve()
    const balance = async () =>
      (await signed(server, customer, 'GET', '/v2/balance?symbol=EUR'))[0].available
    expect(await balance()).toBe('900.00')
    const history = () => signed(server, customer, 'GET', '/v2/withdrawalHistory?symbol=EUR')
    const completed: Json[] = await eventually(history, (rows: Json[]) =>
      rows.every((row) => row.status === 'completed'),
    )
    expect(completed).toEqual([
      expect.objectContaining({
        symbol: 'EUR',
        amount: '100.00',
        address: iban,
        status: 'completed',
      }),
    ])
    // Ticks well past completion move nothing more: sending and completed, each once.
    await new Promise((resolve) => setTimeout(resolve, 1_000))
    expect(await accepted(server, 'advanceWithdrawal')).toBe(2)
    expect(await history()).toEqual(completed)
    expect(await balance()).toBe('900.00')
    expect((await ledgerCheck(server, servers.dataDir)).assets.EUR).toEqual({
      customers: '900.000000000000000000',
      fees: '0.000000000000000000',
      depositsLessWithdrawals: '900.000000000000000000',
    })
    await server.stop('SIGTERM')
  }, 120_000)
})

describe('a euro deposit across a kill -9', () => {
  const servers = serverProcesses('polder-deposit-restart-')

  it('stays credited exactly once after the restart', async () => {
    let server = await servers.startTestServer()
    const customer: Key = await server.admin('/admin/accounts', {
      email: 'depositor@example.com',
      password: 'a long enough password',
    })
    const deposit = await signed(server, customer, 'POST', '/exchange/payments/v1/deposits', {
      method: 'card',
      amount: '200',
    })
    expect(deposit).toMatchObject({ status: 'confirmed', fee: '3.50', credited: '196.50' })
    await server.stop('SIGKILL')

    server = await servers.startTestServer()
    // The restart asks the provider about pending payments: give it the time to (not) do so.
    await new Promise((resolve) => setTimeout(resolve, 500))
    expect(await signed(server, customer, 'GET', '/v2/balance?symbol=EUR')).toEqual([
      { symbol: 'EUR', available: '196.50', inOrder: '0.00' },
    ])
    expect(await signed(server, customer, 'GET', '/v2/depositHistory?symbol=EUR')).toEqual([
      {
        timestamp: expect.any(Number),
        symbol: 'EUR',
        amount: '200.00',
        address: '',
        paymentId: deposit.id,
        txId: deposit.providerReference,
        fee: '3.50',
        status: 'completed',
      },
    ])
    expect(await signed(server, customer, 'GET', '/exchange/payments/v1/deposits')).toEqual([
      deposit,
    ])
    expect((await ledgerCheck(server, servers.dataDir)).assets.EUR).toEqual({
      customers: '196.500000000000000000',
      fees: '3.500000000000000000',
      depositsLessWithdrawals: '200.000000000000000000',
    })
    await server.stop('SIGTERM')
  }, 120_000)
})

describe('a deposit whose archive write a kill -9 cut off', () => {
  const servers = serverProcesses('polder-transfer-archive-restart-')

  it('is written again from the journal at the next start, and listed', async () => {
    let server = await servers.startTestServer()
    const customer: Key = await server.admin('/admin/accounts', {
      email: 'cut-off@example.com',
      password: 'a long enough password',
    })
    await server.stop('SIGTERM')

    // Killed the moment the confirmed payment is durable: its deposit queued for the transfer
    // archive, which writes 100 ms later.
    server = await servers.startTestServer({ POLDER_TEST_KILL_ON: 'updatePayment:committed' })
    // 'close', not 'exit': by then the child's output, its KILLED line with it, has all been read.
    const exited = new Promise((resolve) => server.child.once('close', resolve))
    await signedRequest(server.url, customer, 'POST', '/exchange/payments/v1/deposits', {
      body: { method: 'card', amount: '200' },
    }).catch(() => {}) // no answer: the server is gone
    await exited
    expect(server.lines).toContain('KILLED committed updatePayment')

    server = await servers.startTestServer()
    expect(await signed(server, customer, 'GET', '/v2/depositHistory?symbol=EUR')).toMatchObject([
      { symbol: 'EUR', amount: '200.00', fee: '3.50', status: 'completed' },
    ])
    expect(
      (await signed(server, customer, 'GET', '/v2/account/history?type=deposit')).items,
    ).toMatchObject([{ type: 'deposit', receivedAmount: '200.00' }])
    await server.stop('SIGTERM')
  }, 120_000)
})
