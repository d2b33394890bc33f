// Admin endpoints for operators and scripts: loopback only, and a bearer token that lives in
// the data directory (so only someone who can read the server's files can use them). The
// embedded database belongs to the server process, so admin commands go through here.
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { feeTiers, ppmToFraction } from '@polder/catalogue'
import { parseBigDecimal } from '@polder/engine'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AccountExistsError, type AccountStore, type Permission } from '../accounts/accountStore.ts'
import type { ExchangeService } from '../core/exchangeService.ts'
import { formatLedgerUnits, toLedgerUnits } from '../ledger/ledger.ts'

export const adminTokenFile = 'admin.token'
/** The token a scraper shows for /metrics from another host: never the admin token. */
export const metricsTokenFile = 'metrics.token'

export type AdminDeps = {
  token: string
  accounts: AccountStore
  service: ExchangeService
  decimalsOf: (asset: string) => number | undefined
  nowMs: () => number
}

const createAccountBody = z.strictObject({
  email: z.string().max(320),
  password: z.string().max(256),
  eur: z.string().optional(),
  withdraw: z.boolean().optional(),
})
const depositBody = z.strictObject({
  accountId: z.int().positive(),
  asset: z.string().max(16),
  amount: z.string().max(64),
})

const revokeKeyBody = z.strictObject({ key: z.string().max(128) })
const createKeyBody = z.strictObject({
  accountId: z.int().positive(),
  withdraw: z.boolean().optional(),
})

const feeTierBody = z.strictObject({
  accountId: z.int().positive(),
  tier: z
    .int()
    .min(0)
    .max(feeTiers.length - 1),
})

function jsonBody(request: FastifyRequest): unknown {
  try {
    return typeof request.body === 'string' ? JSON.parse(request.body) : request.body
  } catch {
    return undefined
  }
}

/** The body as `schema` reads it; undefined once it has answered 400 with the issues in words. */
function parsedBody<Body>(
  schema: z.ZodType<Body>,
  request: FastifyRequest,
  reply: FastifyReply,
): Body | undefined {
  const body = schema.safeParse(jsonBody(request))
  if (body.success) return body.data
  reply.code(400).send({
    error: body.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; '),
  })
  return undefined
}

/**
 * Whether the request's client is on this machine: its address as Fastify finds it, so that a
 * request forwarded by a trusted proxy on this machine counts as where it came from.
 */
export function isLoopbackRequest(request: FastifyRequest): boolean {
  const address = request.ip ?? ''
  return address === '127.0.0.1' || address === '::1' || address === '::ffff:127.0.0.1'
}

/**
 * Whether the request carries `Authorization: Bearer <token>` (the scheme in any case, as HTTP
 * allows; the token compared in constant time).
 */
