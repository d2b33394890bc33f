import type { z } from 'zod'
import { type ErrorBody, formatProtocolError } from './errorCatalogue.ts'
import { ProtocolError } from './ProtocolError.ts'

/**
 * Where the validated parameters came from. It picks the "unknown parameter" code:
 * 200 for a URL query, 201 for a JSON body, 204 for a WebSocket request or anything else.
 */
export type ParameterLocation = 'query' | 'body' | 'ws'

export const unknownParameterErrorCodes = { query: 200, body: 201, ws: 204 } as const

/**
 * What a rule attaches to a custom zod issue (`params`) so the failure carries its protocol
 * errorCode, e.g. `{ errorCode: 206, messageParams: { a: 'amount', b: 'amountQuote' } }`.
 */
export type IssueErrorCode = {
  errorCode: number
  messageParams?: Readonly<Record<string, string>>
}

export type ValidationIssue = {
  /** Path to the offending value, e.g. `['channels', 0, 'name']`; `[]` for the message itself. */
  readonly path: readonly (string | number)[]
  /** The parameter the wire message names (`{param}` of 203/204/205): the innermost named one. */
  readonly param: string
  /** For people: `expected a decimal string`, `required`, `not supported`, ... */
  readonly message: string
  readonly errorCode: number
  readonly messageParams: Readonly<Record<string, string>>
}

/** A wire message failed its schema. `code` is the errorCode a server answers with. */
export class ValidationError extends ProtocolError {
  override name = 'ValidationError'
  /** Every issue, most important first (unknown parameter, unknown action, missing, invalid, rule). */
  readonly issues: readonly ValidationIssue[]
  /** The parameter named by the first issue. */
  readonly param: string
  /** HTTP status of the first issue's errorCode. */
  readonly status: number
  /** The protocol error body `{ errorCode, error }` for the first issue. */
  readonly body: ErrorBody

  constructor(issues: readonly ValidationIssue[], options: { cause?: unknown } = {}) {
    const first = issues[0]
    if (first === undefined) throw new TypeError('ValidationError needs at least one issue')
    const reply = formatProtocolError(first.errorCode, {
      param: first.param,
      ...first.messageParams,
    })
    super(describeIssue(first), {
      code: first.errorCode,
      details: issues.map(describeIssue).join('; '),
      cause: options.cause,
    })
    this.issues = issues
    this.param = first.param
    this.status = reply.status
    this.body = reply.body
  }

  /**
   * Build from a zod failure. `input` is the value that was parsed: it tells a missing field
   * (203) from an invalid one (205).
   */
  static fromZodError(
    error: z.ZodError,
    input: unknown,
    location: ParameterLocation = 'ws',
  ): ValidationError {
    const issues = error.issues.flatMap((issue) => toValidationIssues(issue, input, location))
    const ranked = issues
      .map((issue, index) => ({ issue, index, rank: issueRank(issue) }))
      .sort((a, b) => a.rank - b.rank || a.index - b.index)
      .map((entry) => entry.issue)
    return new ValidationError(ranked, { cause: error })
  }
}

function describeIssue(issue: ValidationIssue): string {
  const where = issue.path.length === 0 ? '(message)' : issue.path.join('.')
  return `${where}: ${issue.message}`
}

const unknownCodes: ReadonlySet<number> = new Set([200, 201, 204])

function issueRank(issue: ValidationIssue): number {
  if (unknownCodes.has(issue.errorCode) && issue.message === 'not supported') return 0
  if (issue.errorCode === 415) return 1
  if (issue.errorCode === 203 && issue.message === 'required') return 2
  if (issue.errorCode === 205) return 3
  return 4
}

type Lookup = { present: boolean; value: unknown }

function lookup(input: unknown, path: readonly PropertyKey[]): Lookup {
  let current: unknown = input
  for (const key of path) {
    if (current === null || typeof current !== 'object') return { present: false, value: undefined }
    if (!Object.hasOwn(current, key)) return { present: false, value: undefined }
    current = (current as Record<PropertyKey, unknown>)[key]
  }
  return { present: current !== undefined, value: current }
}

/** Whether walking `path` through `input` stops at a value that is present but no object. */
function reachesNonObject(input: unknown, path: readonly PropertyKey[]): boolean {
  let current: unknown = input
  for (const key of path) {
    if (current === undefined) return false
    if (current === null || typeof current !== 'object') return true
    current = Object.hasOwn(current, key)
      ? (current as Record<PropertyKey, unknown>)[key]
      : undefined
  }
  return false
}

function toPath(path: readonly PropertyKey[]): (string | number)[] {
  return path.map((key) => (typeof key === 'number' ? key : String(key)))
}

/**
 * The parameter a path names on the wire (`{param}` of 203/204/205): the innermost named one, so
 * that a subscribe's bad channel names what is wrong in it (`interval`, `markets`) rather than
 * `channels`; an element of a channel's `markets` is a `market`, as an unknown market is named
 * (a list sent as one top-level parameter keeps its name: `markets=btc` is `markets`).
 */
function paramOf(path: readonly (string | number)[]): string {
  for (let i = path.length - 1; i >= 0; i--) {
    const key = path[i]
    if (typeof key === 'string')
      return key === 'markets' && i > 0 && i < path.length - 1 ? 'market' : key
  }
  return '(message)'
}

function toValidationIssues(
  issue: z.core.$ZodIssue,
  input: unknown,
  location: ParameterLocation,
): ValidationIssue[] {
  const path = toPath(issue.path)
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((key) => {
      const keyPath = [...path, key]
      return {
        path: keyPath,
        param: key,
        message: 'not supported',
        errorCode: unknownParameterErrorCodes[location],
        messageParams: {},
      }
    })
  }
  if (issue.code === 'custom') {
    const attached = issue.params as Partial<IssueErrorCode> | undefined
    if (attached?.errorCode !== undefined) {
      return [
        {
          path,
          param: paramOf(path),
          message: issue.message,
          errorCode: attached.errorCode,
          messageParams: attached.messageParams ?? {},
        },
      ]
    }
  }
  const found = lookup(input, issue.path)
  // A path into a value the schema transformed (a comma list made an array) ends, in the raw
  // input, at a value that is no object (the list's text): that parameter was sent and is
  // invalid, not missing. A path that ends at an object without the key is missing.
  const sent = found.present || reachesNonObject(input, issue.path)
  if (!sent) {
    return [{ path, param: paramOf(path), message: 'required', errorCode: 203, messageParams: {} }]
  }
  if (
    issue.code === 'invalid_union' &&
    'discriminator' in issue &&
    issue.discriminator === 'action' &&
    typeof found.value === 'string'
  ) {
    return [
      {
        path,
        param: paramOf(path),
        message: `unknown action "${found.value}"`,
        errorCode: 415,
        messageParams: {},
      },
    ]
  }
  return [
    {
      path,
      param: paramOf(path),
      message: issue.message,
      errorCode: 205,
      messageParams: {},
    },
  ]
}
