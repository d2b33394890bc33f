// A savings plan's due run happens exactly once even when the server process is killed (SIGKILL)
// at the moment it runs. The child kills itself (serveTestListing's POLDER_TEST_KILL_ON), so the
// moment is exact: once as the core has applied the run, before its journal append (the run is
// lost: the restarted scheduler must buy it, once), once the moment its commit is done (the run
// is kept: the restarted scheduler must not buy it again). Each time the server restarts on the
// same data directory. The child's clock runs ahead of the wall clock
// (POLDER_TEST_CLOCK_OFFSET_MS) so that the plan falls due seconds after the child starts.
import { describe, expect, it } from 'vitest'
import {
  type AccountKey,
  buyerAndSeller,
  type ServerProcess,
  serverProcesses,
} from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked field by field
type Json = any
type Key = AccountKey

const dayMs = 86_400_000
/** The plan's first run: a midnight (UTC), far enough ahead that no real clock reaches it. */
const firstDueMs = Date.UTC(2031, 0, 1)
const servers = serverProcesses('polder-savings-crash-')
let offsetMs = 0

/** Starts the server with its clock `leadMs` before `dueMs`; `env` adds a kill point. */
function startServer(
  dueMs: number,
  leadMs: number,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  offsetMs = dueMs - leadMs - Date.now()
  return servers.startTestServer({ ...env, POLDER_TEST_CLOCK_OFFSET_MS: String(offsetMs) })
}

/** Resolves with the signal that ended the process, once its output is all read. */
function ended(server: ServerProcess): Promise<NodeJS.Signals | null> {
  return new Promise((resolve) => server.child.once('close', (_code, signal) => resolve(signal)))
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

/** How many times the process printed that the core accepted the plan's run `index`. */
function applied(server: ServerProcess, planId: string, index: number): number {
  return server.lines.filter((line) => line === `RUN_APPLIED ${planId} ${index}`).length
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
  it('a run killed before its commit is lost and runs once after the restart; one killed after its commit is kept and never runs again', async () => {
    // The first run falls due 10 s after the server starts: time to set up the market and plan.
    // The server kills itself once the core has applied it, before its journal append.
    let server = await startServer(firstDueMs, 10_000, { POLDER_TEST_KILL_ON: 'runSavingsPlan' })
    let killed = ended(server)
    const { buyer: saver, seller } = await buyerAndSeller(server, {
      buyerEmail: 'saver@example.com',
      eur: '1000',
      sellerEmail: 'seller@example.com',
      btc: '1',
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

    // 1. Killed as the core applies run 0, before its journal append.
    expect(await killed).toBe('SIGKILL')
    expect(server.lines.slice(-2)).toEqual([
      `RUN_APPLIED ${plan.id} 0`,
      'KILLED applied runSavingsPlan',
    ])
    server = await startServer(firstDueMs, -5_000) // the same clock, 5 s past the due time
    const firstRuns = await runsOf(server.url, saver, plan.id, 1)
    await lineOf(server, new RegExp(`^RUN_DURABLE ${plan.id} 0$`), 10_000)
    await new Promise((resolve) => setTimeout(resolve, 2_500)) // more scheduler ticks
    // The journal never had it: the restarted core accepted it again, once.
    expect(applied(server, plan.id, 0)).toBe(1)
    expect(await runsOf(server.url, saver, plan.id, 1)).toEqual(firstRuns)
    expect(firstRuns).toEqual([
      expect.objectContaining({
        status: 'SUCCESS',
        scheduledAt: firstDueMs,
        filledAmount: '0.00200000',
      }),
    ])
    await server.stop('SIGKILL')

    // 2. The next day: killed the moment run 1's commit is done.
    const secondDueMs = firstDueMs + dayMs
    server = await startServer(secondDueMs, 4_000, {
      POLDER_TEST_KILL_ON: 'runSavingsPlan:committed',
    })
    killed = ended(server)
    expect(await killed).toBe('SIGKILL')
    expect(server.lines.slice(-3)).toEqual([
      `RUN_APPLIED ${plan.id} 1`,
      `RUN_DURABLE ${plan.id} 1`,
      'KILLED committed runSavingsPlan',
    ])
    server = await startServer(secondDueMs, -5_000)
    const runs = await runsOf(server.url, saver, plan.id, 2)
    await new Promise((resolve) => setTimeout(resolve, 2_500))
    // The journal had it: the restarted scheduler did not run it again.
    expect(applied(server, plan.id, 1)).toBe(0)
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
    await server.stop('SIGKILL')
  }, 120_000)
})
