// Crash durability of everything beyond plain orders. The real server (createExchangeServer
// + listen, as serveTestListing.ts runs it, with the per-account order and rate limits raised) as
// a child process on a data directory, a seeded mixed workload over REST and the WebSocket
// (orders, cancels, withdrawals, euro payments with clientPaymentId, staking, savings plans,
// sessions, API keys, sign-ups, fee tiers, cancel-on-disconnect), SIGKILL at chosen moments, a
// restart on the same data directory, and then:
// - after a kill while quiet: every read answers exactly as before (archives included);
// - after a kill right after the acknowledgements, or in the middle of a burst: every acknowledged
//   effect is there (the archives answer exactly as just before the kill, their writes still
//   waiting), and nothing is half-applied: the ledger check holds, every account's balances are
//   what its ledger history (fill, transfer and reward archives) and its staked amounts add up
//   to, and, at the end, with every order cancelled nothing is held;
// - after a kill at an exact command moment (the child kills itself once the core applied the
//   command, before its journal append, or once its commit is done): the background steps
//   (withdrawal status, staking payout, payment answer, cancel-on-disconnect) happen exactly once;
// - after a kill while a snapshot is written (midway, after its rename), and after a snapshot
//   taken while commands kept coming: the restart (snapshot + journal tail) answers as before.
// The child's clock is the wall clock plus an offset the test moves forward over stdin (past the
// withdrawal delay and the countdowns, over midnights for the staking payouts), and the staking
// payout, which the server runs every 60 s, is run at once over stdin (the same task).
// CRASH_TEST_SEED picks another workload; CRASH_TEST_TIMINGS prints each step's time;
// CRASH_TEST_DUMP=<path prefix> writes what differed.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { serverNodeFlags } from '../src/nodeFlags.ts'
import { seededRandom } from '../src/simulator/random.ts'
import { type ApiKey, signedRequest } from './fixtures/signedRequest.ts'
import { webRequest } from './fixtures/webRequest.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, compared whole
type Json = any

const exchangeRoot = join(import.meta.dirname, '..')
const dayMs = 86_400_000
const iban = 'NL91ABNA0417164300'
const btcAddress = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq'
const withdrawalDelayMs = 3_600_000 // nothing moves on its own during a round

// The child: the real server with the test listing, a movable clock and kill points.
// (Run as the -e script of a CommonJS eval: it imports the TypeScript modules as the fixtures do.)
const harness = String.raw`
const fs = require('node:fs')
const { syncBuiltinESMExports } = require('node:module')
const { createInterface } = require('node:readline')
;(async () => {
const root = process.env.CRASH_TEST_ROOT
const { defaultConfig } = await import(root + '/src/config.ts')
const { createExchangeServer } = await import(root + '/src/server.ts')
const { testListing } = await import(root + '/test/fixtures/testListing.ts')
let offsetMs = Number(process.env.CRASH_TEST_OFFSET_MS ?? 0)
const nowMs = () => Date.now() + offsetMs
const say = (line) => process.stdout.write(line + '\n')
const die = (why) => { say('KILLED ' + why); process.kill(process.pid, 'SIGKILL') }
let armed
const hit = (stage, command) => {
  if (!armed || armed.stage !== stage || command.type !== armed.type) return
  die(stage + ' ' + command.type)
}
let snapKill
const realRename = fs.promises.rename
fs.promises.rename = async (from, to) => {
  const snapshot = String(from).endsWith('.partial')
  if (snapshot && snapKill === 'beforeRename') die('snapshot beforeRename')
  const result = await realRename(from, to)
  if (snapshot && snapKill === 'afterRename') die('snapshot afterRename')
  return result
}
syncBuiltinESMExports()
const server = await createExchangeServer(
  { ...defaultConfig, port: 0, logLevel: 'warn', dataDir: process.env.CRASH_TEST_DATA,
    withdrawalDelayMs: Number(process.env.CRASH_TEST_WITHDRAWAL_DELAY_MS),
    newOrdersPerSecondMax: 100000, rateLimitWeightPerMinute: 1000000 },
  testListing,
  { nowMs },
)
const realPrune = server.journal.prune.bind(server.journal)
server.journal.prune = async (seq) => {
  if (snapKill === 'beforePrune') die('snapshot beforePrune')
  return realPrune(seq)
}
server.service.onOutcome((command, outcome) => {
  if (command.type === 'runSavingsPlan')
    say('RUN ' + command.planId + ' ' + command.index + ' ' + command.timestamp + ' ' + (outcome.ok ? 'ok' : outcome.errorCode))
  if (outcome.ok) hit('applied', command)
})
server.service.onDurable((command) => hit('committed', command))
say('READY ' + (await server.listen()))
createInterface({ input: process.stdin }).on('line', async (line) => {
  const [verb, ...args] = line.trim().split(' ')
  try {
    if (verb === 'advance') { offsetMs += Number(args[0]); say('ADVANCED ' + offsetMs) }
    else if (verb === 'arm') { armed = { type: args[0], stage: args[1] }; say('ARMED ' + args[0]) }
    else if (verb === 'snapkill') { snapKill = args[0]; say('SNAPKILL ' + args[0]) }
    else if (verb === 'tick') {
      const task = { staking: server.stakingAccrual, withdrawals: server.withdrawalProcessor,
        savings: server.savingsScheduler, cod: server.cancelOnDisconnect }[args[0]]
      say('TICKED ' + args[0] + ' ' + JSON.stringify(await task.tick()))
    } else if (verb === 'snapshot') {
      if (args[0] !== undefined) setTimeout(() => die('snapshot midway'), Number(args[0]))
      const started = performance.now()
      await server.service.snapshot()
      say('SNAPSHOT_DONE ' + (performance.now() - started).toFixed(1) + ' ms')
    }
  } catch (error) { say('ERROR ' + verb + ' ' + error.message) }
})
})()
`

// ---------------------------------------------------------------------------------------------
// Child processes

const children: ChildProcess[] = []
/** Every line every child printed, in order (for a failure's diagnosis). */
const allLines: string[] = []
const dataDirs: string[] = []
afterAll(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  for (const dir of dataDirs) rmSync(dir, { recursive: true, force: true })
})

/** The server clock's lead over the wall clock; shared by every start on one data directory. */
type Clock = { offsetMs: number }

type Server = {
  child: ChildProcess
  url: string
  lines: string[]
  dataDir: string
  clock: Clock
  exited: Promise<void>
}

const serverNow = (server: Server) => Date.now() + server.clock.offsetMs

function startServer(dataDir: string, clock: Clock): Promise<Server> {
  const child = spawn(process.execPath, [...serverNodeFlags, '-e', harness], {
    env: {
      ...process.env,
      CRASH_TEST_ROOT: exchangeRoot,
      CRASH_TEST_DATA: dataDir,
      CRASH_TEST_OFFSET_MS: String(clock.offsetMs),
      CRASH_TEST_WITHDRAWAL_DELAY_MS: String(withdrawalDelayMs),
    },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  children.push(child)
  const lines: string[] = []
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  return new Promise((resolve, reject) => {
    let buffered = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      buffered += chunk.toString()
      const complete = buffered.split('\n')
      buffered = complete.pop()!
      for (const line of complete) {
        lines.push(line)
        allLines.push(`${Date.now()} ${line}`)
        const ready = /^READY (\S+)/.exec(line)
        if (ready) resolve({ child, url: ready[1]!, lines, dataDir, clock, exited })
      }
    })
    child.once('exit', (code, signal) => reject(new Error(`server exited with ${code ?? signal}`)))
  })
}

async function kill(server: Server): Promise<void> {
  if (server.child.exitCode === null && server.child.signalCode === null)
    server.child.kill('SIGKILL')
  await server.exited
}