export function hasBearerToken(request: FastifyRequest, token: string): boolean {
  const header = String(request.headers.authorization ?? '')
  if (header.slice(0, 7).toLowerCase() !== 'bearer ') return false
  const expected = Buffer.from(token)
  const given = Buffer.from(header.slice(7))
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export function registerAdminRoutes(app: FastifyInstance, deps: AdminDeps): void {
  const guard = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!isLoopbackRequest(request) || !hasBearerToken(request, deps.token)) {
      return reply
        .code(403)
        .send({ error: 'admin endpoints need the token from the data directory, from loopback' })
    }
  }

  async function credit(
    accountId: number,
    asset: string,
    amount: string,
  ): Promise<string | undefined> {
    const decimals = deps.decimalsOf(asset)
    if (decimals === undefined) return `unknown asset ${asset}`
    const parsed = parseBigDecimal(amount, decimals)
    if (!parsed.ok || parsed.units <= 0n)
      return `amount must be a positive decimal with at most ${decimals} decimals`
    const outcome = await deps.service.submit({
      type: 'deposit',
      timestamp: deps.nowMs(),
      accountId,
      asset,
      amount: toLedgerUnits(parsed.units, decimals).toString(),
      reference: `admin-${randomBytes(8).toString('hex')}`,
    })
    return outcome.ok ? undefined : outcome.error
  }

  app.register(async (admin) => {
    admin.addHook('onRequest', guard)

    admin.post('/admin/accounts', async (request, reply) => {
      const body = parsedBody(createAccountBody, request, reply)
      if (body === undefined) return reply
      // Check the deposit before anything is created, so a refusal leaves no account behind.
      if (body.eur !== undefined) {
        const parsed = parseBigDecimal(body.eur, deps.decimalsOf('EUR') ?? 2)
        if (!parsed.ok || parsed.units <= 0n) {
          return reply
            .code(400)
            .send({ error: 'eur must be a positive decimal with at most 2 decimals' })
        }
      }
      try {
        const account = await deps.accounts.createAccount(body.email, body.password)
        const permissions: Permission[] = body.withdraw
          ? ['view', 'trade', 'withdraw']
          : ['view', 'trade']
        const { key, secret } = await deps.accounts.createApiKey(account.id, permissions)
        if (body.eur !== undefined) {
          const problem = await credit(account.id, 'EUR', body.eur)
          if (problem) return reply.code(400).send({ error: problem, accountId: account.id })
        }
        return { accountId: account.id, email: account.email, key, secret, permissions }
      } catch (error) {
        if (error instanceof AccountExistsError || error instanceof TypeError)
          return reply.code(400).send({ error: error.message })
        throw error
      }
    })

    admin.post('/admin/deposits', async (request, reply) => {
      const body = parsedBody(depositBody, request, reply)
      if (body === undefined) return reply
      if (!(await deps.accounts.findAccount(body.accountId)))
        return reply.code(404).send({ error: 'no such account' })
      const problem = await credit(body.accountId, body.asset, body.amount)
      return problem ? reply.code(400).send({ error: problem }) : { ok: true }
    })

    // Another key for an existing account, e.g. after `key revoke`; its secret is shown this
    // once, as at `account create`.
    admin.post('/admin/keys', async (request, reply) => {
      const body = parsedBody(createKeyBody, request, reply)
      if (body === undefined) return reply
      if (!(await deps.accounts.findAccount(body.accountId)))
        return reply.code(404).send({ error: 'no such account' })
      const permissions: Permission[] = body.withdraw
        ? ['view', 'trade', 'withdraw']
        : ['view', 'trade']
      const { key, secret } = await deps.accounts.createApiKey(body.accountId, permissions)
      return { accountId: body.accountId, key, secret, permissions }
    })

    // The key can no longer sign, and every socket authenticated with it loses its account
    // (AccountStore.onRevoked). Revoking a revoked key again answers the same.
    admin.post('/admin/keys/revoke', async (request, reply) => {
      const body = parsedBody(revokeKeyBody, request, reply)
      if (body === undefined) return reply
      const record = await deps.accounts.findApiKey(body.key)
      if (record === undefined) return reply.code(404).send({ error: 'no such API key' })
      await deps.accounts.revokeApiKey(record.key)
      return { key: record.key, accountId: record.accountId, revoked: true }
    })

    // The tier's fees apply from the account's next order and savings run; a volume that
    // reaches a higher tier still gives that one.
    admin.post('/admin/accounts/fee-tier', async (request, reply) => {
      const body = parsedBody(feeTierBody, request, reply)
      if (body === undefined) return reply
      if (!(await deps.accounts.setFeeTier(body.accountId, body.tier)))
        return reply.code(404).send({ error: 'no such account' })
      const { makerFeePpm, takerFeePpm } = feeTiers[body.tier]!
      return {
        accountId: body.accountId,
        feeTier: body.tier,
        maker: ppmToFraction(makerFeePpm),
        taker: ppmToFraction(takerFeePpm),
      }
    })

    // An account that does not exist is an error, as for a deposit, not an empty list.
    admin.get('/admin/balances/:accountId', async (request, reply) => {
      const text = (request.params as { accountId: string }).accountId
      const accountId = /^\d+$/.test(text) ? Number(text) : Number.NaN
      if (!Number.isSafeInteger(accountId) || accountId <= 0)
        return reply
          .code(400)
          .send({ error: `accountId must be a positive whole number, got "${text}"` })
      if (!(await deps.accounts.findAccount(accountId)))
        return reply.code(404).send({ error: 'no such account' })
      const rows = [...deps.service.core.ledger.balances(accountId)].map(([asset, balance]) => ({
        asset,
        available: formatLedgerUnits(balance.available, deps.decimalsOf(asset) ?? 18),
        inOrder: formatLedgerUnits(balance.inOrder, deps.decimalsOf(asset) ?? 18),
      }))
      return { accountId, balances: rows }
    })

    admin.get('/admin/ledger/check', async () => {
      const totals = deps.service.core.ledger.checkInvariant() // throws (500) when broken
      return {
        ok: true,
        assets: Object.fromEntries(
          [...totals].map(([asset, total]) => [
            asset,
            {
              customers: formatLedgerUnits(total.customers, 18),
              fees: formatLedgerUnits(total.fees, 18),
              depositsLessWithdrawals: formatLedgerUnits(total.netDeposits, 18),
            },
          ]),
        ),
      }
    })
  })
}
