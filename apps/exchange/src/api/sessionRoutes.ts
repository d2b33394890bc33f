// Browser sign-up, login and logout for the trading app. Login returns a session token that the
// app uses to authenticate its WebSocket (`{"action":"authenticate","token":…}`); passwords are
// hashed with scrypt and only a hash of the token is stored. Refusals carry an errorCode, as
// everywhere else: 102/205 for the body, 105 once the IP's budget is spent or after too many
// failed logins for the email from any address (limits/loginFailures.ts), 442 (the email is
// taken) and 443 (wrong email or password), Polder's own codes, and 300 for a logout without a
// token.
import { type ProtocolErrorReply, protocolError } from '@polder/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { z } from 'zod'
import { AccountExistsError, type AccountStore } from '../accounts/accountStore.ts'
import type { LoginFailures } from '../limits/loginFailures.ts'
import { type RateLimiter, rateLimitHeaders } from '../limits/rateLimiter.ts'
import { webJsonBody } from './webJsonBody.ts'

/** How long a login lasts. */
export const sessionTtlMs = 24 * 60 * 60 * 1000
/** Rate-limit weight of a sign-up or login attempt: each costs a deliberately slow hash. */
const authWeight = 50

// The password's size here is only a guard (4 code units a character at most): its rule, 10 to
// 256 characters, is the account store's, whose refusal says it in words.
const credentials = z.strictObject({ email: z.string().max(320), password: z.string().max(1_024) })
const credentialsHint = 'Send a JSON body with email and password.'

export type SessionDeps = {
  accounts: AccountStore
  rateLimiter: RateLimiter
  /** Failed logins per email, from any address. */
  loginFailures: LoginFailures
  nowMs: () => number
}

function refuse(reply: FastifyReply, refusal: ProtocolErrorReply): FastifyReply {
  return reply.code(refusal.status).send(refusal.body)
}

export function registerSessionRoutes(app: FastifyInstance, deps: SessionDeps): void {
  /** The credentials of a sign-up or login once the IP may try again; undefined once refused. */
  const attempt = (request: FastifyRequest, reply: FastifyReply) => {
    const decision = deps.rateLimiter.charge(`ip:${request.ip}`, authWeight, deps.nowMs())
    reply.headers(rateLimitHeaders(decision))
    if (!decision.allowed) {
      refuse(reply, protocolError(105, { expiryInMs: decision.bannedUntilMs }))
      return undefined
    }
    return webJsonBody(request, reply, credentials, credentialsHint)
  }

  app.post('/exchange/auth/v1/signup', async (request, reply) => {
    const body = attempt(request, reply)
    if (!body) return reply
    try {
      const account = await deps.accounts.createAccount(body.email, body.password)
      return reply.code(201).send({ accountId: account.id, email: account.email })
    } catch (error) {
      if (error instanceof AccountExistsError) return refuse(reply, protocolError(442))
      // A malformed email or a password of the wrong length, in words.
      if (error instanceof TypeError)
        return reply.code(400).send({ errorCode: 205, error: error.message })
      throw error
    }
  })

  app.post('/exchange/auth/v1/login', async (request, reply) => {
    const body = attempt(request, reply)
    if (!body) return reply
    // Counted before the slow hash, forgiven on success (limits/loginFailures.ts).
    const blocked = deps.loginFailures.attempt(body.email, deps.nowMs())
    if (blocked) return refuse(reply, protocolError(105, { expiryInMs: blocked.blockedUntilMs }))
    const account = await deps.accounts.login(body.email, body.password)
    if (!account) return refuse(reply, protocolError(443))
    deps.loginFailures.succeeded(body.email)
    const session = await deps.accounts.createSession(account.id, sessionTtlMs)
    return { token: session.token, expiresAt: session.expiresAtMs, accountId: account.id }
  })

  app.post('/exchange/auth/v1/logout', async (request, reply) => {
    const header = String(request.headers.authorization ?? '')
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length) : ''
    if (token === '') return reply.code(401).send(protocolError(300).body)
    await deps.accounts.revokeSession(token)
    return reply.code(204).send()
  })
}