/** Resolves with the first line matching `pattern` printed from `fromLine` on. */
async function lineOf(server: Server, pattern: RegExp, fromLine = 0, timeoutMs = 10_000) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const line = server.lines.slice(fromLine).find((text) => pattern.test(text))
    if (line !== undefined) return line
    if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms`)
    await sleep(5)
  }
}

/** Sends a harness command; resolves with its answer line. */
async function command(server: Server, text: string, answer: RegExp): Promise<string> {
  const from = server.lines.length
  server.child.stdin!.write(`${text}\n`)
  return lineOf(server, answer, from)
}

async function advance(server: Server, ms: number): Promise<void> {
  await command(server, `advance ${ms}`, /^ADVANCED /)
  server.clock.offsetMs += ms
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

// ---------------------------------------------------------------------------------------------
// The API

type Account = ApiKey & { accountId: number; name: string }

async function call(server: Server, who: ApiKey, method: string, path: string, body?: unknown) {
  return signedRequest(server.url, who, method, path, { body, timestampMs: serverNow(server) })
}

/** A signed request that must succeed: its body. */
async function ok(server: Server, who: ApiKey, method: string, path: string, body?: unknown) {
  const { status, json } = await call(server, who, method, path, body)
  expect(status, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(json)}`).toBeLessThan(
    300,
  )
  return json
}

async function admin(server: Server, method: 'GET' | 'POST', path: string, body?: unknown) {
  const token = readFileSync(join(server.dataDir, 'admin.token'), 'utf8').trim()
  const response = await fetch(`${server.url}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  return { status: response.status, json: (await response.json()) as Json }
}

async function newAccount(server: Server, name: string, eur?: string): Promise<Account> {
  const created = await admin(server, 'POST', '/admin/accounts', {
    email: `${name}@example.com`,
    password: 'a long enough password',
    withdraw: true,
    ...(eur === undefined ? {} : { eur }),
  })
  expect(created.status, JSON.stringify(created.json)).toBe(200)
  return { ...created.json, name }
}

async function deposit(server: Server, accountId: number, asset: string, amount: string) {
  const done = await admin(server, 'POST', '/admin/deposits', { accountId, asset, amount })
  expect(done.status, JSON.stringify(done.json)).toBe(200)
}

/** An authenticated WebSocket (a browser session's token) whose requests are answered by requestId. */
async function sessionSocket(server: Server, token: string) {
  const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v2`)
  const waiting = new Map<number, (message: Json) => void>()
  let nextId = 1
  ws.on('message', (data) => {
    const message = JSON.parse(String(data))
    if (message.requestId !== undefined) waiting.get(message.requestId)?.(message)
  })
  ws.on('error', () => {})
  await new Promise((resolve, reject) => {
    ws.once('open', resolve)
    ws.once('error', reject)
  })
  const request = (body: Record<string, unknown>): Promise<Json> =>
    new Promise((resolve, reject) => {
      const requestId = nextId++
      waiting.set(requestId, resolve)
      ws.once('close', () => reject(new Error('socket closed')))
      ws.send(JSON.stringify({ ...body, requestId }))
    })
  // The authenticate reply is an event (`{"event":"authenticate","authenticated":true}`).
  const authenticated = await new Promise<Json>((resolve) => {
    const onMessage = (data: unknown) => {
      const message = JSON.parse(String(data))
      if (message.event !== 'authenticate' && message.action !== 'authenticate') return
      ws.off('message', onMessage)
      resolve(message)
    }
    ws.on('message', onMessage)
    ws.send(JSON.stringify({ action: 'authenticate', token }))
  })
  expect(authenticated.authenticated, JSON.stringify(authenticated)).toBe(true)
  return { request, close: () => ws.terminate() }
}

// ---------------------------------------------------------------------------------------------
// What an account sees

const markets = ['BTC-EUR', 'ETH-EUR'] as const

async function observeAccount(server: Server, who: Account): Promise<Json> {
  const get = (path: string) => ok(server, who, 'GET', path)
  const plans: Json[] = await get('/exchange/savings-plans/v1')
  const executions: Record<string, Json> = {}
  for (const plan of plans)
    executions[plan.id] = await get(`/exchange/savings-plans/v1/${plan.id}/executions?size=100`)
  const orders: Record<string, Json> = {}
  const fills: Record<string, Json> = {}
  for (const market of markets) {
    orders[market] = await get(`/v2/orders?market=${market}&limit=1000`)
    fills[market] = await get(`/v2/trades?market=${market}&limit=1000`)
  }
  return {
    balance: await get('/v2/balance'),
    open: await get('/v2/ordersOpen'),
    orders,
    fills,
    deposits: await get('/v2/depositHistory?limit=1000'),
    withdrawals: await get('/v2/withdrawalHistory?limit=1000'),
    history: await ledgerHistory(server, who),
    account: await get('/v2/account'),
    fees: await get('/v2/account/fees'),
    payments: await get('/exchange/payments/v1/deposits?limit=1000'),
    limits: await get('/exchange/payments/v1/limits'),
    staking: await get('/exchange/staking/v1'),
    plans,
    deletedPlans: await get('/exchange/savings-plans/v1?status=DELETED'),
    executions,
  }
}

/** Every page of the account's ledger (`/v2/account/history`). */
async function ledgerHistory(server: Server, who: Account): Promise<Json[]> {
  const items: Json[] = []
  for (let page = 1; ; page += 1) {
    const { status, json } = await call(
      server,
      who,
      'GET',
      `/v2/account/history?maxItems=100&page=${page}`,
    )
    if (status === 200) {
      items.push(...json.items)
      if (page >= json.totalPages) return items
    } else if (json?.errorCode === 108) {
      page -= 1 // busy: again
      await sleep(20)
    } else throw new Error(`account history: ${status} ${JSON.stringify(json)}`)
  }
}

async function observe(server: Server, accounts: readonly Account[]): Promise<Json> {
  const seen: Json = { accounts: {}, public: {} }
  for (const who of accounts) seen.accounts[who.name] = await observeAccount(server, who)
  for (const market of markets) {
    seen.public[`${market} book`] = await (await fetch(`${server.url}/v2/${market}/book`)).json()
    seen.public[`${market} trades`] = await (
      await fetch(`${server.url}/v2/${market}/trades?limit=1000`)
    ).json()
  }
  seen.ledger = (await admin(server, 'GET', '/admin/ledger/check')).json
  return seen
}

/** Runs the savings scheduler's tick until, twice, nothing is due. */
async function savingsQuiet(server: Server): Promise<void> {
  for (let quietTicks = 0; quietTicks < 2; ) {
    const ran = await command(server, 'tick savings', /^TICKED savings/)
    quietTicks = ran === 'TICKED savings 0' ? quietTicks + 1 : 0
    await sleep(20)
  }
}

/** What the archives answer (orders, fills, transfers, ledgers, public trades), read at once. */
async function observeArchives(server: Server, accounts: readonly Account[]): Promise<Json> {
  const reads: [string, Promise<unknown>][] = []
  for (const who of accounts) {
    const get = (path: string) => ok(server, who, 'GET', path)
    for (const market of markets) {
      reads.push([`${who.name} orders ${market}`, get(`/v2/orders?market=${market}&limit=1000`)])
      reads.push([`${who.name} fills ${market}`, get(`/v2/trades?market=${market}&limit=1000`)])
    }
    reads.push([`${who.name} deposits`, get('/v2/depositHistory?limit=1000')])
    reads.push([`${who.name} withdrawals`, get('/v2/withdrawalHistory?limit=1000')])
    reads.push([`${who.name} ledger`, ledgerHistory(server, who)])
  }
  for (const market of markets)
    reads.push([
      `${market} trades`,
      fetch(`${server.url}/v2/${market}/trades?limit=1000`).then((response) => response.json()),
    ])
  const values = await Promise.all(reads.map(([, read]) => read))
  return Object.fromEntries(reads.map(([name], index) => [name, values[index]]))
}

/**
 * Observes until two reads 300 ms apart agree (book flushes, archives settled), once the savings
 * scheduler has nothing due (its tick every second would otherwise run a plan made due by the
 * last burst or by a restart right after the observation).
 */
