// Who calls the spec's private web API: a browser session (`Authorization: Bearer <token>`) or
// a signed API key (the protocol's headers, signature over the raw path and body; GET needs the
// view permission, anything else trade). Undefined when neither proves an account.
import { protocolError, restAuthHeaders, safeParse } from '@polder/protocol'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { AccountStore } from '../accounts/accountStore.ts'
import { restSignedRequest, verifySignedRequest } from '../auth/signature.ts'

export async function webCallerAccount(
  request: FastifyRequest,
  accounts: AccountStore,
  nowMs: () => number,
): Promise<number | undefined> {
  const authorization = String(request.headers.authorization ?? '')
  if (authorization.startsWith('Bearer '))
    return accounts.findSession(authorization.slice('Bearer '.length))
  if (request.headers['bitvavo-access-key'] === undefined) return undefined
  const headers = safeParse(restAuthHeaders, request.headers)
  if (!headers.success) return undefined
  const auth = await verifySignedRequest(
    restSignedRequest(headers.data, request.method, request.url, request.rawBody ?? ''),
    nowMs(),
    (key) => accounts.findApiKey(key),
    request.method === 'GET' ? 'view' : 'trade',
  )
  return auth.ok ? auth.apiKey.accountId : undefined
}

/**
 * The calling account of a private web route; when neither proves one, replies 401 with the
 * protocol's error body and gives undefined (the handler then returns the reply).
 */
export async function requireWebCaller(
  request: FastifyRequest,
  reply: FastifyReply,
  deps: { accounts: AccountStore; nowMs: () => number },
): Promise<number | undefined> {
  const accountId = await webCallerAccount(request, deps.accounts, deps.nowMs)
  if (accountId === undefined) reply.code(401).send(protocolError(300).body)
  return accountId
}
