// Browser sign-up, login and logout for the trading app. Login returns a session token that the
// app uses to authenticate its WebSocket (`{"action":"authenticate","token":…}`); passwords are
// hashed with scrypt and only a hash of the token is stored.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AccountExistsError, type AccountStore } from '../accounts/accountStore.ts'
import { type RateLimiter, rateLimitHeaders } from '../limits/rateLimiter.ts'

/** How long a login lasts. */
export const sessionTtlMs = 24 * 60 * 60 * 1000
/** Rate-limit weight of a sign-up or login attempt: each costs a deliberately slow hash. */
const authWeight = 50

const credentials = z.strictObject({ email: z.string().max(320), password: z.string().max(256) })

export type SessionDeps = { accounts: AccountStore; rateLimiter: RateLimiter; nowMs: () => number }

function jsonBody(request: FastifyRequest): unknown {
  try {
    return typeof request.body === 'string' ? JSON.parse(request.body) : request.body
  } catch {
    return undefined
  }
}

export function registerSessionRoutes(app: FastifyInstance, deps: SessionDeps): void {
  const limited = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const decision = deps.rateLimiter.charge(`ip:${request.ip}`, authWeight, deps.nowMs())
    reply.headers(rateLimitHeaders(decision))
    if (decision.allowed) return false
    reply.code(429).send({
      error: `Too many attempts. Try again after ${new Date(decision.bannedUntilMs).toISOString()}.`,
    })
    return true
  }
  const parseCredentials = (request: FastifyRequest, reply: FastifyReply) => {
    const parsed = credentials.safeParse(jsonBody(request))
    if (!parsed.success) {
      reply.code(400).send({ error: 'Send a JSON body with email and password.' })
      return undefined
    }
    return parsed.data
  }

  app.post('/exchange/auth/v1/signup', async (request, reply) => {
    if (limited(request, reply)) return reply
    const body = parseCredentials(request, reply)
    if (!body) return reply
    try {
      const account = await deps.accounts.createAccount(body.email, body.password)
      return reply.code(201).send({ accountId: account.id, email: account.email })
    } catch (error) {
      if (error instanceof AccountExistsError)
        return reply.code(409).send({ error: 'An account with this email exists.' })
      if (error instanceof TypeError) return reply.code(400).send({ error: error.message })
      throw error
    }
  })

  app.post('/exchange/auth/v1/login', async (request, reply) => {
    if (limited(request, reply)) return reply
    const body = parseCredentials(request, reply)
    if (!body) return reply
    const account = await deps.accounts.login(body.email, body.password)
    if (!account) return reply.code(401).send({ error: 'The email or the password is wrong.' })
    const session = await deps.accounts.createSession(account.id, sessionTtlMs)
    return { token: session.token, expiresAt: session.expiresAtMs, accountId: account.id }
  })

  app.post('/exchange/auth/v1/logout', async (request, reply) => {
    const header = String(request.headers.authorization ?? '')
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : ''
    if (token === '')
      return reply.code(401).send({ error: 'Send the session token as a bearer token.' })
    await deps.accounts.revokeSession(token)
    return reply.code(204).send()
  })
}