async function observeSettled(server: Server, accounts: readonly Account[]): Promise<Json> {
  await savingsQuiet(server)
  let previous = await observe(server, accounts)
  for (let tries = 0; tries < 20; tries += 1) {
    await sleep(300)
    const next = await observe(server, accounts)
    if (JSON.stringify(next) === JSON.stringify(previous)) return next
    previous = next
  }
  throw new Error('the server never settled')
}

// ---------------------------------------------------------------------------------------------
// Nothing half-applied: the ledger check holds, and every account's balances are exactly what its
// ledger history (fills, deposits, withdrawals, staking rewards: the archives) and its staked
// amounts add up to.

const unitsDecimals = 18
/** The test listing's assets' decimals. */
const assetDecimals: Record<string, number> = { BTC: 8, ETH: 8, EUR: 2 }
function units(text: string | null | undefined): bigint {
  if (text === null || text === undefined) return 0n
  const negative = text.startsWith('-')
  const [whole, fraction = ''] = (negative ? text.slice(1) : text).split('.')
  const value = BigInt(whole! + fraction.padEnd(unitsDecimals, '0'))
  return negative ? -value : value
}

async function expectConsistent(server: Server, accounts: readonly Account[], when: string) {
  const check = await admin(server, 'GET', '/admin/ledger/check')
  expect(check.status, `${when}: ledger check ${JSON.stringify(check.json)}`).toBe(200)
  for (const who of accounts) {
    // Read between two equal reads of the balances: a savings run of the scheduler may come
    // in between.
    let seen: { items: Json[]; staking: Json; balance: Json[] } | undefined
    for (let tries = 0; tries < 20 && seen === undefined; tries += 1) {
      const balance = await ok(server, who, 'GET', '/v2/balance')
      const items = await ledgerHistory(server, who)
      const staking = await ok(server, who, 'GET', '/exchange/staking/v1')
      const again = await ok(server, who, 'GET', '/v2/balance')
      if (JSON.stringify(again) === JSON.stringify(balance)) seen = { items, staking, balance }
      else await sleep(100)
    }
    if (seen === undefined) throw new Error(`${when}: ${who.name}'s balances never held still`)
    const expected = new Map<string, bigint>()
    const add = (asset: string | null, amount: bigint) => {
      if (asset === null) return
      expected.set(asset, (expected.get(asset) ?? 0n) + amount)
    }
    for (const item of seen.items) {
      add(item.receivedCurrency, units(item.receivedAmount))
      add(item.sentCurrency, -units(item.sentAmount))
      add(item.feesCurrency, -units(item.feesAmount))
    }
    for (const position of seen.staking.positions) add(position.asset, -units(position.amount))
    const held = new Map<string, bigint>()
    for (const row of seen.balance) held.set(row.symbol, units(row.available) + units(row.inOrder))
    const mismatch = [...new Set([...expected.keys(), ...held.keys()])].filter((asset) => {
      // A balance's two parts, available and in order, are each shown cut to the asset's
      // decimals (the ledger keeps 18; fills at 8 decimals of the base and a hold's fee bound
      // leave fractions of a cent in both): the shown total is under the true one by less than
      // two shown units. Each staking reward is shown cut too (8 decimals here): the history
      // adds up to less than the truth by less than one such unit per reward.
      const rewards = seen!.items.filter(
        (item) => item.type === 'staking' && item.receivedCurrency === asset,
      )
      const shownUnit = 10n ** BigInt(unitsDecimals - (assetDecimals[asset] ?? unitsDecimals))
      const rewardsCut = BigInt(rewards.length) * 10n ** 10n
      const difference = (held.get(asset) ?? 0n) - (expected.get(asset) ?? 0n)
      return difference <= -2n * shownUnit || difference > rewardsCut
    })
    if (mismatch.length > 0 && process.env.CRASH_TEST_DUMP)
      writeFileSync(
        `${process.env.CRASH_TEST_DUMP}-${who.name}.json`,
        JSON.stringify({ when, ...seen }, null, 1),
      )
    expect(
      mismatch.map(
        (asset) => `${asset}: balance ${held.get(asset)} vs ledger history ${expected.get(asset)}`,
      ),
      `${when}: ${who.name}'s balances vs its ledger history`,
    ).toEqual([])
  }
}

/** Cancels every open order; afterwards nothing may be held in order. */
async function expectNothingHeldWithoutOrders(server: Server, accounts: readonly Account[]) {
  for (const who of accounts) {
    await ok(server, who, 'DELETE', '/v2/orders')
    for (const row of await ok(server, who, 'GET', '/v2/balance'))
      expect(units(row.inOrder), `${who.name} ${row.symbol} held without an order`).toBe(0n)
  }
}

// ---------------------------------------------------------------------------------------------
// A seeded workload

const pick = <T>(random: () => number, items: readonly T[]): T =>
  items[Math.floor(random() * items.length)]!

type World = {
  alice: Account
  bob: Account
  carol: Account
  dave: Account
  accounts: Account[]
  /** Carol's browser sessions: live ones, and those logged out. */
  sessions: { live: string[]; ended: string[] }
  socket: Awaited<ReturnType<typeof sessionSocket>> | undefined
  /** Every savings plan as last acknowledged (deleted ones too). */
  plans: Map<
    string,
    { who: Account; amount: string; status: string; frequency: string; deleted: boolean }
  >
  payments: Map<string, { who: Account; method: string; amount: string; id: string }>
  /** ETH staked by account name, as acknowledged. */
  staked: Map<string, bigint>
  /** The fee tier last set by account name. */
  tiers: Map<string, number>
  /** Orders placed in a cancel-on-disconnect group (300 s countdowns), by order id. */
  codOrders: Map<string, number>
  serial: number
}

/** An acknowledged operation and how to see, after a restart, that its effect is all there. */
type Acked = { what: string; verify: (server: Server) => Promise<void> }

