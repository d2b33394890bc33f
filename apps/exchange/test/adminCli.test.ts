// The admin commands as an operator types them, against the real server in its own process:
// an account made with `account create`, given a fee tier with `account fee-tier`, and its API
// key revoked with `key revoke`, which also ends the authentication of a socket that was using it.
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { serverNodeFlags } from '../src/nodeFlags.ts'
import { serverProcesses } from './fixtures/serverProcess.ts'
import { signedRequest } from './fixtures/signedRequest.ts'
import { authenticateRequest } from './fixtures/trader.ts'

const mainPath = join(import.meta.dirname, '..', 'src', 'main.ts')
const servers = serverProcesses('polder-admin-cli-')

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
