#!/usr/bin/env -S node --max-semi-space-size=16 --wasm-wrapper-tiering-budget=2147483647
// Command line of the exchange server. Documented in apps/exchange/README.md; keep it stable.
//   serve [--host 127.0.0.1] [--port 8080] [--data ./data] [--log-level info]
//   account create --server URL --data DIR --email E (--password P | --password-stdin)
//       [--eur AMOUNT] [--withdraw]
//   account fee-tier --server URL --data DIR --account ID --tier 0..7
//   deposit --server URL --data DIR --account ID --asset SYMBOL --amount AMOUNT
//   balances --server URL --data DIR --account ID
//   ledger check --server URL --data DIR
//   key create --server URL --data DIR --account ID [--withdraw]
//   key revoke --server URL --data DIR --key KEY
//   help (or --help anywhere)
// Admin commands print one line of JSON and talk to the running server: the embedded database
// belongs to the server process.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { SecretKeyError } from './accounts/secretBox.ts'
import { adminTokenFile } from './api/adminRoutes.ts'
import { ConfigError, parseConfig } from './config.ts'
import { defaultListing } from './listing.ts'
import { createExchangeServer } from './server.ts'
import { DataDirFileError } from './storage/dataDir.ts'

// Every flag of `serve` (the README's table, which test/operations.test.ts compares with this).
const usage = `usage:
  exchange serve [--host 127.0.0.1] [--port 8080] [--data ./data] [--log-level info]
      [--no-simulator] [--seed 1] [--simulator-requote-ms 15000] [--withdrawal-delay-ms 6000]
      [--trade-retention-days 7] [--trust-proxy LIST] [--public-url URL] [--venue PLDR]
  exchange account create --server URL --data DIR --email E (--password P | --password-stdin)
      [--eur AMOUNT] [--withdraw]
  exchange account fee-tier --server URL --data DIR --account ID --tier 0..7
  exchange deposit --server URL --data DIR --account ID --asset SYMBOL --amount AMOUNT
  exchange balances --server URL --data DIR --account ID
  exchange ledger check --server URL --data DIR
  exchange key create --server URL --data DIR --account ID [--withdraw]
  exchange key revoke --server URL --data DIR --key KEY
  exchange help
The admin commands' --server (http://127.0.0.1:8080 by default) must be on this machine.
Flags, their environment variables and defaults: apps/exchange/README.md`

class UsageError extends Error {
  override name = 'UsageError'
}

/** An admin command found no server answering at --server. */
class ServerUnreachableError extends Error {
  override name = 'ServerUnreachableError'
}

/**
 * A start-up failure the operator can put right (the address, the data directory, a damaged
 * file), in one line; undefined for anything else, a fault of the server, which keeps its stack
 * trace for whoever has to find it.
 */
function startupProblem(error: unknown): string | undefined {
  if (error instanceof DataDirFileError || error instanceof SecretKeyError) return error.message
  const system = error as Partial<NodeJS.ErrnoException & { address: string; port: number }>
  if (typeof system?.code !== 'string' || typeof system.syscall !== 'string') return undefined
  const { code, syscall } = system
  if (syscall === 'listen' && code === 'EADDRINUSE')
    return `${system.address}:${system.port} is in use by another process (${code}): stop it, or choose another --port`
  if (syscall === 'listen' && code === 'EADDRNOTAVAIL')
    return `--host ${system.address} is not an address of this machine (${code})`
  if (syscall === 'listen' && (code === 'EACCES' || code === 'EPERM'))
    return `not allowed to listen on ${system.address}:${system.port} (${code}): ports below 1024 need privileges`
  if (syscall === 'getaddrinfo')
    return `"${(system as { hostname?: string }).hostname}" does not resolve to an address (${code}): is --host (or DATABASE_URL's host) right?`
  if (syscall === 'mkdir' && (code === 'EEXIST' || code === 'ENOTDIR'))
    return `cannot make the directory ${system.path}: it, or a folder above it, is a file (${code}); --data names a directory`
  // Node's own words for the rest ("EACCES: permission denied, open '…/journal.sqlite'").
  return (system.message ?? code).replaceAll('\n', ' ')
}

/** How long a stop may take before the process exits regardless (see `shutdown`). */
const shutdownDeadlineMs = 25_000

