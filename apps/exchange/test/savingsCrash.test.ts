// A savings plan's due run happens exactly once even when the server process is killed (SIGKILL)
// at the moment it runs: once as the core applies the run, before its journal commit (the run is
// lost: the restarted scheduler must buy), once the moment the commit is done (the run is kept:
// the restarted scheduler must not buy again). Each time the server restarts on the same data
// directory. The child's clock runs ahead of the wall clock
// (POLDER_TEST_CLOCK_OFFSET_MS) so that the plan falls due seconds after the child starts.
import { describe, expect, it } from 'vitest'
import { type ServerProcess, serverProcesses } from './fixtures/serverProcess.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any
type Key = ApiKey & { accountId: number }

const dayMs = 86_400_000
/** The plan's first run: a midnight (UTC), far enough ahead that no real clock reaches it. */
const firstDueMs = Date.UTC(2031, 0, 1)
const servers = serverProcesses('polder-savings-crash-')
let offsetMs = 0

/** Starts the server with its clock `leadMs` before `dueMs`. */
function startServer(dueMs: number, leadMs: number): Promise<ServerProcess> {
  offsetMs = dueMs - leadMs - Date.now()
  return servers.startTestServer({ POLDER_TEST_CLOCK_OFFSET_MS: String(offsetMs) })
}

/** Resolves on the first stdout line matching `pattern` (already printed or still to come). */
function lineOf(server: ServerProcess, pattern: RegExp, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const found = () => server.lines.find((line) => pattern.test(line))
    const timer = setTimeout(
      () => reject(new Error(`no ${pattern} within ${timeoutMs} ms`)),
      timeoutMs,
    )
    const check = () => {
      const line = found()
      if (line === undefined) return false
      clearTimeout(timer)
      server.child.stdout!.off('data', onData)
      resolve(line)
      return true
    }
    // Checked after the fixture's collector has split the chunk into lines.
    const onData = () => setImmediate(check)
    if (!check()) server.child.stdout!.on('data', onData)
  })
}

/** Whether the killed run survived in the journal, or the restarted server ran it again. */
function kept(restarted: ServerProcess, index: number): string {
  const again = restarted.lines.some(
    (line) => line.endsWith(` ${index}`) && line.startsWith('RUN_APPLIED'),
  )
  return again ? `run ${index} was lost and run again` : `run ${index} was kept`
}

/** A signed request, timestamped by the server's clock; its JSON body once it succeeded. */
async function signed(url: string, who: Key, method: string, path: string, body?: unknown) {
  const timestampMs = Date.now() + offsetMs
  const { status, json } = await signedRequest(url, who, method, path, { body, timestampMs })
  expect(status, JSON.stringify(json)).toBeLessThan(300)
  return json
}

/** The plan's runs (SCHEDULED left out), once at least `count` are there. */
async function runsOf(url: string, saver: Key, planId: string, count: number): Promise<Json[]> {
  let runs: Json[] = []
  for (let tries = 0; tries < 100; tries += 1) {
    const page = await signed(
      url,
      saver,
      'GET',
      `/exchange/savings-plans/v1/${planId}/executions?size=100`,
    )
    runs = page.items.filter((item: Json) => item.status !== 'SCHEDULED')
    if (runs.length >= count) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return runs
}

describe('savings scheduler across a kill -9 at the moment of a run', () => {
  it('runs each due occurrence exactly once', async () => {
    // The first run falls due 10 s after the server starts: time to set up the market and plan.
    let server = await startServer(firstDueMs, 10_000)
    const saver: Key = await server.admin('/admin/accounts', {
      email: 'saver@example.com',
      password: 'a long enough password',
      eur: '1000',
    })
    const seller: Key = await server.admin('/admin/accounts', {
      email: 'seller@example.com',
      password: 'a long enough password',
    })
    await server.admin('/admin/deposits', {
      accountId: seller.accountId,
      asset: 'BTC',
      amount: '1',
    })
    const ask = await signed(server.url, seller, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'sell',
      orderType: 'limit',
      price: '50000',
      amount: '0.5',
    })
    expect(ask.status).toBe('new')
    const plan = await signed(server.url, saver, 'POST', '/exchange/savings-plans/v1', {
      asset: 'BTC',
      amount: '100',
      frequency: 'DAILY',
      startDate: '2031-01-01',
    })
    expect(plan.nextExecutionDate).toBe('2031-01-01') // created before it fell due

    // 1. Killed the moment the core applies the run, before its commit.
    await lineOf(server, new RegExp(`^RUN_APPLIED ${plan.id} 0$`), 30_000)
    await server.stop('SIGKILL')
    server = await startServer(firstDueMs, -5_000) // the same clock, 5 s past the due time
    const firstRuns = await runsOf(server.url, saver, plan.id, 1)
    await new Promise((resolve) => setTimeout(resolve, 2_500)) // more scheduler ticks: no second buy
    const outcomes = [kept(server, 0)]
    expect(await runsOf(server.url, saver, plan.id, 1)).toEqual(firstRuns)
    expect(firstRuns).toEqual([
      expect.objectContaining({
        status: 'SUCCESS',
        scheduledAt: firstDueMs,
        filledAmount: '0.00200000',
      }),
    ])
    await server.stop('SIGKILL')

    // 2. The next day: killed the moment the run's commit is done.
    const secondDueMs = firstDueMs + dayMs
    server = await startServer(secondDueMs, 4_000)
    await lineOf(server, new RegExp(`^RUN_DURABLE ${plan.id} 1$`), 30_000)
    await server.stop('SIGKILL')
    server = await startServer(secondDueMs, -5_000)
    const runs = await runsOf(server.url, saver, plan.id, 2)
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    outcomes.push(kept(server, 1))
    expect(outcomes[1]).toBe('run 1 was kept') // it was durable when the process died
    expect(await runsOf(server.url, saver, plan.id, 2)).toEqual(runs)
    expect(runs.map((run: Json) => [run.scheduledAt, run.status])).toEqual([
      [secondDueMs, 'SUCCESS'],
      [firstDueMs, 'SUCCESS'],
    ])

    // Two buys in all, no more: 0.004 BTC bought, two fills on the seller's side.
    const balances: Json[] = await signed(server.url, saver, 'GET', '/v2/balance?symbol=BTC')
    expect(balances[0].available).toBe('0.00400000')
    const sold: Json[] = await signed(server.url, seller, 'GET', '/v2/trades?market=BTC-EUR')
    expect(sold).toHaveLength(2)
    console.log(`the killed runs: ${outcomes.join('; ')}`)
    await server.stop('SIGKILL')
  }, 120_000)
})
