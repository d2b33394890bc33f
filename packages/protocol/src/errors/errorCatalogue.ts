import { z } from 'zod'
import { MissingErrorParameterError, UnknownErrorCodeError } from './ProtocolError.ts'

// Every numeric errorCode of protocol §5 with its HTTP status and message. Texts the clients
// parse or match are copied exactly (105: the SDK splits on ' at '; 203/205: ccxt matches
// "<param> parameter is invalid"). `{name}` marks a message parameter filled by `protocolError`.
// Where the reference only gives a meaning, the message is plain English in the same tone.

export const errorCatalogue = {
  101: { httpStatus: 500, message: 'Unknown error. Operation may or may not have succeeded.' },
  102: { httpStatus: 400, message: 'Invalid JSON.' },
  103: {
    httpStatus: 429,
    message:
      'You have been rate limited. Please observe the Bitvavo-Ratelimit-AllowAt header to see when you can send requests again.',
  },
  104: {
    httpStatus: 429,
    message:
      'You have been rate limited by the number of new orders. The limit is 100 new orders per second or 100000 new orders per day.',
  },
  105: {
    httpStatus: 429,
    message:
      'Your IP or API key has been banned for not respecting the rate limit. The ban expires at {expiryInMs}.',
  },
  107: {
    httpStatus: 503,
    message: 'The matching engine is overloaded. Please wait 500ms and resubmit your order.',
  },
  108: {
    httpStatus: 503,
    message:
      'The matching engine could not process your request in time. Please consider increasing the access window or resubmit your order.',
  },
  109: {
    httpStatus: 503,
    message:
      'The matching engine did not respond in time. Operation may or may not have succeeded.',
  },
  110: { httpStatus: 404, message: 'Invalid endpoint. Please check url and HTTP method.' },
  111: {
    httpStatus: 503,
    message: 'The matching engine is temporarily unavailable. Please try again later.',
  },
  112: {
    httpStatus: 429,
    message: 'You have exceeded the maximum number of WebSocket requests per second.',
  },
  200: { httpStatus: 400, message: '{param} url parameter is not supported' },
  201: { httpStatus: 400, message: '{param} body parameter is not supported' },
  202: { httpStatus: 400, message: '{param} order parameter is not supported' },
  203: { httpStatus: 400, message: '{param} parameter is required.' },
  204: { httpStatus: 400, message: '{param} parameter is not supported.' },
  205: { httpStatus: 400, message: '{param} parameter is invalid.' },
  206: { httpStatus: 400, message: 'Use either {a} or {b} parameter, not both.' },
  210: { httpStatus: 400, message: 'Amount exceeds the maximum allowed amount.' },
  211: { httpStatus: 400, message: 'Price exceeds the maximum allowed price.' },
  212: { httpStatus: 400, message: 'Amount is below the minimum allowed amount.' },
  213: { httpStatus: 400, message: 'Price is below the minimum allowed price.' },
  214: { httpStatus: 400, message: 'Price has too many significant digits.' },
  215: { httpStatus: 400, message: 'Price has more than 15 decimals.' },
  216: {
    httpStatus: 400,
    message: 'You do not have sufficient balance to complete this operation.',
  },
  217: {
    httpStatus: 400,
    message: 'Minimum order size in quote currency is 5 EUR or 0.001 BTC.',
  },
  218: { httpStatus: 400, message: 'Trigger amount has too many significant digits.' },
  219: { httpStatus: 400, message: 'This market is no longer listed.' },
  220: {
    httpStatus: 400,
    message: 'This clientOrderId is already in use by an open order in this market.',
  },
  230: { httpStatus: 400, message: 'The order was rejected by the matching engine.' },
  231: {
    httpStatus: 400,
    message:
      'The order was rejected by the matching engine. TimeInForce must be GTC while the market is paused.',
  },
  232: {
    httpStatus: 400,
    message:
      'You must change at least one of amount, amountRemaining, price, timeInForce, selfTradePrevention or postOnly.',
  },
  233: {
    httpStatus: 400,
    message: 'Order must be active (status new or partiallyFilled) to allow updating/cancelling.',
  },
  234: { httpStatus: 400, message: 'Market orders cannot be updated.' },
  235: { httpStatus: 400, message: 'You can only have 100 open orders in each market.' },
  236: {
    httpStatus: 400,
    message: 'You can only update one of amount, amountRemaining or amountQuote.',
  },
  237: {
    httpStatus: 400,
    message: '{param} parameter is required for stopLoss and takeProfit orders.',
  },
  238: {
    httpStatus: 400,
    message: '{param} parameter is required for stopLossLimit and takeProfitLimit orders.',
  },
  239: {
    httpStatus: 400,
    message: 'You cannot switch between amount and amountQuote when updating an order.',
  },
  240: {
    httpStatus: 404,
    message:
      'No order found. Please be aware that simultaneously updating the same order may return this error.',
  },
  300: { httpStatus: 403, message: 'Authentication is required for this endpoint.' },
  301: { httpStatus: 403, message: 'API Key must be of length 64.' },
  302: {
    httpStatus: 403,
    message: 'Timestamp is invalid. It must be an integer timestamp in milliseconds.',
  },
  303: { httpStatus: 403, message: 'Window must be between 100 and 60000 ms.' },
  304: { httpStatus: 403, message: 'Request was not received within the access window.' },
  305: { httpStatus: 403, message: 'No active API key found.' },
  306: {
    httpStatus: 403,
    message: 'No active API key found. Please confirm the API key before using it.',
  },
  307: { httpStatus: 403, message: 'This key does not allow access from this IP.' },
  308: {
    httpStatus: 403,
    message:
      'The signature length is invalid (HMAC-SHA256 should return a 64 length hexadecimal string).',
  },
  309: { httpStatus: 403, message: 'The signature is invalid.' },
  310: { httpStatus: 403, message: 'This key does not allow trading actions.' },
  311: { httpStatus: 403, message: 'This key does not allow showing account information.' },
  312: { httpStatus: 403, message: 'This key does not allow withdrawal of funds.' },
  313: { httpStatus: 403, message: 'This session is invalid.' },
  315: {
    httpStatus: 400,
    message: 'WebSocket connections may not be used from a browser. Please use REST requests.',
  },
  316: {
    httpStatus: 403,
    message: 'Only public market data can be requested over this WebSocket.',
  },
  317: { httpStatus: 403, message: 'This account is locked. Please contact support.' },
  318: { httpStatus: 403, message: 'Your account must be verified to perform this operation.' },
  319: { httpStatus: 403, message: 'This operation is not available in your region.' },
  320: { httpStatus: 403, message: 'This operation is forbidden.' },
  400: { httpStatus: 500, message: 'Unknown server error. Please contact support.' },
  401: { httpStatus: 400, message: 'Deposits for this asset are not available at this time.' },
  402: {
    httpStatus: 400,
    message: 'You need to verify your identity before you can deposit and withdraw digital assets.',
  },
  403: {
    httpStatus: 400,
    message:
      'You need to verify your phone number before you can deposit and withdraw digital assets.',
  },
  404: {
    httpStatus: 400,
    message:
      'Could not complete this operation because the node cannot be reached. It may be under maintenance.',
  },
  405: {
    httpStatus: 400,
    message: 'You cannot withdraw digital assets during a cooldown period.',
  },
  406: { httpStatus: 400, message: 'Your withdrawal is too small.' },
  407: { httpStatus: 400, message: 'Internal transfer is not possible.' },
  408: {
    httpStatus: 400,
    message: 'You do not have sufficient balance to complete this withdrawal.',
  },
  409: { httpStatus: 400, message: 'Please verify your bank account and try again.' },
  410: { httpStatus: 400, message: 'Withdrawals for this asset are not available at this time.' },
  411: { httpStatus: 400, message: 'You cannot transfer assets to yourself.' },
  412: {
    httpStatus: 400,
    message: 'An error occurred during your deposit or withdrawal. Please check the address.',
  },
  413: { httpStatus: 400, message: 'This address is not in your withdrawal whitelist.' },
  414: {
    httpStatus: 400,
    message: 'You cannot withdraw assets within 2 minutes of logging in.',
  },
  415: { httpStatus: 404, message: 'Unknown WebSocket action.' },
  419: { httpStatus: 503, message: 'Server unavailable. Please try again later.' },
  422: { httpStatus: 400, message: 'Price is not a multiple of the tick size of this market.' },
  423: { httpStatus: 400, message: 'This market is halted.' },
  424: {
    httpStatus: 400,
    message: 'This market is in cancelOnly mode: orders can only be canceled.',
  },
  425: { httpStatus: 400, message: 'This market is in an auction.' },
  426: {
    httpStatus: 400,
    message: 'This market is matching its auction: orders cannot be placed or canceled.',
  },
  429: { httpStatus: 400, message: '{param} parameter has too many decimal digits.' },
  430: {
    httpStatus: 503,
    message: 'Timed out waiting for market data: the market is not trading.',
  },
  431: {
    httpStatus: 409,
    message: 'Market data is unavailable while the market is halted or in an auction.',
  },
  // Polder's own codes, beyond protocol §5: the daily transfer limits of an account level and
  // of a payment method, and how many deposits an account may start a day (the closest protocol
  // codes, 210, a per-order maximum, and 405, a cooldown, would tell the client something
  // else), and the browser sign-up and login, which the protocol has no codes for.
  440: {
    httpStatus: 400,
    message:
      'This deposit exceeds the {scope} daily deposit limit of {limitEur} EUR; {remainingEur} EUR is left in the last 24 hours.',
  },
  441: {
    httpStatus: 400,
    message:
      'This withdrawal exceeds the {scope} daily withdrawal limit of {limitEur} EUR; {remainingEur} EUR is left in the last 24 hours.',
  },
  442: { httpStatus: 409, message: 'An account with this email address exists.' },
  444: {
    httpStatus: 400,
    message:
      'At most {count} deposits can be started in 24 hours; the next one can be started at {at}.',
  },
  443: { httpStatus: 401, message: 'The email address or the password is wrong.' },
} as const satisfies Record<number, { httpStatus: number; message: string }>

