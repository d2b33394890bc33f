// HMAC-SHA256 request signatures of protocol §2: lowercase hex over
// `timestamp + METHOD + rawPathWithQuery + rawBody`, compared in constant time.
import { createHmac, timingSafeEqual } from 'node:crypto'
import {
  accessWindowMsDefault,
  type RestAuthHeaders,
  signingString,
  websocketSigningPath,
} from '@polder/protocol'
import type { ApiKeyRecord, Permission } from '../accounts/accountStore.ts'

/** How far a request's timestamp may lie in the future (clock skew), in ms. */
export const futureSkewMsMax = 1_000

export function sign(
  secret: string,
  timestamp: number | string,
  method: string,
  path: string,
  body = '',
): string {
  return createHmac('sha256', secret)
    .update(signingString(timestamp, method, path, body))
    .digest('hex')
}

function signatureMatches(expectedHex: string, givenHex: string): boolean {
  const expected = Buffer.from(expectedHex, 'hex')
  const given = Buffer.from(givenHex, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

export type SignedRequest = {
  key: string
  signature: string
  timestampMs: number
  windowMs: number | undefined
  method: string
  /** The raw request target, e.g. `/v2/order?market=BTC-EUR`. */
  path: string
  /** The raw body text, `''` when there is none. */
  body: string
}

export type AuthResult =
  | { ok: true; apiKey: ApiKeyRecord }
  | { ok: false; errorCode: 304 | 305 | 309 | 310 | 311 | 312 }

export const permissionErrorCodes: Record<Permission, 310 | 311 | 312> = {
  trade: 310,
  view: 311,
  withdraw: 312,
}

/**
 * Checks a signed request whose headers already passed their schema (301/302/303/308).
 * Order of checks: key known (305), time window (304), signature (309), permission (310-312).
 */
export async function verifySignedRequest(
  request: SignedRequest,
  nowMs: number,
  findApiKey: (key: string) => Promise<ApiKeyRecord | undefined>,
  permission: Permission | undefined,
): Promise<AuthResult> {
  const apiKey = await findApiKey(request.key)
  if (!apiKey || apiKey.revoked) return { ok: false, errorCode: 305 }
  const windowMs = request.windowMs ?? accessWindowMsDefault
  if (nowMs - request.timestampMs > windowMs || request.timestampMs - nowMs > futureSkewMsMax) {
    return { ok: false, errorCode: 304 }
  }
  const expected = sign(
    apiKey.secret,
    request.timestampMs,
    request.method,
    request.path,
    request.body,
  )
  if (!signatureMatches(expected, request.signature)) return { ok: false, errorCode: 309 }
  if (permission && !apiKey.permissions.includes(permission)) {
    return { ok: false, errorCode: permissionErrorCodes[permission] }
  }
  return { ok: true, apiKey }
}

/** A REST request as signed: the validated headers with the raw target and body as received. */
export function restSignedRequest(
  headers: RestAuthHeaders,
  method: string,
  path: string,
  body: string,
): SignedRequest {
  return {
    key: headers['bitvavo-access-key'],
    signature: headers['bitvavo-access-signature'],
    timestampMs: headers['bitvavo-access-timestamp'],
    windowMs: headers['bitvavo-access-window'],
    method,
    path,
    body,
  }
}

/** The WebSocket `authenticate` action signs `timestamp + 'GET' + '/v2/websocket'`. */
export function websocketSignedRequest(
  key: string,
  signature: string,
  timestampMs: number,
  windowMs?: number,
): SignedRequest {
  return {
    key,
    signature,
    timestampMs,
    windowMs,
    method: 'GET',
    path: websocketSigningPath,
    body: '',
  }
}
