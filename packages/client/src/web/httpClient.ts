import { safeParse } from '@polder/protocol'
import type { z } from 'zod'
import { globalTimers, type Random, type Timers } from '../environment.ts'
import {
  HttpStatusError,
  InvalidResponseError,
  NetworkError,
  RequestTimeoutError,
} from '../errors.ts'
import {
  backoffDelayMs,
  defaultRetryOptions,
  type RetryOptions,
  retriesMax,
  sleep,
} from './backoff.ts'

// The web API transport (spec §7, §8): a configurable base address, a timeout per attempt
// (default 3000 ms), and retries with backoff for network and timeout errors only. Any other
// failure (an HTTP error status, a body that does not match its schema) is rejected at once.
// A POST carries an Idempotency-Key, the same on each of its attempts: a retry of one whose first
// attempt did land (its answer lost to the timeout) is answered as the first, not done twice.

export const defaultApiTimeoutMs = 3000

export type FetchLike = (input: string, init?: RequestInit) => Promise<Response>

export type HttpClientOptions = {
  baseUrl: string
  fetch?: FetchLike
  timers?: Timers
  random?: Random
  timeoutMs?: number
  retry?: Partial<RetryOptions>
  /** Extra headers per request (a session token, a language). */
  headers?: () => Record<string, string>
  /** A new Idempotency-Key for a POST (default: a random UUID). */
  newIdempotencyKey?: () => string
}

export type QueryValue = string | number | boolean | readonly string[] | undefined

export type HttpRequest<Schema extends z.ZodType> = {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  path: string
  query?: Readonly<Record<string, QueryValue>>
  body?: unknown
  /** The response schema from @polder/protocol. */
  response: Schema
  /** Which statuses count as success (default 2xx). */
  isSuccess?: (status: number) => boolean
}

export type HttpClient = {
  readonly baseUrl: string
  readonly timeoutMs: number
  readonly retry: RetryOptions
  request<Schema extends z.ZodType>(request: HttpRequest<Schema>): Promise<z.output<Schema>>
}

export function buildUrl(
  baseUrl: string,
  path: string,
  query: Readonly<Record<string, QueryValue>> = {},
): string {
  const parameters: string[] = []
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue
    const text = Array.isArray(value) ? value.join(',') : String(value)
    parameters.push(`${encodeURIComponent(name)}=${encodeURIComponent(text)}`)
  }
  const base = baseUrl.endsWith('/') ? baseUrl.slice(0, -1) : baseUrl
  return `${base}${path}${parameters.length === 0 ? '' : `?${parameters.join('&')}`}`
}

function isRetryable(error: unknown): boolean {
  return error instanceof NetworkError || error instanceof RequestTimeoutError
}

export function createHttpClient(options: HttpClientOptions): HttpClient {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init))
  const timers = options.timers ?? globalTimers
  const random = options.random ?? Math.random
  const timeoutMs = options.timeoutMs ?? defaultApiTimeoutMs
  const newIdempotencyKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID())
  const retry: RetryOptions = { ...defaultRetryOptions, ...options.retry }
  if (retry.retries < 0 || retry.retries > retriesMax) {
    throw new RangeError(`retries must be between 0 and ${retriesMax}`)
  }

  async function attempt<Schema extends z.ZodType>(
    url: string,
    request: HttpRequest<Schema>,
    idempotencyKey: string | undefined,
  ): Promise<z.output<Schema>> {
    const controller = new AbortController()
    let timedOut = false
    const timer = timers.setTimeout(() => {
      timedOut = true
      controller.abort()
    }, timeoutMs)
    try {
      const headers: Record<string, string> = { accept: 'application/json', ...options.headers?.() }
      if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey
      const init: RequestInit = { method: request.method, headers, signal: controller.signal }
      if (request.body !== undefined) {
        headers['content-type'] = 'application/json'
        init.body = JSON.stringify(request.body)
      }
      let response: Response
      try {
        response = await fetchImpl(url, init)
      } catch (error) {
        if (timedOut) throw new RequestTimeoutError(url, timeoutMs)
        throw new NetworkError(url, error)
      }
      let body: unknown
      try {
        const text = await response.text()
        body = text === '' ? undefined : JSON.parse(text)
      } catch (error) {
        if (timedOut) throw new RequestTimeoutError(url, timeoutMs)
        if (error instanceof SyntaxError) throw new InvalidResponseError(url, error)
        throw new NetworkError(url, error)
      }
      const isSuccess = request.isSuccess ?? ((status: number) => status >= 200 && status < 300)
      if (!isSuccess(response.status)) throw new HttpStatusError(url, response.status, body)
      const parsed = safeParse(request.response, body)
      if (!parsed.success) throw new InvalidResponseError(url, parsed.error)
      return parsed.data
    } finally {
      timers.clearTimeout(timer)
    }
  }

  return {
    baseUrl: options.baseUrl,
    timeoutMs,
    retry,
    async request(request) {
      const url = buildUrl(options.baseUrl, request.path, request.query)
      const idempotencyKey = request.method === 'POST' ? newIdempotencyKey() : undefined
      for (let retryIndex = 0; ; retryIndex += 1) {
        try {
          return await attempt(url, request, idempotencyKey)
        } catch (error) {
          if (!isRetryable(error) || retryIndex >= retry.retries) throw error
          await sleep(timers, backoffDelayMs(retryIndex, retry, random))
        }
      }
    },
  }
}