export type ErrorCode = keyof typeof errorCatalogue

/** Every catalogued errorCode, ascending. */
export const errorCodes: readonly ErrorCode[] = Object.keys(errorCatalogue)
  .map(Number)
  .sort((a, b) => a - b) as ErrorCode[]

type TemplateParameters<Text extends string> = Text extends `${string}{${infer Name}}${infer Rest}`
  ? Name | TemplateParameters<Rest>
  : never

/** The message parameters an error code's text needs, e.g. `{ param: string }` for 205. */
export type ErrorParameters<Code extends ErrorCode> = Record<
  TemplateParameters<(typeof errorCatalogue)[Code]['message']>,
  string | number
>

type ErrorParametersArgument<Code extends ErrorCode> = [
  TemplateParameters<(typeof errorCatalogue)[Code]['message']>,
] extends [never]
  ? [parameters?: Record<string, never>]
  : [parameters: ErrorParameters<Code>]

/** The JSON body of every error (REST body; WS adds `action` and `requestId`). */
export const errorBody = z.object({
  errorCode: z.int(),
  error: z.string(),
})
export type ErrorBody = z.infer<typeof errorBody>

export type ProtocolErrorReply = {
  /** The HTTP status a REST server answers with. */
  status: number
  body: ErrorBody
}

export function isErrorCode(code: number): code is ErrorCode {
  return Object.hasOwn(errorCatalogue, code)
}

/**
 * The reply for a protocol error: `{ status, body: { errorCode, error } }`, e.g.
 * `protocolError(205, { param: 'amount' })` gives status 400 and
 * `{ errorCode: 205, error: 'amount parameter is invalid.' }`.
 */
export function protocolError<Code extends ErrorCode>(
  code: Code,
  ...[parameters]: ErrorParametersArgument<Code>
): ProtocolErrorReply {
  return formatProtocolError(code, parameters ?? {})
}

/** Untyped core of `protocolError`, for codes only known at run time (e.g. a validation issue). */
export function formatProtocolError(
  code: number,
  parameters: Readonly<Record<string, string | number | undefined>>,
): ProtocolErrorReply {
  if (!isErrorCode(code)) throw new UnknownErrorCodeError(code)
  const entry = errorCatalogue[code]
  const error = entry.message.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = parameters[name]
    if (value === undefined) throw new MissingErrorParameterError(code, name)
    return String(value)
  })
  return { status: entry.httpStatus, body: { errorCode: code, error } }
}
