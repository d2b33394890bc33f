import { z } from 'zod'
import type { IssueErrorCode } from '../errors/ValidationError.ts'

// The signed-request headers of protocol §2.1, with the codes a server answers when one is
// malformed. Header names are case-insensitive: validate the lower-cased header map.

/** Length of a real API key (301 otherwise). */
export const apiKeyLength = 64
/** Length of a hex HMAC-SHA256 signature (308 otherwise). */
export const signatureLength = 64
export const accessWindowMsDefault = 10_000
export const accessWindowMsMin = 100
export const accessWindowMsMax = 60_000

function coded<T>(errorCode: number, message: string, check: (value: unknown) => value is T) {
  const params: IssueErrorCode = { errorCode }
  return z.custom<T>(check, { error: message, params })
}

/** An API key of exactly 64 characters (301). */
export const apiKey = coded(
  301,
  'expected an API key of 64 characters',
  (value): value is string => typeof value === 'string' && value.length === apiKeyLength,
)

/** A signature of exactly 64 characters (308). Whether it is right is 309, checked with the secret. */
export const signatureHex = coded(
  308,
  'expected a signature of 64 hexadecimal characters',
  (value): value is string => typeof value === 'string' && value.length === signatureLength,
)

/** The WebSocket `authenticate` timestamp: an integer JSON number of ms (302). */
export const authTimestampMs = coded(
  302,
  'expected an integer timestamp in ms',
  (value): value is number =>
    typeof value === 'number' && Number.isSafeInteger(value) && value >= 0,
)

/** The WebSocket `authenticate` window: 100..60000 ms (303). */
export const accessWindowMs = coded(
  303,
  `expected a window between ${accessWindowMsMin} and ${accessWindowMsMax} ms`,
  (value): value is number =>
    typeof value === 'number' &&
    Number.isInteger(value) &&
    value >= accessWindowMsMin &&
    value <= accessWindowMsMax,
)

const digits = /^\d{1,16}$/

/**
 * The lower-cased request headers of a signed REST call. Other headers pass through. The
 * timestamp and window arrive as decimal strings and parse to numbers.
 */
export const restAuthHeaders = z.looseObject({
  'bitvavo-access-key': apiKey,
  'bitvavo-access-signature': signatureHex,
  'bitvavo-access-timestamp': coded(
    302,
    'expected an integer timestamp in ms',
    (value): value is string => typeof value === 'string' && digits.test(value),
  ).transform(Number),
  'bitvavo-access-window': coded(
    303,
    `expected a window between ${accessWindowMsMin} and ${accessWindowMsMax} ms`,
    (value): value is string =>
      typeof value === 'string' &&
      digits.test(value) &&
      Number(value) >= accessWindowMsMin &&
      Number(value) <= accessWindowMsMax,
  )
    .transform(Number)
    .optional(),
})
export type RestAuthHeaders = z.output<typeof restAuthHeaders>

/**
 * The string a request signature covers (§2.1): `timestamp + METHOD + path + body`, where path
 * is the raw request target including `/v2` and the query string, and body is the raw JSON text
 * (`""` for GET and DELETE). The WebSocket `authenticate` signs `timestamp + 'GET' + '/v2/websocket'`.
 */
export function signingString(
  timestamp: number | string,
  method: string,
  rawPathWithQuery: string,
  rawBody = '',
): string {
  return `${timestamp}${method.toUpperCase()}${rawPathWithQuery}${rawBody}`
}

/** The path the WebSocket `authenticate` action signs (§2.2). */
export const websocketSigningPath = '/v2/websocket'
