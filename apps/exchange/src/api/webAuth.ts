// Who calls the spec's private web API: a browser session (`Authorization: Bearer <token>`) or
// a signed API key (the protocol's headers, signature over the raw path and body; GET needs the
// view permission, anything else trade).
import { protocolError, restAuthHeaders, safeParse } from '@polder/protocol'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccountStore } from '../accounts/accountStore.ts'
import { restSignedRequest, verifySignedRequest } from '../auth/signature.ts'

/** The calling account, or why there is none: 300 when nothing claims one, else the key's error. */
export type WebCaller =
  | { ok: true; accountId: number }
  | { ok: false; errorCode: 300 | 304 | 305 | 309 | 310 | 311 | 312 }

export async function webCaller(
  request: FastifyRequest,
  accounts: AccountStore,
  nowMs: () => number,
): Promise<WebCaller> {
  const authorization = String(request.headers.authorization ?? '')
  if (authorization.startsWith('Bearer ')) {
    const accountId = await accounts.findSession(authorization.slice('Bearer '.length))
    return accountId === undefined ? { ok: false, errorCode: 300 } : { ok: true, accountId }
  }
  if (request.headers['bitvavo-access-key'] === undefined) return { ok: false, errorCode: 300 }
  const headers = safeParse(restAuthHeaders, request.headers)
  if (!headers.success) return { ok: false, errorCode: 300 }
  const auth = await verifySignedRequest(
    restSignedRequest(headers.data, request.method, request.url, request.rawBody ?? ''),
    nowMs(),
    (key) => accounts.findApiKey(key),
    request.method === 'GET' ? 'view' : 'trade',
  )
  if (!auth.ok) return auth
  // A lookup answered after the key's revocation was done (possible with PostgreSQL's pool) is
  // refused as /v2 refuses it: nothing is awaited from here to the route's own work.
  if (accounts.revokedLately(auth.apiKey.key)) return { ok: false, errorCode: 305 }
  return { ok: true, accountId: auth.apiKey.accountId }
}

/**
 * The calling account of a private web route. When nothing proves one (no session or key, an
 * unknown or expired session), replies 401 with the protocol's error 300; when a signed key is
 * refused (stale timestamp, bad signature, missing permission), with that refusal (403, 304 to
 * 312), so a client can tell which. Gives undefined then, and the handler returns the reply.
 */
export async function requireWebCaller(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { accounts: AccountStore; nowMs: () => number },
): Promise<number | undefined> {
  const caller = await webCaller(request, deps.accounts, deps.nowMs)
  if (caller.ok) return caller.accountId
  if (caller.errorCode === 300) reply.code(401).send(protocolError(300).body)
  else {
    const refusal = protocolError(caller.errorCode)
    reply.code(refusal.status).send(refusal.body)
  }
  return undefined
}