/** One random operation of `actor`'s mix; what was acknowledged, or undefined when refused. */
async function randomOperation(
  server: Server,
  world: World,
  random: () => number,
  actor: 'alice' | 'bob' | 'carol',
): Promise<Acked | undefined> {
  world.serial += 1
  const n = world.serial
  const who = world[actor]
  const roll = random()
  const kind =
    actor === 'alice'
      ? roll < 0.35
        ? 'order'
        : roll < 0.45
          ? 'cancel'
          : roll < 0.57
            ? 'withdraw'
            : roll < 0.72
              ? 'pay'
              : roll < 0.85
                ? 'plan'
                : roll < 0.92
                  ? 'countdown'
                  : 'tier'
      : actor === 'bob'
        ? roll < 0.45
          ? 'order'
          : roll < 0.55
            ? 'cancel'
            : roll < 0.7
              ? 'withdraw'
              : roll < 0.9
                ? 'stake'
                : 'tier'
        : roll < 0.35
          ? 'order'
          : roll < 0.55
            ? 'pay'
            : roll < 0.75
              ? 'stake'
              : roll < 0.9
                ? 'plan'
                : 'session'

  if (kind === 'order') {
    // Prices and amounts keep every notional a multiple of 100 EUR (fees in whole cents).
    const market = actor === 'carol' ? 'ETH-EUR' : pick(random, markets)
    const side = actor === 'bob' ? 'sell' : 'buy'
    const price =
      market === 'BTC-EUR'
        ? pick(random, ['50000', '60000', '70000'])
        : pick(random, ['2000', '3000'])
    const amount =
      market === 'BTC-EUR'
        ? `0.0${1 + Math.floor(random() * 4)}`
        : pick(random, ['0.05', '0.1', '0.15', '0.2'])
    const body = { market, side, orderType: 'limit', price, amount }
    let placed: Json
    if (actor === 'carol' && world.socket !== undefined) {
      const reply = await world.socket.request({ action: 'privateCreateOrder', ...body })
      if (reply.error !== undefined) return undefined
      placed = reply.response
    } else {
      const { status, json } = await call(server, who, 'POST', '/v2/order', body)
      if (status !== 200) return undefined
      placed = json
    }
    return {
      what: `order ${n} ${who.name} ${JSON.stringify(body)} -> ${placed.status}`,
      verify: async (restarted) => {
        const found = await ok(
          restarted,
          who,
          'GET',
          `/v2/order?market=${market}&orderId=${placed.orderId}`,
        )
        expect(units(found.filledAmount)).toBeGreaterThanOrEqual(units(placed.filledAmount))
        if (!['new', 'partiallyFilled'].includes(placed.status))
          expect(found.status).toBe(placed.status)
        const fills: Json[] = await ok(
          restarted,
          who,
          'GET',
          `/v2/trades?market=${market}&limit=1000`,
        )
        const fillIds = new Set(fills.map((fill) => fill.id))
        for (const fill of placed.fills ?? [])
          expect(fillIds.has(fill.id), `fill ${fill.id}`).toBe(true)
        const listed: Json[] = await ok(
          restarted,
          who,
          'GET',
          `/v2/orders?market=${market}&limit=1000`,
        )
        expect(listed.some((order) => order.orderId === placed.orderId)).toBe(true)
      },
    }
  }
  if (kind === 'cancel') {
    const open: Json[] = await ok(server, who, 'GET', '/v2/ordersOpen')
    // Not the orders of a countdown: those are checked to go with it.
    const mine = open.filter(
      (order) =>
        (order.status === 'new' || order.status === 'partiallyFilled') &&
        !world.codOrders.has(order.orderId),
    )
    if (mine.length === 0) return undefined
    const victim = pick(random, mine)
    const path = `/v2/order?market=${victim.market}&orderId=${victim.orderId}`
    const { status } = await call(server, who, 'DELETE', path)
    if (status !== 200) return undefined
    return {
      what: `cancel ${n} ${who.name} ${victim.orderId}`,
      verify: async (restarted) => {
        const found = await ok(
          restarted,
          who,
          'GET',
          `/v2/order?market=${victim.market}&orderId=${victim.orderId}`,
        )
        expect(found.status).toBe('canceled')
      },
    }
  }
  if (kind === 'withdraw') {
    // An amount no other withdrawal has, so that it can be found again.
    const euro = actor === 'alice'
    const amount = euro ? `${100 + n}` : `0.0${1000 + n}`
    const address = euro ? iban : btcAddress
    const { status, json } = await call(server, who, 'POST', '/v2/withdrawal', {
      symbol: euro ? 'EUR' : 'BTC',
      amount,
      address,
    })
    if (status !== 200) return undefined
    expect(json.success).toBe(true)
    return {
      what: `withdrawal ${n} ${who.name} ${amount}`,
      verify: async (restarted) => {
        const listed: Json[] = await ok(restarted, who, 'GET', '/v2/withdrawalHistory?limit=1000')
        const matching = listed.filter(
          (entry) =>
            units(entry.amount) + units(entry.fee) === units(amount) && entry.address === address,
        )
        expect(matching, `withdrawal of ${amount}`).toHaveLength(1)
      },
    }
  }
  if (kind === 'pay') {
    // A euro payment with a clientPaymentId; now and then the same request again.
    const mine = [...world.payments].filter(([, payment]) => payment.who === who)
    const earlier = mine.length > 0 && random() < 0.3 ? pick(random, mine) : undefined
    const clientPaymentId = earlier?.[0] ?? `pay-${n}-${Math.floor(random() * 1e6)}`
    const method = earlier?.[1].method ?? pick(random, ['sepa-instant', 'ideal', 'card', 'paypal'])
    const amount =
      earlier?.[1].amount ?? `${20 + Math.floor(random() * 200)}.${10 + Math.floor(random() * 89)}`
    const body = { method, amount, clientPaymentId }
    const { status, json } = await call(server, who, 'POST', '/exchange/payments/v1/deposits', body)
    if (status >= 300) return undefined
    if (earlier !== undefined) {
      expect(status, `payment sent again: ${JSON.stringify(json)}`).toBe(200)
      expect(json.id).toBe(earlier[1].id)
    } else world.payments.set(clientPaymentId, { who, method, amount, id: json.id })
    return {
      what: `payment ${n} ${who.name} ${clientPaymentId} ${json.status}`,
      verify: async (restarted) => {
        const found = await ok(restarted, who, 'GET', `/exchange/payments/v1/deposits/${json.id}`)
        expect(found).toMatchObject({ id: json.id, method, amount: json.amount, fee: json.fee })
        if (json.status !== 'pending') expect(found.status).toBe(json.status)
        const listed: Json[] = await ok(
          restarted,
          who,
          'GET',
          '/exchange/payments/v1/deposits?limit=1000',
        )
        expect(listed.filter((payment) => payment.id === json.id)).toHaveLength(1)
        // Sent again after the restart: the same payment, not a second one.
        const again = await call(restarted, who, 'POST', '/exchange/payments/v1/deposits', body)
        expect(again.status, JSON.stringify(again.json)).toBe(200)
        expect(again.json.id).toBe(json.id)
      },
    }
  }
  if (kind === 'stake') {
    // Carol through her session, bob through his key.
    const staked = world.staked.get(who.name) ?? 0n
    const amount = `0.${1 + Math.floor(random() * 9)}`
    const action = staked > units(amount) && random() < 0.3 ? 'unstake' : 'stake'
    const path = `/exchange/staking/v1/${action}`
    const body = { asset: 'ETH', amount, acknowledgeRisk: true }
    const session = world.sessions.live[0]
    const { status, json } =
      actor === 'carol' && session !== undefined
        ? await webRequest(server.url, session, 'POST', path, body)
        : await call(server, who, 'POST', path, body)
    if (status !== 200) return undefined
    expect(json.success).toBe(true)
    world.staked.set(who.name, action === 'stake' ? staked + units(amount) : staked - units(amount))
    return { what: `${action} ${n} ${who.name} ${amount}`, verify: async () => {} }
  }
  if (kind === 'plan') {
    // Create (some start today: they buy at the scheduler's next tick), patch, delete. Checked
    // against the model (the last acknowledged state of each plan) in `expectModel`.
    const mine = [...world.plans].filter(([, plan]) => plan.who === who && !plan.deleted)
    const choice = mine.length === 0 ? 0 : Math.floor(random() * 3)
    if (choice === 0) {
      const dateIn = (days: number) =>
        new Date(serverNow(server) + days * dayMs).toISOString().slice(0, 10)
      const { status, json } = await call(server, who, 'POST', '/exchange/savings-plans/v1', {
        asset: 'BTC',
        amount: `${10 + Math.floor(random() * 90)}`,
        frequency: pick(random, ['DAILY', 'WEEKLY', 'MONTHLY']),
        startDate: random() < 0.3 ? dateIn(0) : dateIn(3),
      })
      if (status >= 300) return undefined
      const { amount, status: planStatus, frequency } = json
      world.plans.set(json.id, { who, amount, status: planStatus, frequency, deleted: false })
      return { what: `plan created ${n} ${who.name} ${json.id}`, verify: async () => {} }
    }
    const [planId, plan] = pick(random, mine)
    const path = `/exchange/savings-plans/v1/${planId}`
    if (choice === 1) {
      const data =
        random() < 0.5 ? { amount: `${10 + Math.floor(random() * 90)}` } : { status: 'INACTIVE' }
      const { status, json } = await call(server, who, 'PATCH', path, { data })
      if (status >= 300) return undefined
      plan.amount = json.amount
      plan.status = json.status
      return {
        what: `plan patched ${n} ${who.name} ${planId} ${JSON.stringify(data)}`,
        verify: async () => {},
      }
    }
    const { status } = await call(server, who, 'DELETE', path)
    if (status >= 300) return undefined
    plan.deleted = true
    return { what: `plan deleted ${n} ${who.name} ${planId}`, verify: async () => {} }
  }
  if (kind === 'countdown') {
    // A cancel-on-disconnect countdown of 300 s and an order in its group.
    const codGroupId = n
    const armed = await ok(server, who, 'POST', '/v2/cancelOrdersAfter', {
      codGroupId,
      expiryAfterSeconds: 300,
    })
    const order = await ok(server, who, 'POST', '/v2/order', {
      market: 'BTC-EUR',
      side: 'buy',
      orderType: 'limit',
      price: '40000',
      amount: '0.01',
      codGroupId,
    })
    world.codOrders.set(order.orderId, armed.timeOfExpirySeconds)
    return {
      what: `countdown ${n} group ${codGroupId} until ${armed.timeOfExpirySeconds}`,
      verify: async (restarted) => {
        const path = `/v2/order?market=BTC-EUR&orderId=${order.orderId}`
        expect((await ok(restarted, who, 'GET', path)).status).toBe('new')
        // The countdown still runs: an order may still join its group.
        const joined = await call(restarted, who, 'POST', '/v2/order', {
          market: 'BTC-EUR',
          side: 'buy',
          orderType: 'limit',
          price: '40000',
          amount: '0.01',
          codGroupId,
        })
        expect(joined.status, JSON.stringify(joined.json)).toBe(200)
        world.codOrders.set(joined.json.orderId, armed.timeOfExpirySeconds)
      },
    }
  }
  if (kind === 'tier') {
    const tier = Math.floor(random() * 4)
    const set = await admin(server, 'POST', '/admin/accounts/fee-tier', {
      accountId: who.accountId,
      tier,
    })
    expect(set.status).toBe(200)
    world.tiers.set(who.name, tier)
    return { what: `fee tier ${n} ${who.name} ${tier}`, verify: async () => {} }
  }
  // Carol's sessions: a new login, or a logout of one of hers.
  if (world.sessions.live.length > 1 && random() < 0.5) {
    const token = world.sessions.live.pop()!
    const out = await webRequest(server.url, token, 'POST', '/exchange/auth/v1/logout')
    expect(out.status).toBe(204)
    world.sessions.ended.push(token)
    return { what: `logout ${n}`, verify: async () => {} }
  }
  const login = await webRequest(server.url, undefined, 'POST', '/exchange/auth/v1/login', {
    email: 'carol@example.com',
    password: 'a long enough password',
  })
  expect(login.status).toBe(200)
  world.sessions.live.push(login.json.token)
  return { what: `login ${n}`, verify: async () => {} }
}