async function serve(argv: string[]): Promise<void> {
  const config = parseConfig(argv, process.env)
  // A signal while the server starts (the journal's replay can take a while) stops it once it
  // has started, cleanly, rather than ending the process where it stands.
  let stopAsked: string | undefined
  const askedEarly = (signal: string) => {
    if (stopAsked !== undefined) process.exit(1) // a second one: at once
    stopAsked = signal
    console.error(`${signal} while starting: the server stops once it has started`)
  }
  const signals = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const
  for (const signal of signals) process.on(signal, askedEarly)
  const server = await createExchangeServer(config, defaultListing())
  const url = await server.listen()
  const wsUrl = `${url.replace(/^http/, 'ws')}/v2`
  server.app.log.info({ url, wsUrl }, 'exchange server listening')
  if (process.env.POLDER_SUPERVISED === '1') {
    // The line `npm start` waits for; it probes each URL before printing it.
    const urls = [
      { label: 'Exchange REST API', url: `${url}/v2` },
      { label: 'Exchange WebSocket', url: wsUrl, probe: `${url}/health` },
      { label: 'Exchange health', url: `${url}/health` },
    ]
    process.stdout.write(`POLDER_READY ${JSON.stringify({ urls })}\n`)
  }
  let closing = false
  const shutdown = (signal: string): void => {
    // A second signal ends a stop that takes too long at once: everything acknowledged is in the
    // journal already; only the clean stop's snapshot is lost (the next start replays instead).
    if (closing) {
      server.app.log.warn({ signal }, 'second signal during the shutdown: exiting now')
      process.exit(1)
    }
    closing = true
    server.app.log.info({ signal }, 'shutting down')
    // And a deadline, within the usual 30 s a supervisor grants before SIGKILL.
    setTimeout(() => {
      server.app.log.error({ deadlineMs: shutdownDeadlineMs }, 'shutdown took too long: exiting')
      process.exit(1)
    }, shutdownDeadlineMs).unref()
    server.close().then(
      () => process.exit(0),
      (error: unknown) => {
        server.app.log.error({ err: error }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  // SIGHUP too: a terminal closed under `npm start` ends the server as Ctrl+C does, flushed.
  for (const signal of signals) {
    process.off(signal, askedEarly)
    process.on(signal, () => shutdown(signal))
  }
  if (stopAsked !== undefined) shutdown(stopAsked)
}

/** The admin commands' own flags (besides --server and --data). */
const adminFlags = {
  email: { type: 'string' },
  password: { type: 'string' },
  'password-stdin': { type: 'boolean' },
  eur: { type: 'string' },
  withdraw: { type: 'boolean' },
  account: { type: 'string' },
  asset: { type: 'string' },
  amount: { type: 'string' },
  key: { type: 'string' },
  tier: { type: 'string' },
} as const satisfies Record<string, { type: 'string' | 'boolean' }>

/**
 * Sends one admin command to the running server and prints its answer. A flag that is not the
 * command's own (`flags`) is refused, as an unknown one is: a `--tier` given to `account create`
 * used to be dropped without a word.
 */
async function adminCall(
  argv: string[],
  flags: readonly (keyof typeof adminFlags)[],
  method: 'GET' | 'POST',
  path: (values: Record<string, unknown>) => string,
  body?: (values: Record<string, unknown>) => unknown,
): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: 'string', default: 'http://127.0.0.1:8080' },
      data: { type: 'string', default: './data' },
      ...Object.fromEntries(flags.map((flag) => [flag, adminFlags[flag]])),
    },
    strict: true,
  })
  const server = String(values.server)
  const data = String(values.data)
  const base = checkLoopbackServer(server)
  const tokenPath = join(data, adminTokenFile)
  let token: string
  try {
    token = readFileSync(tokenPath, 'utf8').trim()
  } catch {
    throw new UsageError(
      `cannot read the admin token at ${tokenPath}: is --data the server's data directory?`,
    )
  }
  const payload = body?.(values)
  const url = new URL(path(values), base)
  let response: Response
  let text: string
  try {
    response = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
    })
    text = await response.text()
  } catch (error) {
    // fetch says only "fetch failed"; its cause names what happened (ECONNREFUSED, ...).
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    throw new ServerUnreachableError(
      `cannot reach the server at ${server}: ${cause?.code ?? cause?.message ?? (error as Error).message} (is it running?)`,
    )
  }
  process.stdout.write(`${text}\n`)
  if (!response.ok) process.exitCode = 1
}

/**
 * Refuses a --server beyond this machine before anything is sent: the admin token opens every
 * admin endpoint, which the server answers on loopback only anyway, and sent over the network
 * (in plain HTTP) anyone on the way could read it.
 */
