import { InvalidRequestIdTokenError } from '../errors/ProtocolError.ts'

// ccxt's requestId has ~17 digits, beyond 2^53: after JSON.parse the number may be rounded, and
// ccxt matches replies by String(requestId). So a server reads the raw token from the message
// text and writes it back verbatim; `requestIdEcho` says what to write back for every accepted
// requestId, the ones written another way included.

/** Longest requestId token echoed (an int64 has at most 20 characters with its sign). */
export const requestIdTokenLengthMax = 20

const integerToken = /^-?\d+$/

/**
 * The raw text of the top-level `requestId` of a JSON object message, when it is an integer
 * token; undefined otherwise (absent, not a number, not an object, malformed).
 */
export function readRequestIdToken(text: string): string | undefined {
  let depth = 0
  let index = 0
  let expectKey = false
  let isRequestIdKey = false
  while (index < text.length) {
    const char = text[index]
    if (char === '"') {
      const end = endOfString(text, index)
      if (end < 0) return undefined
      if (depth === 1 && expectKey) {
        isRequestIdKey = namesRequestId(text, index, end)
        expectKey = false
      }
      index = end + 1
      continue
    }
    if (char === '{' || char === '[') {
      depth += 1
      expectKey = depth === 1 && char === '{'
    } else if (char === '}' || char === ']') {
      depth -= 1
    } else if (char === ',' && depth === 1) {
      expectKey = true
    } else if (char === ':' && depth === 1 && isRequestIdKey) {
      const match = /^\s*(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(index + 1))
      const token = match?.[1]
      if (token === undefined || !integerToken.test(token)) return undefined
      return token.length <= requestIdTokenLengthMax ? token : undefined
    }
    index += 1
  }
  return undefined
}

/**
 * The text a reply gives back as a request's `requestId` (the value its schema accepted, read
 * from the message `text`): the client's own token when it is an integer one, exact even beyond
 * 2^53. Written another way (`1e5`, `7.0`), the parsed number written back (`100000`, `7`), but
 * only up to 2^53, where every integer is exact: beyond, the parse may have rounded it, and the
 * reply would carry an id the client never sent (a 21-digit id, too long to echo as a token,
 * would come back ending in zeros). Undefined then: no reply can carry the id, so the request is
 * to be refused (205) before anything is done for it.
 */
export function requestIdEcho(text: string, requestId: number): string | undefined {
  const token = readRequestIdToken(text)
  // The scan stops at the first requestId key, JSON.parse keeps the last one's value.
  if (token !== undefined && Number(token) === requestId) return token
  return Number.isSafeInteger(requestId) ? JSON.stringify(requestId) : undefined
}

function endOfString(text: string, start: number): number {
  let index = start + 1
  while (index < text.length) {
    const char = text[index]
    if (char === '\\') index += 2
    else if (char === '"') return index
    else index += 1
  }
  return -1
}

/**
 * Whether the string literal from `start` to `end` (its quotes) is the key `requestId`: compared
 * as it is written, and decoded only when it has an escape (`"request\u0049d"` is that key too).
 * Decoding every key took 1.1 µs of this scan's 1.8 on an order's request.
 */
function namesRequestId(text: string, start: number, end: number): boolean {
  if (end - start === requestIdLiteral.length - 1 && text.startsWith(requestIdLiteral, start))
    return true
  const escaped = text.indexOf('\\', start)
  return (
    escaped !== -1 && escaped < end && safeJsonString(text.slice(start, end + 1)) === 'requestId'
  )
}

const requestIdLiteral = '"requestId"'

function safeJsonString(literal: string): string | undefined {
  try {
    const value: unknown = JSON.parse(literal)
    return typeof value === 'string' ? value : undefined
  } catch {
    return undefined
  }
}

/**
 * Serialise an action reply with `action` first and the raw `requestId` token echoed verbatim
 * (`{"action":"getTime","requestId":17000000000000001234,"response":{...}}`). Without a token the
 * message is serialised as is (its numeric `requestId`, if any, included). Without an action (the
 * error answering a message that names none) the token comes first.
 */
export function encodeWsMessage(
  message: { action?: string; requestId?: number; [key: string]: unknown },
  requestIdToken?: string,
): string {
  if (requestIdToken === undefined) return JSON.stringify(message)
  if (!integerToken.test(requestIdToken) || requestIdToken.length > requestIdTokenLengthMax) {
    throw new InvalidRequestIdTokenError(requestIdToken)
  }
  const { action, requestId: _ignored, ...rest } = message
  const head =
    action === undefined
      ? `{"requestId":${requestIdToken}`
      : `{"action":${JSON.stringify(action)},"requestId":${requestIdToken}`
  const tail = JSON.stringify(rest)
  return tail === '{}' ? `${head}}` : `${head},${tail.slice(1)}`
}
