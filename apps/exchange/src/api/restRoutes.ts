// REST under /v2, driven by the protocol's endpoint table: route match (110), rate limit with
// headers on every response (105 when banned), signature check for private endpoints
// (300-312), parameter validation (200-206), then the shared action handler.
import {
  matchRestEndpoint,
  protocolError,
  restAuthHeaders,
  restEndpointWeight,
  safeParse,
} from '@polder/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { ApiKeyRecord } from '../accounts/accountStore.ts'
import { restSignedRequest, verifySignedRequest } from '../auth/signature.ts'
import { type RateLimiter, rateLimitHeaders } from '../limits/rateLimiter.ts'
import { type ActionRegistry, type ActionResult, actionOfEndpoint, type Caller } from './actions.ts'

export type RestDeps = {
  actions: ActionRegistry
  rateLimiter: RateLimiter
  findApiKey: (key: string) => Promise<ApiKeyRecord | undefined>
  /** Reads what a private action of the account would wait for (its fee tier), if not known. */
  warmAccount: (accountId: number) => Promise<void> | undefined
  /** Whether the key was revoked lately (synchronous: AccountStore.revokedLately). */
  keyRevokedLately: (key: string) => boolean
  nowMs: () => number
}

declare module 'fastify' {
  interface FastifyRequest {
    rawBody?: string
  }
}

/** Largest REST request body, in bytes. */
export const restBodyBytesMax = 64 * 1024

export function registerRestRoutes(app: FastifyInstance, deps: RestDeps): void {
  // Keep the raw body: signatures cover the exact bytes sent, not a re-serialisation.
  app.addContentTypeParser(
    'application/json',
    { parseAs: 'string', bodyLimit: restBodyBytesMax },
    (request, body, done) => {
      request.rawBody = body as string
      done(null, body)
    },
  )
  // Fastify reads a text/plain body as text by default: it would reach a route with no raw body,
  // be taken for none, and a signed request would then fail its signature (309) though the
  // client signed it right. Without that parser it is refused as every other content type
  // without one: 102 (see the server's error handler).
  app.removeContentTypeParser('text/plain')

  app.route({
    method: ['GET', 'POST', 'PUT', 'DELETE'],
    url: '/v2/*',
    handler: (request, reply) => handle(request, reply, deps),
  })
}

function send(reply: FastifyReply, result: ActionResult): FastifyReply {
  return result.ok
    ? reply.code(200).send(result.response)
    : reply.code(result.status).send(result.body)
}

/** The API key that validly signed `request`, or undefined (unsigned, or not valid). */
async function signerOf(
  request: FastifyRequest,
  target: string,
  deps: RestDeps,
): Promise<string | undefined> {
  const parsedHeaders = safeParse(restAuthHeaders, request.headers)
  if (!parsedHeaders.success) return undefined
  const auth = await verifySignedRequest(
    restSignedRequest(parsedHeaders.data, request.method, target, request.rawBody ?? ''),
    deps.nowMs(),
    deps.findApiKey,
    undefined,
  )
  return auth.ok ? auth.apiKey.key : undefined
}

