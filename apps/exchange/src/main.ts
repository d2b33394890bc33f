#!/usr/bin/env -S node --max-semi-space-size=16 --wasm-wrapper-tiering-budget=2147483647
// Command line of the exchange server. Documented in apps/exchange/README.md; keep it stable.
//   serve [--host 127.0.0.1] [--port 8080] [--data ./data] [--log-level info]
//   account create --server URL --data DIR --email E --password P [--eur AMOUNT] [--withdraw]
//   account fee-tier --server URL --data DIR --account ID --tier 0..7
//   deposit --server URL --data DIR --account ID --asset SYMBOL --amount AMOUNT
//   balances --server URL --data DIR --account ID
//   ledger check --server URL --data DIR
// Admin commands print one line of JSON and talk to the running server: the embedded database
// belongs to the server process.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { adminTokenFile } from './api/adminRoutes.ts'
import { ConfigError, parseConfig } from './config.ts'
import { defaultListing } from './listing.ts'
import { createExchangeServer } from './server.ts'

const usage = `usage:
  exchange serve [--host 127.0.0.1] [--port 8080] [--data ./data] [--log-level info]
  exchange account create --server URL --data DIR --email E --password P [--eur AMOUNT] [--withdraw]
  exchange account fee-tier --server URL --data DIR --account ID --tier 0..7
  exchange deposit --server URL --data DIR --account ID --asset SYMBOL --amount AMOUNT
  exchange balances --server URL --data DIR --account ID
  exchange ledger check --server URL --data DIR
  exchange key revoke --server URL --data DIR --key KEY`

class UsageError extends Error {
  override name = 'UsageError'
}

/** How long a stop may take before the process exits regardless (see `shutdown`). */
const shutdownDeadlineMs = 25_000

async function serve(argv: string[]): Promise<void> {
  const config = parseConfig(argv, process.env)
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
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const)
    process.on(signal, () => shutdown(signal))
}

async function adminCall(
  argv: string[],
  method: 'GET' | 'POST',
  path: (values: Record<string, unknown>) => string,
  body?: (values: Record<string, unknown>) => unknown,
): Promise<void> {
  const { values } = parseArgs({
    args: argv,
    options: {
      server: { type: 'string', default: 'http://127.0.0.1:8080' },
      data: { type: 'string', default: './data' },
      email: { type: 'string' },
      password: { type: 'string' },
      eur: { type: 'string' },
      withdraw: { type: 'boolean' },
      account: { type: 'string' },
      asset: { type: 'string' },
      amount: { type: 'string' },
      key: { type: 'string' },
      tier: { type: 'string' },
    },
    strict: true,
  })
  const tokenPath = join(values.data, adminTokenFile)
  let token: string
  try {
    token = readFileSync(tokenPath, 'utf8').trim()
  } catch {
    throw new UsageError(
      `cannot read the admin token at ${tokenPath}: is --data the server's data directory?`,
    )
  }
  const payload = body?.(values)
  const response = await fetch(`${values.server}${path(values)}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
  })
  const text = await response.text()
  process.stdout.write(`${text}\n`)
  if (!response.ok) process.exitCode = 1
}

function required(values: Record<string, unknown>, name: string): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required`)
  return value
}

const [command, ...rest] = process.argv.slice(2)
try {
  if (command === 'serve') await serve(rest)
  else if (command === 'account' && rest[0] === 'create') {
    await adminCall(
      rest.slice(1),
      'POST',
      () => '/admin/accounts',
      (values) => ({
        email: required(values, 'email'),
        password: required(values, 'password'),
        ...(values.eur === undefined ? {} : { eur: values.eur }),
        ...(values.withdraw ? { withdraw: true } : {}),
      }),
    )
  } else if (command === 'account' && rest[0] === 'fee-tier') {
    await adminCall(
      rest.slice(1),
      'POST',
      () => '/admin/accounts/fee-tier',
      (values) => ({
        accountId: Number(required(values, 'account')),
        tier: Number(required(values, 'tier')),
      }),
    )
  } else if (command === 'deposit') {
    await adminCall(
      rest,
      'POST',
      () => '/admin/deposits',
      (values) => ({
        accountId: Number(required(values, 'account')),
        asset: required(values, 'asset'),
        amount: required(values, 'amount'),
      }),
    )
  } else if (command === 'balances') {
    await adminCall(
      rest,
      'GET',
      (values) => `/admin/balances/${encodeURIComponent(required(values, 'account'))}`,
    )
  } else if (command === 'ledger' && rest[0] === 'check') {
    await adminCall(rest.slice(1), 'GET', () => '/admin/ledger/check')
  } else if (command === 'key' && rest[0] === 'revoke') {
    await adminCall(
      rest.slice(1),
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
  throw error
}
