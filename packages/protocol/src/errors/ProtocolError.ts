// viem-style error base: a short message for people, optional details (the raw reason, e.g. the
// issue list), a cause, and `code`: the protocol errorCode (§5) a server would answer with.

export type ProtocolErrorOptions = {
  /** The protocol errorCode (protocol §5) this failure corresponds to. */
  code: number
  details?: string | undefined
  cause?: unknown
  metaMessages?: readonly string[] | undefined
}

export class ProtocolError extends Error {
  override name = 'ProtocolError'
  readonly shortMessage: string
  readonly details: string | undefined
  readonly metaMessages: readonly string[] | undefined
  readonly code: number

  constructor(shortMessage: string, options: ProtocolErrorOptions) {
    const lines = [shortMessage]
    if (options.metaMessages !== undefined && options.metaMessages.length > 0) {
      lines.push('', ...options.metaMessages)
    }
    if (options.details !== undefined) lines.push('', `Details: ${options.details}`)
    super(lines.join('\n'), options.cause === undefined ? undefined : { cause: options.cause })
    this.shortMessage = shortMessage
    this.details = options.details
    this.metaMessages = options.metaMessages
    this.code = options.code
  }
}

/** `protocolError` was called with a code that is not in the catalogue. */
export class UnknownErrorCodeError extends ProtocolError {
  override name = 'UnknownErrorCodeError'
  readonly unknownCode: number

  constructor(unknownCode: number) {
    super(`Error code ${unknownCode} is not in the protocol error catalogue.`, { code: 101 })
    this.unknownCode = unknownCode
  }
}

/** A catalogue message template needs a parameter the caller did not give. */
export class MissingErrorParameterError extends ProtocolError {
  override name = 'MissingErrorParameterError'
  readonly parameter: string

  constructor(errorCode: number, parameter: string) {
    super(`Error code ${errorCode} needs the message parameter "${parameter}".`, {
      code: errorCode,
    })
    this.parameter = parameter
  }
}

/** `encodeWsMessage` was given a requestId token that is not an integer JSON number. */
export class InvalidRequestIdTokenError extends ProtocolError {
  override name = 'InvalidRequestIdTokenError'

  constructor(token: string) {
    super(`requestId token ${JSON.stringify(token)} is not an integer JSON number.`, {
      code: 205,
    })
  }
}