/** What the model says must hold after a restart: staked amounts, fee tiers, sessions, keys. */
async function expectModel(server: Server, world: World, when: string) {
  for (const who of [world.bob, world.carol]) {
    const staking = await ok(server, who, 'GET', '/exchange/staking/v1')
    const eth = staking.positions.find((position: Json) => position.asset === 'ETH')
    expect(units(eth?.amount ?? '0'), `${when}: ${who.name} staked`).toBe(
      world.staked.get(who.name) ?? 0n,
    )
  }
  for (const [name, tier] of world.tiers) {
    const account = await ok(server, world[name as 'alice'], 'GET', '/v2/account')
    expect(account.fees.tier, `${when}: ${name} fee tier`).toBe(String(tier))
  }
  for (const [planId, plan] of world.plans) {
    const found = await call(server, plan.who, 'GET', `/exchange/savings-plans/v1/${planId}`)
    if (plan.deleted) {
      expect(found.status, `${when}: plan ${planId} deleted`).toBe(404)
      const deleted: Json[] = await ok(
        server,
        plan.who,
        'GET',
        '/exchange/savings-plans/v1?status=DELETED',
      )
      expect(
        deleted.some((listed) => listed.id === planId),
        `${when}: plan ${planId} listed as deleted`,
      ).toBe(true)
    } else
      expect(found.json, `${when}: plan ${planId}`).toMatchObject({
        id: planId,
        amount: plan.amount,
        status: plan.status,
        frequency: plan.frequency,
      })
  }
  for (const token of world.sessions.live) {
    const seen = await webRequest(server.url, token, 'GET', '/exchange/staking/v1')
    expect(seen.status, `${when}: a live session`).toBe(200)
  }
  for (const token of world.sessions.ended) {
    const seen = await webRequest(server.url, token, 'GET', '/exchange/staking/v1')
    expect(seen.status, `${when}: a logged-out session`).toBe(401)
  }
}

/** The model as the server has it (after a round whose outcomes are not all known). */
async function resyncModel(server: Server, world: World) {
  for (const who of [world.bob, world.carol]) {
    const staking = await ok(server, who, 'GET', '/exchange/staking/v1')
    const eth = staking.positions.find((position: Json) => position.asset === 'ETH')
    world.staked.set(who.name, units(eth?.amount ?? '0'))
  }
  for (const name of world.tiers.keys()) {
    const account = await ok(server, world[name as 'alice'], 'GET', '/v2/account')
    world.tiers.set(name, Number(account.fees.tier))
  }
  for (const [planId, plan] of world.plans) {
    const found = await call(server, plan.who, 'GET', `/exchange/savings-plans/v1/${planId}`)
    if (found.status === 404) plan.deleted = true
    else
      Object.assign(plan, { amount: found.json.amount, status: found.json.status, deleted: false })
  }
  const live: string[] = []
  for (const token of world.sessions.live) {
    const seen = await webRequest(server.url, token, 'GET', '/exchange/staking/v1')
    ;(seen.status === 200 ? live : world.sessions.ended).push(token)
  }
  world.sessions.live = live
}

/** A network error of a request the kill cut off (an assertion failure is not one). */
function cutOff(error: unknown): boolean {
  return !(error instanceof Error && error.name === 'AssertionError')
}

/**
 * Runs `perLane` random operations in each of three lanes (one per actor) at once. With
 * `killAfterMs`, the server is killed that long after the start, in the middle of the burst;
 * operations cut off are left unknown.
 */
async function burst(
  server: Server,
  world: World,
  random: () => number,
  perLane: number,
  killAfterMs?: number,
): Promise<{ acked: Acked[]; cut: number }> {
  const acked: Acked[] = []
  let cut = 0
  let dead = false
  const lane = async (actor: 'alice' | 'bob' | 'carol', laneRandom: () => number) => {
    for (let i = 0; i < perLane && !dead; i += 1) {
      try {
        const done = await randomOperation(server, world, laneRandom, actor)
        if (done !== undefined && !dead) acked.push(done)
      } catch (error) {
        // A request the kill cut off (the test's, or the child's own at an armed point).
        if (!cutOff(error)) throw error
        if (!dead) await Promise.race([server.exited.then(() => (dead = true)), sleep(2_000)])
        if (!dead) throw error
        cut += 1
      }
    }
  }
  // Each lane its own stream of the seed, so lanes interleave but choose alike run after run.
  const seeds = [random(), random(), random()].map((value) =>
    seededRandom(Math.floor(value * 2 ** 32)),
  )
  const lanes = Promise.all([
    lane('alice', seeds[0]!),
    lane('bob', seeds[1]!),
    lane('carol', seeds[2]!),
  ])
  if (killAfterMs === undefined) {
    await lanes
    return { acked, cut }
  }
  await Promise.race([lanes, sleep(killAfterMs), server.exited])
  dead = true
  await kill(server)
  await lanes
  return { acked, cut }
}

// ---------------------------------------------------------------------------------------------

const seed = Number(process.env.CRASH_TEST_SEED ?? 20261128)
/** The server clock at the first start: 10:00 UTC of a day no wall clock reaches. */
const firstStartMs = Date.UTC(2031, 5, 10, 10, 0, 0)

async function restart(server: Server): Promise<Server> {
  await kill(server)
  return startServer(server.dataDir, server.clock)
}