function checkLoopbackServer(server: string): URL {
  let url: URL | undefined
  try {
    url = new URL(server)
  } catch {}
  if (
    url === undefined ||
    !['http:', 'https:'].includes(url.protocol) ||
    url.pathname !== '/' ||
    url.search !== '' ||
    url.hash !== ''
  )
    throw new UsageError(`--server must be a URL such as http://127.0.0.1:8080, got "${server}"`)
  // The URL parser has normalised the host already (`127.1` and `0x7f.1` are 127.0.0.1).
  const host = url.hostname.toLowerCase()
  if (host !== 'localhost' && host !== '[::1]' && !/^127\.\d+\.\d+\.\d+$/.test(host))
    throw new UsageError(
      `--server must be on this machine (127.0.0.1, [::1] or localhost), got "${server}": the admin token is not sent over the network`,
    )
  return url
}

/**
 * The password as the first line of stdin (`--password-stdin`), for a script that would rather
 * not show it to every user of the machine in the process list, as `--password P` does.
 */
function passwordFromStdin(values: Record<string, unknown>): string {
  if (values.password !== undefined)
    throw new UsageError('--password and --password-stdin: give one of the two')
  let text: string
  try {
    text = readFileSync(0, 'utf8')
  } catch (error) {
    throw new UsageError(`--password-stdin: cannot read stdin (${(error as Error).message})`)
  }
  const password = text.split(/\r?\n/, 1)[0] ?? ''
  if (password === '') throw new UsageError('--password-stdin: stdin holds no password')
  return password
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

/** A required flag's whole number, digits only (`0x1`, `1e1` and ` 2 ` are refused). */
function requiredWhole(values: Record<string, unknown>, name: string): number {
  const text = required(values, name)
  const value = Number(text)
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value))
    throw new UsageError(`--${name} must be a whole number (digits only), got "${text}"`)
  return value
}

const [command, ...rest] = process.argv.slice(2)
const helpAsked =
  command === 'help' || [command, ...rest].some((arg) => arg === '--help' || arg === '-h')
try {
  if (helpAsked) process.stdout.write(`${usage}\n`)
  else if (command === 'serve') await serve(rest)
  else if (command === 'account' && rest[0] === 'create') {
    await adminCall(
      rest.slice(1),
      ['email', 'password', 'password-stdin', 'eur', 'withdraw'],
      'POST',
      () => '/admin/accounts',
      (values) => ({
        email: required(values, 'email'),
        password: values['password-stdin']
          ? passwordFromStdin(values)
          : required(values, 'password'),
        ...(values.eur === undefined ? {} : { eur: values.eur }),
        ...(values.withdraw ? { withdraw: true } : {}),
      }),
    )
  } else if (command === 'account' && rest[0] === 'fee-tier') {
    await adminCall(
      rest.slice(1),
      ['account', 'tier'],
      'POST',
      () => '/admin/accounts/fee-tier',
      (values) => ({
        accountId: requiredWhole(values, 'account'),
        tier: requiredWhole(values, 'tier'),
      }),
    )
  } else if (command === 'deposit') {
    await adminCall(
      rest,
      ['account', 'asset', 'amount'],
      'POST',
      () => '/admin/deposits',
      (values) => ({
        accountId: requiredWhole(values, 'account'),
        asset: required(values, 'asset'),
        amount: required(values, 'amount'),
      }),
    )
  } else if (command === 'balances') {
    await adminCall(
      rest,
      ['account'],
      'GET',
      (values) => `/admin/balances/${requiredWhole(values, 'account')}`,
    )
  } else if (command === 'ledger' && rest[0] === 'check') {
    await adminCall(rest.slice(1), [], 'GET', () => '/admin/ledger/check')
  } else if (command === 'key' && rest[0] === 'create') {
    await adminCall(
      rest.slice(1),
      ['account', 'withdraw'],
      'POST',
      () => '/admin/keys',
      (values) => ({
        accountId: requiredWhole(values, 'account'),
        ...(values.withdraw ? { withdraw: true } : {}),
      }),
    )
  } else if (command === 'key' && rest[0] === 'revoke') {
    await adminCall(
      rest.slice(1),
      ['key'],
      'POST',
      () => '/admin/keys/revoke',
      (values) => ({ key: required(values, 'key') }),
    )
  } else throw new UsageError(command ? `unknown command "${command}"` : 'no command')
} catch (error) {
  const code = (error as { code?: string }).code
  if (
    error instanceof ConfigError ||
    error instanceof UsageError ||
    code?.startsWith('ERR_PARSE_ARGS')
  ) {
    console.error(`${(error as Error).message}\n${usage}`)
    process.exit(2)
  }
  if (error instanceof ServerUnreachableError) {
    console.error(error.message)
    process.exit(1)
  }
  const problem = command === 'serve' ? startupProblem(error) : undefined
  if (problem !== undefined) {
    console.error(`cannot start the exchange server: ${problem}`)
    process.exit(1)
  }
  throw error
}
