// A stop as an operator makes it: `main.ts serve` in its own process, stopped with signals. What
// was read is answered before the sockets close, a keep-alive HTTP client does not hold the stop
// for its timeout, and a second signal ends a stop held up by a client at once.
import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { serverNodeFlags } from '../src/nodeFlags.ts'
import { type ServerProcess, serverProcesses } from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { authenticateRequest } from './fixtures/trader.ts'

// biome-ignore lint/suspicious/noExplicitAny: wire JSON, checked by the tests
type Json = any

// Each a data directory of its own (removed after the file's tests, the processes killed).
const wsServers = serverProcesses('polder-shutdown-ws-')
const httpServers = serverProcesses('polder-shutdown-http-')
const stuckServers = serverProcesses('polder-shutdown-stuck-')
const lateServers = serverProcesses('polder-shutdown-late-')

/** Resolves with the exit code once `child` has exited, or 'running' after `ms`. */
function exitWithin(child: ChildProcess, ms: number): Promise<number | null | 'running'> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode)
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve('running'), ms)
    child.once('exit', (code) => {
      clearTimeout(timer)
      resolve(code)
    })
  })
}

async function adminAccount(server: ServerProcess, email: string, eur: string) {
  return server.admin('/admin/accounts', { email, password: 'a long enough password', eur })
}