async function setUp(server: Server): Promise<World> {
  const alice = await newAccount(server, 'alice', '200000')
  const bob = await newAccount(server, 'bob')
  await deposit(server, bob.accountId, 'BTC', '3')
  await deposit(server, bob.accountId, 'ETH', '60')
  const dave = await newAccount(server, 'dave', '100')
  // Carol trades in the browser (sessions, the session's WebSocket); her key serves the reads.
  const carol = await newAccount(server, 'carol', '30000')
  await deposit(server, carol.accountId, 'ETH', '20')
  const login = await webRequest(server.url, undefined, 'POST', '/exchange/auth/v1/login', {
    email: 'carol@example.com',
    password: 'a long enough password',
  })
  expect(login.status).toBe(200)
  const world: World = {
    alice,
    bob,
    carol,
    dave,
    accounts: [alice, bob, carol],
    sessions: { live: [login.json.token], ended: [] },
    socket: undefined,
    plans: new Map(),
    payments: new Map(),
    staked: new Map(),
    tiers: new Map(),
    codOrders: new Map(),
    serial: 0,
  }
  // Resting asks, so that buys and savings runs find sellers.
  for (const [market, price, amount] of [
    ['BTC-EUR', '70000', '0.2'],
    ['ETH-EUR', '3000', '5'],
  ] as const)
    await ok(server, bob, 'POST', '/v2/order', {
      market,
      side: 'sell',
      orderType: 'limit',
      price,
      amount,
    })
  return world
}

const timings: string[] = []
let lastMark = Date.now()
function mark(what: string) {
  const now = Date.now()
  timings.push(`${what} ${now - lastMark} ms`)
  if (process.env.CRASH_TEST_TIMINGS) process.stderr.write(`MARK ${what} ${now - lastMark} ms\n`)
  lastMark = now
}
afterAll(() => {
  if (process.env.CRASH_TEST_TIMINGS) console.log(timings.join('\n'))
})

function expectSame(after: Json, before: Json, when: string) {
  if (process.env.CRASH_TEST_DUMP && JSON.stringify(after) !== JSON.stringify(before))
    writeFileSync(
      `${process.env.CRASH_TEST_DUMP}-same.json`,
      JSON.stringify({ when, before, after, lines: allLines }, null, 1),
    )
  // The whole observation at once, so that a difference shows where it is.
  expect(after, when).toEqual(before)
}