async function handle(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: RestDeps,
): Promise<FastifyReply> {
  const target = request.url
  const queryStart = target.indexOf('?')
  const path = queryStart < 0 ? target : target.slice(0, queryStart)
  const rawQuery = queryStart < 0 ? '' : target.slice(queryStart + 1)
  const nowMs = deps.nowMs()
  // Charged at the clock's time then, not the request's arrival: a charge after the key's lookup
  // must not count in a minute already over (RateLimiter keeps windows from going back too).
  const charge = (caller: string, weight: number): FastifyReply | undefined => {
    const decision = deps.rateLimiter.charge(caller, weight, deps.nowMs())
    reply.headers(rateLimitHeaders(decision))
    if (decision.allowed) return undefined
    return send(reply, { ok: false, ...protocolError(105, { expiryInMs: decision.bannedUntilMs }) })
  }
  const ipCaller = `ip:${request.ip}`
  // What is refused before its endpoint is known costs the IP one point, and says what is left
  // (protocol §2.3: the headers are on every response).
  const match = matchRestEndpoint(request.method, path.slice('/v2'.length))
  if (match === undefined)
    return charge(ipCaller, 1) ?? send(reply, { ok: false, ...protocolError(110) })
  const { endpoint } = match

  const headers = request.headers
  const keyHeader = headers['bitvavo-access-key']
  let params: Record<string, unknown> = {}
  if (endpoint.requestIn === 'query') {
    for (const [name, value] of new URLSearchParams(rawQuery)) params[name] = value
  } else if (request.rawBody !== undefined && request.rawBody.length > 0) {
    let body: unknown
    try {
      body = JSON.parse(request.rawBody)
    } catch {
      body = undefined
    }
    if (typeof body !== 'object' || body === null || Array.isArray(body)) {
      return charge(ipCaller, 1) ?? send(reply, { ok: false, ...protocolError(102) })
    }
    // The parsed object itself, not copied: copying would give a `__proto__` key's value to the
    // copy as its prototype, whose fields the schema would then read as if they had been sent.
    params = body as Record<string, unknown>
  }

  const weight = restEndpointWeight(endpoint, params)

  // The budget is the API key's only once the key has proven itself with a valid signature:
  // an unsigned header naming someone's key must neither spend nor exhaust that key's budget.
  // Unsigned public calls and every failed authentication are charged to the IP.
  let authenticated: Caller
  if (endpoint.auth === 'private') {
    if (keyHeader === undefined)
      return charge(ipCaller, weight) ?? send(reply, { ok: false, ...protocolError(300) })
    const parsedHeaders = safeParse(restAuthHeaders, headers)
    if (!parsedHeaders.success) {
      return (
        charge(ipCaller, weight) ??
        send(reply, {
          ok: false,
          status: parsedHeaders.error.status,
          body: parsedHeaders.error.body,
        })
      )
    }
    const auth = await verifySignedRequest(
      restSignedRequest(parsedHeaders.data, request.method, target, request.rawBody ?? ''),
      nowMs,
      deps.findApiKey,
      undefined,
    )
    if (!auth.ok)
      return (
        charge(ipCaller, weight) ?? send(reply, { ok: false, ...protocolError(auth.errorCode) })
      )
    const refused = charge(`key:${auth.apiKey.key}`, weight)
    if (refused) return refused
    // What the action would wait for is read now, and the key checked once more after it: from
    // that check to the action's command nothing is awaited, so a revocation done meanwhile
    // (the operator told "revoked") is never followed by an order placed with the key.
    const warming = deps.warmAccount(auth.apiKey.accountId)
    if (warming !== undefined) await warming
    if (deps.keyRevokedLately(auth.apiKey.key))
      return send(reply, { ok: false, ...protocolError(305) })
    authenticated = { accountId: auth.apiKey.accountId, permissions: auth.apiKey.permissions }
  } else {
    // A public call signed with a valid key (the SDK signs every call) is the key's to pay, as
    // its private calls are: clients behind one address do not share its budget then. A
    // signature that does not hold changes nothing: the IP pays, and the call is answered.
    const signedBy = keyHeader === undefined ? undefined : await signerOf(request, target, deps)
    const refused = charge(signedBy ? `key:${signedBy}` : ipCaller, weight)
    if (refused) return refused
  }

  let pathParams: Record<string, unknown> = {}
  if (endpoint.pathParams !== undefined) {
    const parsedPath = safeParse(endpoint.pathParams, match.pathParams, { location: 'query' })
    if (!parsedPath.success) {
      return send(reply, {
        ok: false,
        status: parsedPath.error.status,
        body: parsedPath.error.body,
      })
    }
    pathParams = parsedPath.data as Record<string, unknown>
  }
  const parsed = safeParse(endpoint.request, params, { location: endpoint.requestIn })
  if (!parsed.success)
    return send(reply, { ok: false, status: parsed.error.status, body: parsed.error.body })
  const action = actionOfEndpoint(endpoint)
  if (action === undefined) return send(reply, { ok: false, ...protocolError(110) })
  const result = await deps.actions.run(
    action,
    { ...(parsed.data as object), ...pathParams },
    authenticated,
  )
  return send(reply, result)
}
