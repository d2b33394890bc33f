// The admin commands as an operator types them, against the real server in its own process:
// an account made with `account create`, given a fee tier with `account fee-tier`, and its API
// key revoked with `key revoke`, which also ends the authentication of a socket that was using it.
// And what they say when the server is not there, or is not on this machine.
import { execFile } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer } from 'node:http'
import { createServer as createNetServer } from 'node:net'
import { networkInterfaces, tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { serverNodeFlags } from '../src/nodeFlags.ts'
import { type ServerProcess, serverProcesses } from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { authenticateRequest } from './fixtures/trader.ts'

const mainPath = join(import.meta.dirname, '..', 'src', 'main.ts')
const servers = serverProcesses('polder-admin-cli-')
const keyServers = serverProcesses('polder-admin-cli-keys-')

/** Runs `main.ts <args>`; its one line of JSON and its exit code. */
async function exchange(args: readonly string[]): Promise<{ json: unknown; code: number }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [
      ...serverNodeFlags,
      mainPath,
      ...args,
    ])
    return { json: JSON.parse(stdout), code: 0 }
  } catch (error) {
    const failed = error as { stdout: string; code: number }
    return { json: JSON.parse(failed.stdout), code: failed.code }
  }
}

/** Runs `main.ts <args>`; what it printed on stdout and stderr, and its exit code. */
function exchangeOutput(
  args: readonly string[],
): Promise<{ stdout: string; stderr: string; code: number | null }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [...serverNodeFlags, mainPath, ...args], (error, stdout, stderr) => {
      const code = error ? (error as { code?: unknown }).code : 0
      resolve({ stdout, stderr, code: typeof code === 'number' ? code : null })
    })
  })
}

/** A stack trace's frames, which an operator's error should not need. */
const stackFrame = /^\s+at \S/m

describe('admin commands', () => {
  it('make an account with a key, and revoke the key: it can neither sign nor stay on a socket', async () => {
    const server = await servers.startTestServer()
    const target = ['--server', server.url, '--data', servers.dataDir]
    const created = await exchange([
      'account',
      'create',
      ...target,
      '--email',
      'ops@example.com',
      '--password',
      'a long enough password',
      '--eur',
      '100',
    ])
    expect(created.code).toBe(0)
    const account = created.json as { accountId: number; key: string; secret: string }
    expect(account).toMatchObject({ permissions: ['view', 'trade'] })
    expect((await signedRequest(server.url, account, 'GET', '/v2/balance')).status).toBe(200)

    const tiered = await exchange([
      'account',
      'fee-tier',
      ...target,
      '--account',
      String(account.accountId),
      '--tier',
      '2',
    ])
    expect(tiered).toEqual({
      json: { accountId: account.accountId, feeTier: 2, maker: '0.0008', taker: '0.0016' },
      code: 0,
    })
    const fees = await signedRequest(server.url, account, 'GET', '/v2/account')
    expect(fees.json.fees).toMatchObject({ tier: '2', maker: '0.0008', taker: '0.0016' })

    const ws = new WebSocket(`${server.url.replace('http', 'ws')}/v2`)
    await new Promise((resolve) => ws.once('open', resolve))
    const received: unknown[] = []
    ws.on('message', (data) => received.push(JSON.parse(data.toString())))
    ws.send(JSON.stringify(authenticateRequest(account)))
    await expect.poll(() => received).toContainEqual({ event: 'authenticate', authenticated: true })

    const revoked = await exchange(['key', 'revoke', ...target, '--key', account.key])
    expect(revoked).toEqual({
      json: { key: account.key, accountId: account.accountId, revoked: true },
      code: 0,
    })
    await expect.poll(() => received).toContainEqual({ event: 'unauthenticate' })
    const refused = await signedRequest(server.url, account, 'GET', '/v2/balance')
    expect(refused.status).toBe(403)
    expect(refused.json.errorCode).toBe(305)
    ws.close()

    expect(await exchange(['key', 'revoke', ...target, '--key', 'f'.repeat(64)])).toEqual({
      json: { error: 'no such API key' },
      code: 1,
    })
  }, 60_000) // a server process and five command processes, each a Node start
})