describe('crash durability beyond plain orders', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'polder-crash-durability-'))
  dataDirs.push(dataDir)
  const clock: Clock = { offsetMs: firstStartMs - Date.now() }
  let server: Server
  let world: World
  const random = seededRandom(seed)

  it('a kill right after the acknowledgements, and one in the middle of a burst', async () => {
    lastMark = Date.now()
    server = await startServer(dataDir, clock)
    world = await setUp(server)
    world.socket = await sessionSocket(server, world.sessions.live[0]!)
    mark('first start and accounts')

    // 1. A burst, then what the archives answer (their writes still waiting: fills are written a
    // second apart, orders and transfers every 100-200 ms), then accounts, keys and sessions
    // (the embedded database), killed the moment the last of those is acknowledged.
    world.socket = await sessionSocket(server, world.sessions.live[0]!)
    const first = await burst(server, world, random, 8)
    await savingsQuiet(server)
    const archived = await observeArchives(server, world.accounts)
    const [erin] = await Promise.all([
      admin(server, 'POST', '/admin/accounts', {
        email: 'erin@example.com',
        password: 'a long enough password',
        eur: '250',
      }),
      admin(server, 'POST', '/admin/keys/revoke', { key: world.dave.key }),
      webRequest(server.url, undefined, 'POST', '/exchange/auth/v1/signup', {
        email: 'frank@example.com',
        password: 'a long enough password',
      }).then((signup) => expect(signup.status).toBe(201)),
      webRequest(server.url, undefined, 'POST', '/exchange/auth/v1/login', {
        email: 'carol@example.com',
        password: 'a long enough password',
      }).then((login) => {
        expect(login.status).toBe(200)
        world.sessions.live.push(login.json.token)
      }),
      webRequest(server.url, world.sessions.live[0], 'POST', '/exchange/auth/v1/logout').then(
        (logout) => {
          expect(logout.status).toBe(204)
          world.sessions.ended.push(world.sessions.live.shift()!)
        },
      ),
      admin(server, 'POST', '/admin/accounts/fee-tier', {
        accountId: world.bob.accountId,
        tier: 5,
      }).then((set) => {
        expect(set.status).toBe(200)
        world.tiers.set('bob', 5)
      }),
    ])
    expect(erin.status).toBe(200)
    server = await restart(server)
    const when = 'after a kill right after the acknowledgements'
    expectSame(await observeArchives(server, world.accounts), archived, `${when}: the archives`)
    for (const done of first.acked)
      await done.verify(server).catch((error) => {
        throw new Error(`${when}: ${done.what}: ${error.message}`)
      })
    await expectModel(server, world, when)
    // The revoked key stays revoked, the new key works (and its account's euros are there), the
    // sign-up can log in.
    const revoked = await call(server, world.dave, 'GET', '/v2/balance')
    expect(revoked.status, `${when}: a revoked key`).toBe(403)
    expect(await ok(server, erin.json, 'GET', '/v2/balance?symbol=EUR')).toEqual([
      { symbol: 'EUR', available: '250.00', inOrder: '0.00' },
    ])
    const frank = await webRequest(server.url, undefined, 'POST', '/exchange/auth/v1/login', {
      email: 'frank@example.com',
      password: 'a long enough password',
    })
    expect(frank.status, `${when}: a sign-up`).toBe(200)
    await expectConsistent(server, world.accounts, when)
    mark(`burst of ${first.acked.length} acknowledged, killed, verified`)

    // 2. A burst killed in the middle.
    world.socket = await sessionSocket(server, world.sessions.live[0]!)
    const killAfterMs = 100 + Math.floor(random() * 300)
    const second = await burst(server, world, random, 30, killAfterMs)
    server = await startServer(dataDir, clock)
    for (const done of second.acked)
      await done.verify(server).catch((error) => {
        throw new Error(`after a kill mid-burst: ${done.what}: ${error.message}`)
      })
    await expectConsistent(server, world.accounts, 'after a kill mid-burst')
    await resyncModel(server, world)
    mark(
      `burst killed after ${killAfterMs} ms: ${second.acked.length} acknowledged, ${second.cut} cut off`,
    )
  }, 120_000)

  /** Waits for the child to kill itself at its armed point (the request that got there dies). */
  async function killedAt(point: RegExp, trigger: () => Promise<unknown>): Promise<void> {
    const from = server.lines.length
    // Not awaited: a harness command that dies with the process would wait for its answer.
    trigger().catch(() => undefined)
    await lineOf(server, point, from)
    await server.exited
  }

  /** Every account's total (available + in order) per asset. */
  async function totals(): Promise<Record<string, Record<string, bigint>>> {
    const all: Record<string, Record<string, bigint>> = {}
    for (const who of world.accounts) {
      all[who.name] = {}
      for (const row of await ok(server, who, 'GET', '/v2/balance'))
        all[who.name]![row.symbol] = units(row.available) + units(row.inOrder)
    }
    return all
  }

  async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, what: string) {
    const deadline = Date.now() + 5_000
    for (;;) {
      const value = await read()
      if (done(value)) return value
      if (Date.now() > deadline) throw new Error(`${what}: still ${JSON.stringify(value)}`)
      await sleep(50)
    }
  }

  it('withdrawal steps, cancel-on-disconnect, staking payouts and payments, killed at their exact moments', async () => {
    lastMark = Date.now()
    const { alice, bob, carol } = world
    world.socket?.close()
    world.socket = undefined

    // 1. Past the withdrawal delay (and the 300 s countdowns): killed the moment the first
    // withdrawal step is committed. The restart finishes every withdrawal, each once.
    const withdrawalsBefore: Record<string, Json[]> = {}
    for (const who of [alice, bob])
      withdrawalsBefore[who.name] = await ok(server, who, 'GET', '/v2/withdrawalHistory?limit=1000')
    const pending = Object.values(withdrawalsBefore)
      .flat()
      .filter((w) => w.status !== 'completed')
    expect(pending.length).toBeGreaterThan(0)
    // A plan made today in the last burst buys at the restarted server's first ticks: before
    // the balances are read, not between the two reads.
    await savingsQuiet(server)
    const totalsBefore = await totals()
    await expectConsistent(server, world.accounts, 'before the withdrawal steps')
    await command(server, 'arm advanceWithdrawal committed', /^ARMED/)
    await killedAt(/^KILLED committed advanceWithdrawal/, () =>
      advance(server, withdrawalDelayMs + 60_000),
    )
    server = await startServer(dataDir, clock)
    for (const who of [alice, bob]) {
      const after = await until(
        () => ok(server, who, 'GET', '/v2/withdrawalHistory?limit=1000'),
        (list: Json[]) => list.every((w) => w.status === 'completed'),
        `${who.name}'s withdrawals completing`,
      )
      expect(after).toEqual(
        withdrawalsBefore[who.name]!.map((w) => ({ ...w, status: 'completed' })),
      )
    }
    expect(await totals(), 'completing withdrawals moves no balance').toEqual(totalsBefore)
    // Every countdown ran out (while up or down): its orders are cancelled, once.
    for (const [orderId] of world.codOrders) {
      const found = await until(
        () => ok(server, alice, 'GET', `/v2/order?market=BTC-EUR&orderId=${orderId}`),
        (order: Json) => order.status !== 'new',
        `order ${orderId} of a countdown that ran out`,
      )
      expect(found).toMatchObject({ status: 'canceled', restatementReason: 'cancelOnDisconnect' })
    }
    // The daily withdrawal limit still counts what was withdrawn before the kill.
    const limits = await ok(server, alice, 'GET', '/exchange/payments/v1/limits')
    const withdrawnEur = withdrawalsBefore.alice!.reduce(
      (sum, w) => sum + units(w.amount) + units(w.fee),
      0n,
    )
    expect(units(limits.withdrawal.usedLast24h)).toBe(withdrawnEur)
    await expectConsistent(server, world.accounts, 'after the withdrawal steps')
    mark('withdrawal step killed at its commit')

    // 2. The staking payout, killed once the core applied it, before its journal append: lost,
    // and paid once by the restarted server. Bob and carol have held their stakes since the
    // first day; the payout of the second day comes after its midnight.
    if ((world.staked.get('bob') ?? 0n) === 0n) {
      // Whether the bursts got a stake of bob's acknowledged depends on the machine's speed
      // (the second one is killed after a time, not a count): one of his own now, on the day
      // that earns nothing.
      const { json } = await call(server, bob, 'POST', '/exchange/staking/v1/stake', {
        asset: 'ETH',
        amount: '0.5',
        acknowledgeRisk: true,
      })
      expect(json.success).toBe(true)
      world.staked.set('bob', (world.staked.get('bob') ?? 0n) + units('0.5'))
    }
    const stakedBob = world.staked.get('bob')!
    const rewardsBefore = (await ok(server, bob, 'GET', '/exchange/staking/v1')).rewards
    // The first midnight's payout (the first day, on which they staked, earns nothing), then
    // the second's.
    const dayTwoEndMs = Math.floor(serverNow(server) / dayMs) * dayMs + 2 * dayMs
    await advance(server, dayTwoEndMs - dayMs + 30_000 - serverNow(server))
    expect(await command(server, 'tick staking', /^TICKED/)).toBe('TICKED staking true')
    await advance(server, dayMs)
    const ethBefore = (await totals()).bob!.ETH!
    await command(server, 'arm accrueStakingRewards applied', /^ARMED/)
    await killedAt(/^KILLED applied accrueStakingRewards/, () =>
      command(server, 'tick staking', /^TICKED/),
    )
    server = await startServer(dataDir, clock)
    // The restarted server paid it as it started, before it listened: once.
    expect(await command(server, 'tick staking', /^TICKED/)).toBe('TICKED staking false')
    const paidDay = new Date(dayTwoEndMs - dayMs).toISOString().slice(0, 10)
    const ethYieldPpm = 28_000n // 2.8% a year (the catalogue)
    const rewardBob = (stakedBob * ethYieldPpm) / (1_000_000n * 365n)
    const rewardsAfter = (await ok(server, bob, 'GET', '/exchange/staking/v1')).rewards
    expect(rewardsAfter.filter((reward: Json) => reward.date === paidDay)).toHaveLength(1)
    expect(rewardsAfter).toHaveLength(rewardsBefore.length + 1)
    // Shown to 8 decimals: the difference is the reward within one shown unit.
    const gained = (await totals()).bob!.ETH! - ethBefore
    expect(
      gained > rewardBob - 10n ** 10n && gained < rewardBob + 10n ** 10n,
      `${gained} vs ${rewardBob}`,
    ).toBe(true)
    mark('staking payout killed before its commit')

    // 3. The next day's payout killed the moment it is committed: kept, and never paid again.
    await advance(server, dayMs)
    await command(server, 'arm accrueStakingRewards committed', /^ARMED/)
    await killedAt(/^KILLED committed accrueStakingRewards/, () =>
      command(server, 'tick staking', /^TICKED/),
    )
    server = await startServer(dataDir, clock)
    const nextDay = new Date(dayTwoEndMs).toISOString().slice(0, 10)
    const kept = (await ok(server, bob, 'GET', '/exchange/staking/v1')).rewards
    expect(kept.filter((reward: Json) => reward.date === nextDay)).toHaveLength(1)
    expect(await command(server, 'tick staking', /^TICKED/)).toBe('TICKED staking false')
    expect((await ok(server, bob, 'GET', '/exchange/staking/v1')).rewards).toEqual(kept)
    await expectConsistent(server, world.accounts, 'after the staking payouts')
    mark('staking payout killed at its commit')

    // 4. Euro payments: killed once the provider's answer is committed (the request was never
    // answered), and once the payment's record is committed, before the provider heard of it:
    // the same request sent again finds the payment, credited once.
    for (const [point, clientPaymentId] of [
      ['updatePayment committed', 'crash-confirmed'],
      ['startPayment committed', 'crash-started'],
    ] as const) {
      const body = { method: 'ideal', amount: '123.45', clientPaymentId }
      // Carol's plans came due with step 3's day: bought now, not between the two reads.
      await savingsQuiet(server)
      const eurBefore = (await totals()).carol!.EUR!
      await command(server, `arm ${point}`, /^ARMED/)
      await killedAt(new RegExp(`^KILLED ${point.split(' ')[1]} ${point.split(' ')[0]}`), () =>
        call(server, carol, 'POST', '/exchange/payments/v1/deposits', body),
      )
      server = await startServer(dataDir, clock)
      const payments = async () =>
        (await ok(server, carol, 'GET', '/exchange/payments/v1/deposits?limit=1000')) as Json[]
      const again = await call(server, carol, 'POST', '/exchange/payments/v1/deposits', body)
      expect(again.status, `${point}: the same payment (${JSON.stringify(again.json)})`).toBe(200)
      const confirmed = await until(
        () => ok(server, carol, 'GET', `/exchange/payments/v1/deposits/${again.json.id}`),
        (payment: Json) => payment.status === 'confirmed',
        `${point}: payment confirmed`,
      )
      expect((await payments()).filter((p) => p.id === again.json.id)).toHaveLength(1)
      expect((await totals()).carol!.EUR! - eurBefore, `${point}: credited once`).toBe(
        units(confirmed.credited),
      )
      const deposits: Json[] = await ok(server, carol, 'GET', '/v2/depositHistory?limit=1000')
      expect(
        deposits.filter((d) => d.paymentId === again.json.id || d.txId === again.json.id),
      ).toHaveLength(1)
    }
    await expectConsistent(server, world.accounts, 'after the payments')
    mark('payments killed at three moments')

    // 5. Cancel-on-disconnect: a countdown that runs out, its cancel applied but never committed
    // (carried out again before the restarted server listens). (Its commit and the restart's
    // catch-up are covered by step 1, where the countdowns ran out with the clock.)
    for (const stage of ['applied'] as const) {
      const codGroupId = 900
      await ok(server, alice, 'POST', '/v2/cancelOrdersAfter', {
        codGroupId,
        expiryAfterSeconds: 10,
      })
      const order = await ok(server, alice, 'POST', '/v2/order', {
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        price: '41000',
        amount: '0.01',
        codGroupId,
      })
      await command(server, `arm cancelExpiredGroup ${stage}`, /^ARMED/)
      await killedAt(new RegExp(`^KILLED ${stage} cancelExpiredGroup`), () =>
        advance(server, 11_000),
      )
      server = await startServer(dataDir, clock)
      const found = await ok(
        server,
        alice,
        'GET',
        `/v2/order?market=BTC-EUR&orderId=${order.orderId}`,
      )
      expect(found, `countdown killed ${stage}`).toMatchObject({
        status: 'canceled',
        restatementReason: 'cancelOnDisconnect',
      })
      const late = await call(server, alice, 'POST', '/v2/order', {
        market: 'BTC-EUR',
        side: 'buy',
        orderType: 'limit',
        price: '41000',
        amount: '0.01',
        codGroupId,
      })
      expect(late.status, `a group whose countdown ran out takes no order (${stage})`).toBe(400)
    }
    await expectConsistent(server, world.accounts, 'after the countdowns')
    mark('countdown killed before its commit')
  }, 120_000)

  // A day whose payout a crash cut off is paid by the next payout, even when the restart comes
  // after the following midnight (the payout pays every day since the last one paid).
  it('a staking payout cut off by a crash is still paid when the restart comes after the next midnight', async () => {
    lastMark = Date.now()
    const { bob } = world
    const staked = world.staked.get('bob') ?? 0n
    expect(staked).toBeGreaterThan(0n)
    // The payout of the day that just ended is applied, and the process dies before its commit.
    const nextMidnightMs = Math.floor(serverNow(server) / dayMs) * dayMs + dayMs
    await advance(server, nextMidnightMs + 30_000 - serverNow(server))
    const lostDay = new Date(nextMidnightMs - dayMs).toISOString().slice(0, 10)
    await command(server, 'arm accrueStakingRewards applied', /^ARMED/)
    await killedAt(/^KILLED applied accrueStakingRewards/, () =>
      command(server, 'tick staking', /^TICKED/),
    )
    // Back a day later (an outage over the next midnight).
    clock.offsetMs += dayMs
    server = await startServer(dataDir, clock)
    const ethBefore = (await totals()).bob!.ETH!
    await command(server, 'tick staking', /^TICKED/)
    const nextDay = new Date(nextMidnightMs).toISOString().slice(0, 10)
    const rewards: Json[] = (await ok(server, bob, 'GET', '/exchange/staking/v1')).rewards
    const dailyReward = (staked * 28_000n) / (1_000_000n * 365n)
    const gained = (await totals()).bob!.ETH! - ethBefore
    mark('staking payout lost over an outage')
    expect(
      rewards.filter((reward) => reward.date === nextDay),
      `${nextDay} paid`,
    ).toHaveLength(1)
    // Bob held his stake all of the day whose payout the crash cut off: it is owed as well.
    expect(
      rewards.filter((reward) => reward.date === lostDay),
      `the day ${lostDay}, whose payout a crash cut off, paid after the restart (the restart paid ${gained} ETH in all; one day's reward is ${dailyReward}, in 10^-18 ETH)`,
    ).toHaveLength(1)
  }, 60_000)

  it('snapshots: a kill while one is written, and a restart from one taken under load plus the journal after it', async () => {
    lastMark = Date.now()
    // The sessions ran out with the days the clock moved on: a new one for carol.
    world.sessions.live = []
    const login = await webRequest(server.url, undefined, 'POST', '/exchange/auth/v1/login', {
      email: 'carol@example.com',
      password: 'a long enough password',
    })
    world.sessions.live.push(login.json.token)
    // More state, so that writing a snapshot takes slices with commands in between: 150 resting
    // orders far from the market (an account may have 100 open in a market).
    for (let start = 0; start < 75; start += 15)
      await Promise.all(
        Array.from({ length: 15 }, (_, i) => [
          ok(server, world.bob, 'POST', '/v2/order', {
            market: 'ETH-EUR',
            side: 'sell',
            orderType: 'limit',
            price: String(90_000 + start + i),
            amount: '0.001',
          }),
          ok(server, world.alice, 'POST', '/v2/order', {
            market: 'BTC-EUR',
            side: 'buy',
            orderType: 'limit',
            price: String(1_000 + start + i),
            amount: '0.01',
          }),
        ]).flat(),
      )
    mark('150 orders')

    // 1. Killed after the snapshot's file is renamed into place, before the journal is pruned.
    const quiet = await observeSettled(server, world.accounts)
    await command(server, 'snapkill afterRename', /^SNAPKILL/)
    await killedAt(/^KILLED snapshot afterRename/, () =>
      command(server, 'snapshot', /^SNAPSHOT_DONE/),
    )
    server = await startServer(dataDir, clock)
    const health: Json = await (await fetch(`${server.url}/health`)).json()
    expect(health.startup.snapshotSeq).toBeGreaterThan(0)
    expectSame(
      await observe(server, world.accounts),
      quiet,
      'after a kill once the snapshot was in place',
    )
    await expectModel(server, world, 'after a kill once the snapshot was in place')
    mark('snapshot killed after its rename')

    // 2. A snapshot taken while a burst runs, more commands after it, a quiet kill: the restart
    // loads that snapshot and replays the journal after it, and answers exactly as before.
    world.socket = await sessionSocket(server, world.sessions.live[0]!)
    const [during, snapshotted] = await Promise.all([
      burst(server, world, random, 6),
      sleep(20).then(() => command(server, 'snapshot', /^SNAPSHOT_DONE/)),
    ])
    const after = await burst(server, world, random, 3)
    const settled = await observeSettled(server, world.accounts)
    server = await restart(server)
    const replayed: Json = await (await fetch(`${server.url}/health`)).json()
    expect(replayed.startup.snapshotSeq).toBeGreaterThan(health.startup.snapshotSeq)
    expect(replayed.startup.replayedRecords).toBeGreaterThan(0)
    expectSame(
      await observe(server, world.accounts),
      settled,
      'after a restart from a snapshot taken under load',
    )
    for (const done of [...during.acked, ...after.acked]) await done.verify(server)
    await expectModel(server, world, 'after a restart from a snapshot taken under load')
    await expectConsistent(
      server,
      world.accounts,
      'after a restart from a snapshot taken under load',
    )
    mark(
      `snapshot under load (${snapshotted}), ${replayed.startup.replayedRecords} records replayed`,
    )

    // 3. Killed in the middle of writing a snapshot, while a burst runs.
    world.socket = await sessionSocket(server, world.sessions.live[0]!)
    const from = server.lines.length
    const cut = burst(server, world, random, 30, 400)
    await sleep(60)
    server.child.stdin!.write('snapshot 2\n')
    const midway = await cut
    expect(
      server.lines
        .slice(from)
        .some((line) => /^KILLED snapshot midway/.test(line) || /^SNAPSHOT_DONE/.test(line)),
    ).toBe(true)
    server = await startServer(dataDir, clock)
    for (const done of midway.acked) await done.verify(server)
    await expectConsistent(server, world.accounts, 'after a kill in the middle of a snapshot')
    await resyncModel(server, world)
    await expectNothingHeldWithoutOrders(server, world.accounts)
    mark(`snapshot killed midway: ${midway.acked.length} acknowledged, ${midway.cut} cut off`)
  }, 120_000)
})
