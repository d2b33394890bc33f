// viem-style errors (STYLE habit 5): one base class with a short message, optional details and a
// cause; every failure of the library is a named subclass. Business outcomes (the protocol's
// errorCodes) are not thrown: they end up as `failed` load states.

export type ClientErrorOptions = {
  details?: string | undefined
  cause?: unknown
  /** The protocol errorCode or HTTP status, when there is one. */
  code?: number | undefined
}

export class ClientError extends Error {
  override name = 'ClientError'
  readonly shortMessage: string
  readonly details: string | undefined
  readonly code: number | undefined

  constructor(shortMessage: string, options: ClientErrorOptions = {}) {
    const message =
      options.details === undefined
        ? shortMessage
        : `${shortMessage}\n\nDetails: ${options.details}`
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.shortMessage = shortMessage
    this.details = options.details
    this.code = options.code
  }
}

/** A socket action that is not one of spec §7. */
export class UnknownSocketActionError extends ClientError {
  override name = 'UnknownSocketActionError'
  readonly action: string

  constructor(action: string) {
    super(`Unknown socket action "${action}".`)
    this.action = action
  }
}

/** The socket did not open within the connect timeout. */
export class SocketConnectTimeoutError extends ClientError {
  override name = 'SocketConnectTimeoutError'
  readonly timeoutMs: number

  constructor(timeoutMs: number) {
    super(`The socket did not open within ${timeoutMs} ms.`)
    this.timeoutMs = timeoutMs
  }
}

/** The socket closed (or failed) before it opened. */
export class SocketClosedError extends ClientError {
  override name = 'SocketClosedError'

  constructor(closeCode: number | undefined, details?: string) {
    super('The socket closed before it opened.', { code: closeCode, details })
  }
}

/** A message was sent while the socket is not open. */
export class SocketNotOpenError extends ClientError {
  override name = 'SocketNotOpenError'

  constructor(action: string) {
    super(`Cannot send "${action}": the socket is not open.`)
  }
}

/** `fetch` rejected: no connection, DNS, CORS, reset. Retried with backoff. */
export class NetworkError extends ClientError {
  override name = 'NetworkError'

  constructor(url: string, cause: unknown) {
    super(`Network error requesting ${url}.`, { cause })
  }
}

/** No response within the request timeout. Retried with backoff. */
export class RequestTimeoutError extends ClientError {
  override name = 'RequestTimeoutError'
  readonly timeoutMs: number

  constructor(url: string, timeoutMs: number) {
    super(`No response from ${url} within ${timeoutMs} ms.`)
    this.timeoutMs = timeoutMs
  }
}

/** The server answered with an unexpected HTTP status. Not retried. */
export class HttpStatusError extends ClientError {
  override name = 'HttpStatusError'
  readonly status: number
  /** The `{errorCode, error}` body when the server sent one. */
  readonly body: unknown

  constructor(url: string, status: number, body: unknown) {
    const errorCode =
      typeof body === 'object' && body !== null && 'errorCode' in body
        ? Number((body as { errorCode: unknown }).errorCode)
        : undefined
    super(`HTTP ${status} from ${url}.`, {
      code: errorCode ?? status,
      details: body === undefined ? undefined : JSON.stringify(body),
    })
    this.status = status
    this.body = body
  }
}

/** A response did not match its protocol schema. Not retried. */
export class InvalidResponseError extends ClientError {
  override name = 'InvalidResponseError'

  constructor(what: string, cause: unknown) {
    super(`Invalid response for ${what}.`, {
      cause,
      details: cause instanceof Error ? cause.message : undefined,
    })
  }
}

/** An error reply to `getBook` or a book subscription, passed on to the book's error stream. */
export class BookStreamError extends ClientError {
  override name = 'BookStreamError'
  readonly market: string | undefined

  constructor(market: string | undefined, message: string, code: number | undefined) {
    super(`Order book stream error${market === undefined ? '' : ` for ${market}`}: ${message}`, {
      code,
    })
    this.market = market
  }
}