describe('key create and balances', () => {
  let server: ServerProcess
  let target: string[]
  beforeAll(async () => {
    server = await keyServers.startTestServer()
    target = ['--server', server.url, '--data', keyServers.dataDir]
  }, 60_000)

  it('key create gives an existing account a new API key, printed as one line of JSON, e.g. after key revoke', async () => {
    const created = await exchange([
      'account',
      'create',
      ...target,
      '--email',
      'rotate@example.com',
      '--password',
      'a long enough password',
    ])
    const account = created.json as { accountId: number; key: string }
    expect((await exchange(['key', 'revoke', ...target, '--key', account.key])).code).toBe(0)

    const run = await exchangeOutput([
      'key',
      'create',
      ...target,
      '--account',
      String(account.accountId),
    ])
    expect(run).toMatchObject({ code: 0, stderr: '' })
    expect(run.stdout.split('\n')).toHaveLength(2) // one line and its end
    const key = JSON.parse(run.stdout) as { key: string; secret: string }
    expect(key).toEqual({
      accountId: account.accountId,
      key: expect.stringMatching(/^[0-9a-f]{64}$/),
      secret: expect.stringMatching(/^[0-9a-f]{64}$/),
      permissions: ['view', 'trade'],
    })
    expect((await signedRequest(server.url, key, 'GET', '/v2/balance')).status).toBe(200)

    const withdrawing = await exchange([
      'key',
      'create',
      ...target,
      '--account',
      String(account.accountId),
      '--withdraw',
    ])
    expect(withdrawing).toMatchObject({
      json: { permissions: ['view', 'trade', 'withdraw'] },
      code: 0,
    })
  }, 60_000)

  it('key create for an account that does not exist is a 404 in words, exit 1; without the admin token a 403', async () => {
    expect(await exchange(['key', 'create', ...target, '--account', '999'])).toEqual({
      json: { error: 'no such account' },
      code: 1,
    })
    const anonymous = await fetch(`${server.url}/admin/keys`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ accountId: 1 }),
    })
    expect(anonymous.status).toBe(403)
  }, 60_000)

  it('balances of an account that does not exist is a 404 (exit 1), as deposit and fee-tier answer', async () => {
    const created = await exchange([
      'account',
      'create',
      ...target,
      '--email',
      'balances@example.com',
      '--password',
      'a long enough password',
      '--eur',
      '12.5',
    ])
    const { accountId } = created.json as { accountId: number }
    expect(await exchange(['balances', ...target, '--account', String(accountId)])).toEqual({
      json: { accountId, balances: [{ asset: 'EUR', available: '12.50', inOrder: '0.00' }] },
      code: 0,
    })
    expect(await exchange(['balances', ...target, '--account', '999'])).toEqual({
      json: { error: 'no such account' },
      code: 1,
    })
    expect(
      await exchange(['deposit', ...target, '--account', '999', '--asset', 'BTC', '--amount', '1']),
    ).toEqual({ json: { error: 'no such account' }, code: 1 })
    expect(await exchange(['balances', ...target, '--account', '0'])).toEqual({
      json: { error: 'accountId must be a positive whole number, got "0"' },
      code: 1,
    })
  }, 60_000)

  it('a whole number is digits only, and a flag of another command is refused, in every command (exit 2): nothing is sent', async () => {
    const created = await exchange([
      'account',
      'create',
      ...target,
      '--email',
      'flags@example.com',
      '--password',
      'a long enough password',
    ])
    const { accountId } = created.json as { accountId: number }
    // `0x1` was read as account 1 by deposit, fee-tier and key create (only the server's
    // balances route looked at the digits), and `--tier` given to account create was dropped.
    const hex = `0x${accountId.toString(16)}`
    const refused = [
      ['balances', ...target, '--account', hex],
      ['deposit', ...target, '--account', hex, '--asset', 'EUR', '--amount', '5'],
      ['deposit', ...target, '--account', `${accountId}e0`, '--asset', 'EUR', '--amount', '5'],
      ['account', 'fee-tier', ...target, '--account', String(accountId), '--tier', '0x1'],
      ['key', 'create', ...target, '--account', ` ${accountId}`],
      [
        ...['account', 'create', ...target, '--email', 'tiered@example.com'],
        ...['--password', 'a long enough password', '--tier', '3'],
      ],
      [
        'deposit',
        ...target,
        '--account',
        String(accountId),
        '--asset',
        'EUR',
        '--amount',
        '5',
        '--tier',
        '1',
      ],
    ]
    for (const args of refused) {
      const run = await exchangeOutput(args)
      expect(run.stderr, args.join(' ')).toMatch(
        /^(--account|--tier) must be a whole number|^Unknown option '--tier'/,
      )
      expect(run.stderr, args.join(' ')).not.toMatch(stackFrame)
      expect(run.code, args.join(' ')).toBe(2)
    }
    expect(await exchange(['balances', ...target, '--account', String(accountId)])).toEqual({
      json: { accountId, balances: [] },
      code: 0,
    })
    const tiered = await exchange([
      ...['account', 'create', ...target, '--email', 'tiered@example.com'],
      ...['--password', 'a long enough password'],
    ])
    expect(tiered.code).toBe(0) // the refused one made no account
  }, 60_000)

  it('--server may end in a slash; a path or query in it is refused (exit 2)', async () => {
    const withSlash = await exchange([
      'ledger',
      'check',
      ...target.slice(2),
      '--server',
      `${server.url}/`,
    ])
    expect(withSlash).toMatchObject({ json: { ok: true }, code: 0 })
    for (const url of [`${server.url}/v2`, `${server.url}/?x=1`]) {
      const run = await exchangeOutput(['ledger', 'check', '--server', url, ...target.slice(2)])
      expect(run.stderr, url).toMatch(
        `--server must be a URL such as http://127.0.0.1:8080, got "${url}"`,
      )
      expect(run.code, url).toBe(2)
    }
  }, 60_000)

  it('account create reads the password from stdin with --password-stdin, out of the process list', async () => {
    const create = (extra: readonly string[], stdin: string) =>
      new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
        const child = execFile(
          process.execPath,
          [...serverNodeFlags, mainPath, 'account', 'create', ...target, ...extra],
          (error, stdout, stderr) => {
            const code = error ? (error as { code?: unknown }).code : 0
            resolve({ stdout, stderr, code: typeof code === 'number' ? code : null })
          },
        )
        child.stdin?.end(stdin)
      })
    const password = 'a password nobody sees in ps'
    const email = 'stdin@example.com'
    const made = await create(['--email', email, '--password-stdin'], `${password}\n`)
    expect(made.code, made.stderr).toBe(0)
    expect(JSON.parse(made.stdout)).toMatchObject({ email, permissions: ['view', 'trade'] })
    // The account's password is the line read, without its line end: it logs in.
    const login = await fetch(`${server.url}/exchange/auth/v1/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    })
    expect(login.status).toBe(200)

    // Both ways at once, or nothing on stdin: refused in words before anything is sent.
    const both = await create(
      ['--email', 'both@example.com', '--password', password, '--password-stdin'],
      password,
    )
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/^--password and --password-stdin: give one of the two\n/)
    const empty = await create(['--email', 'empty@example.com', '--password-stdin'], '')
    expect(empty.code).toBe(2)
    expect(empty.stderr).toMatch(/^--password-stdin: stdin holds no password\n/)
  }, 60_000)
})

describe('the server an admin command talks to', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'polder-admin-cli-token-'))
  afterAll(() => rmSync(scratch, { recursive: true, force: true }))
  const token = 'a'.repeat(64)
  writeFileSync(join(scratch, 'admin.token'), token)

  it('when it is down, or --server is not a URL, is said in one line of words', async () => {
    const closed = createNetServer()
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve))
    const port = (closed.address() as { port: number }).port
    await new Promise((resolve) => closed.close(resolve))
    const down = `http://127.0.0.1:${port}`
    expect(await exchangeOutput(['ledger', 'check', '--server', down, '--data', scratch])).toEqual({
      stdout: '',
      stderr: `cannot reach the server at ${down}: ECONNREFUSED (is it running?)\n`,
      code: 1,
    })
    for (const server of ['not-a-url', 'ftp://127.0.0.1/']) {
      const run = await exchangeOutput(['ledger', 'check', '--server', server, '--data', scratch])
      expect(run.stderr, server).not.toMatch(stackFrame)
      expect(run.stderr, server).toMatch(
        `--server must be a URL such as http://127.0.0.1:8080, got "${server}"\nusage:\n`,
      )
      expect(run.code, server).toBe(2)
    }
  }, 60_000)

  it('must be on this machine: the admin token is never sent beyond loopback (exit 2)', async () => {
    const authorizations: string[] = []
    // On every interface, as whatever answered at a mistyped address would.
    const listener = createHttpServer((request, response) => {
      authorizations.push(String(request.headers.authorization ?? ''))
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end('{"ok":true}')
    })
    await new Promise<void>((resolve) => listener.listen(0, '0.0.0.0', resolve))
    const port = (listener.address() as { port: number }).port
    const nonLoopbackIpv4 = Object.values(networkInterfaces())
      .flat()
      .find((address) => address?.family === 'IPv4' && !address.internal)?.address
    try {
      const beyond = [`http://0.0.0.0:${port}`, 'https://polder.example']
      if (nonLoopbackIpv4 !== undefined) beyond.push(`http://${nonLoopbackIpv4}:${port}`)
      for (const server of beyond) {
        const run = await exchangeOutput(['ledger', 'check', '--server', server, '--data', scratch])
        expect(run.stderr, server).toMatch(
          `--server must be on this machine (127.0.0.1, [::1] or localhost), got "${server}": the admin token is not sent over the network\nusage:\n`,
        )
        expect(run.code, server).toBe(2)
      }
      expect(authorizations).toEqual([])
      // The same listener, reached on loopback, is sent the token.
      const loopback = await exchangeOutput([
        'ledger',
        'check',
        '--server',
        `http://127.0.0.1:${port}`,
        '--data',
        scratch,
      ])
      expect(loopback).toMatchObject({ stdout: '{"ok":true}\n', code: 0 })
      expect(authorizations).toEqual([`Bearer ${token}`])
    } finally {
      listener.close()
    }
  }, 60_000)
})
