// The query of a request as its raw text says it: Fastify's own parse (`request.query`) would read
// `a=1&a=2` as an array, while every parameter here is one string, read as /v2 reads them.
import type { FastifyRequest } from 'fastify'

/** The query parameters of `request`, each the last of its name. */
export function queryParameters(request: FastifyRequest): Record<string, string> {
  const at = request.url.indexOf('?')
  return Object.fromEntries(new URLSearchParams(at < 0 ? '' : request.url.slice(at + 1)))
}
