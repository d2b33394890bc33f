// The JSON body of a request to the spec's web API (payments, staking), checked by the route's
// schema. A body that is not JSON gets the protocol's 102; one that does not fit the schema, 205
// with the route's hint of what to send.
import { protocolError } from '@polder/protocol'
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'

/** The body as the schema reads it; undefined once a 400 is sent (the handler returns the reply). */
export function webJsonBody<Body extends object>(
  request: FastifyRequest,
  reply: FastifyReply,
  schema: z.ZodType<Body>,
  hint: string,
): Body | undefined {
  let json: unknown
  try {
    json = request.rawBody ? JSON.parse(request.rawBody) : undefined
  } catch {
    reply.code(400).send(protocolError(102).body)
    return undefined
  }
  const body = schema.safeParse(json)
  if (!body.success) {
    reply.code(400).send({ errorCode: 205, error: hint })
    return undefined
  }
  return body.data
}
