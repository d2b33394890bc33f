// The `Idempotency-Key` request header of the web API's creating calls (savings plans, stakes):
// a client that retries a POST after a lost answer sends the same key, and the server answers
// with what the first attempt did instead of doing it twice.
import { protocolError } from '@polder/protocol'
import type { FastifyReply, FastifyRequest } from 'fastify'

/** What an `Idempotency-Key` header may hold: 1 to 100 visible ASCII characters. */
const idempotencyKeyPattern = /^[\x21-\x7e]{1,100}$/

/**
 * The request's key, `undefined` without one, or `false` once a malformed one has been answered
 * 400 with 205 (param `Idempotency-Key`).
 */
export function idempotencyKeyOf(
  request: FastifyRequest,
  reply: FastifyReply,
): string | undefined | false {
  const key = request.headers['idempotency-key']
  if (key === undefined) return undefined
  if (typeof key === 'string' && idempotencyKeyPattern.test(key)) return key
  reply.code(400).send(protocolError(205, { param: 'Idempotency-Key' }).body)
  return false
}