describe('SIGTERM (graceful shutdown)', () => {
  it('answers every WebSocket order it accepted before the socket is closed with 1001', async () => {
    const env = {
      POLDER_NEW_ORDERS_PER_SECOND_MAX: '100000',
      POLDER_RATE_LIMIT_WEIGHT_PER_MINUTE: '1000000',
    }
    const server = await wsServers.startMain(['--no-simulator'], env)
    const account = await adminAccount(server, 'ws-shutdown@example.com', '1000000')
    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v2`)
    await new Promise((resolve) => ws.once('open', resolve))
    const received: Json[] = []
    ws.on('message', (data) => received.push(JSON.parse(data.toString())))
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      ws.once('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    )
    ws.send(JSON.stringify(authenticateRequest(account)))
    await expect.poll(() => received).toContainEqual({ event: 'authenticate', authenticated: true })
    // A trader sending orders steadily (one a millisecond) when the operator stops the server.
    let requestId = 0
    const sending = setInterval(() => {
      if (ws.readyState !== WebSocket.OPEN) return
      requestId += 1
      ws.send(
        JSON.stringify({
          action: 'privateCreateOrder',
          requestId,
          market: 'BTC-EUR',
          side: 'buy',
          orderType: 'limit',
          amount: '0.001',
          price: String(10_000 + requestId),
        }),
      )
    }, 1)
    await new Promise((resolve) => setTimeout(resolve, 30))
    const exited = new Promise((resolve) => server.child.once('exit', resolve))
    server.child.kill('SIGTERM')
    const close = await closed
    clearInterval(sending)
    await exited
    expect(close).toEqual({ code: 1001, reason: 'server shutting down' })
    expect(server.child.exitCode).toBe(0)

    const answered = new Set(
      received
        .filter((message) => message.action === 'privateCreateOrder' && message.response)
        .map((message) => message.response.orderId as string),
    )
    const restarted = await wsServers.startMain(['--no-simulator'], env)
    const health: Json = await (await fetch(`${restarted.url}/health`)).json()
    expect(health.startup.replayedRecords).toBe(0) // the journal was flushed, a snapshot taken
    const open = await signedRequest(restarted.url, account, 'GET', '/v2/ordersOpen?market=BTC-EUR')
    expect(open.status).toBe(200)
    const unanswered = (open.json as Json[])
      .map((order) => order.orderId as string)
      .filter((orderId) => !answered.has(orderId))
    // Orders on the book that their trader was never told about.
    expect(unanswered, `${open.json.length} orders on the book, ${answered.size} answered`).toEqual(
      [],
    )
    await restarted.stop('SIGTERM')
  }, 90_000)

  it('answers an HTTP request in flight and exits within 10 s, not after the keep-alive timeout', async () => {
    const server = await httpServers.startMain(['--no-simulator'])
    // A sign-up (a deliberately slow hash) in flight as SIGTERM arrives, on a keep-alive connection
    // as every HTTP client keeps one (made by a first request).
    expect((await fetch(`${server.url}/health`)).status).toBe(200)
    const signup = fetch(`${server.url}/exchange/auth/v1/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'in-flight@example.com', password: 'a long enough password' }),
    })
    await new Promise((resolve) => setTimeout(resolve, 15))
    const signalledAt = Date.now()
    server.child.kill('SIGTERM')
    expect((await signup).status).toBe(201)
    const code = await exitWithin(server.child, 10_000)
    expect(code, `still running ${Date.now() - signalledAt} ms after SIGTERM`).toBe(0)
  }, 60_000)

  it('a second signal during a shutdown held up by a client ends the process at once', async () => {
    const server = await stuckServers.startMain(['--no-simulator'])
    // A client that has sent half of its request's headers.
    const socket = connect(Number(new URL(server.url).port), '127.0.0.1')
    socket.on('error', () => {})
    await new Promise((resolve) => socket.once('connect', resolve))
    socket.write('GET /health HTTP/1.1\r\nHost: polder\r\n')
    await new Promise((resolve) => setTimeout(resolve, 100))
    server.child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    server.child.kill('SIGINT') // the operator presses Ctrl+C again
    const code = await exitWithin(server.child, 5_000)
    socket.destroy()
    expect(code, 'the second signal was ignored').not.toBe('running')
  }, 60_000)

  it('a signal while it starts stops it once started, cleanly (exit 0), not where it stands', async () => {
    const root = mkdtempSync(join(tmpdir(), 'polder-shutdown-starting-'))
    const dataDir = join(root, 'data')
    const mainPath = join(import.meta.dirname, '..', 'src', 'main.ts')
    const args = [...serverNodeFlags, mainPath, 'serve', '--port', '0', '--data', dataDir]
    try {
      const child = spawn(process.execPath, [...args, '--no-simulator'], {
        stdio: ['ignore', 'ignore', 'pipe'],
      })
      let stderr = ''
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString()
      })
      // The data directory is made as the server begins to start (its signals taken by then).
      await expect.poll(() => existsSync(dataDir), { timeout: 30_000, interval: 5 }).toBe(true)
      child.kill('SIGTERM')
      expect(await exitWithin(child, 30_000)).toBe(0)
      expect(stderr).toContain('SIGTERM while starting')
      // Stopped cleanly: the next start replays nothing.
      const again = spawn(process.execPath, [...args, '--no-simulator'], {
        stdio: ['ignore', 'pipe', 'ignore'],
        env: { ...process.env, POLDER_SUPERVISED: '1' },
      })
      let out = ''
      again.stdout!.on('data', (chunk: Buffer) => {
        out += chunk.toString()
      })
      await expect.poll(() => out.includes('POLDER_READY'), { timeout: 30_000 }).toBe(true)
      const url = JSON.parse(/POLDER_READY (.+)/.exec(out)![1]!).urls[2].url as string
      const health = (await (await fetch(url)).json()) as Json
      expect(health.startup.replayedRecords).toBe(0)
      again.kill('SIGTERM')
      expect(await exitWithin(again, 30_000)).toBe(0)
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }, 90_000)

  it('refuses what arrives once the stop has begun (111, 503): no command applied while a quiet client holds the drain, /health not ok', async () => {
    // Found by a review: the HTTP listener stayed open until the sockets' drain was over (up to
    // 6 s), and a new connection's deposit was applied and /health answered ok meanwhile.
    const server = await lateServers.startMain(['--no-simulator'])
    const account: Json = await server.admin('/admin/accounts', {
      email: 'late@example.com',
      password: 'a long enough password',
    })
    // A WebSocket client gone quiet (a vanished laptop): it never answers the close frame.
    const quiet = connect(Number(new URL(server.url).port), '127.0.0.1')
    quiet.on('error', () => {})
    await new Promise((resolve) => quiet.once('connect', resolve))
    let received = ''
    quiet.on('data', (chunk: Buffer) => {
      received += chunk.toString('latin1')
    })
    const key = randomBytes(16).toString('base64')
    quiet.write(
      `GET /v2 HTTP/1.1\r\nHost: polder\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
    )
    await expect.poll(() => received).toContain('101 Switching Protocols')
    server.child.kill('SIGTERM')
    await expect.poll(() => received, { interval: 5 }).toContain('server shutting down')
    try {
      const token = readFileSync(join(lateServers.dataDir, 'admin.token'), 'utf8').trim()
      const late = await fetch(`${server.url}/admin/deposits`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ accountId: account.accountId, asset: 'EUR', amount: '1' }),
      })
      expect(late.status).toBe(503)
      expect(await late.json()).toMatchObject({ errorCode: 111 })
      expect(late.headers.get('connection')).toBe('close')
      expect((await fetch(`${server.url}/health`)).status).toBe(503)
    } finally {
      quiet.destroy()
    }
    expect(await exitWithin(server.child, 20_000)).toBe(0)
    // And the deposit is not there after a restart.
    const again = await lateServers.startMain(['--no-simulator'])
    const token = readFileSync(join(lateServers.dataDir, 'admin.token'), 'utf8').trim()
    const balances = await fetch(`${again.url}/admin/balances/${account.accountId}`, {
      headers: { authorization: `Bearer ${token}` },
    })
    expect(await balances.json()).toMatchObject({ balances: [] })
  }, 90_000)
})
