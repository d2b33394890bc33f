// The exchange server: REST under /v2 and the WebSocket at /v2 and /v2/ on one port, as the
// public v2 protocol requires (ccxt connects to /v2, the SDK to /v2/).
import type { IncomingMessage } from 'node:http'
import type { Duplex } from 'node:stream'
import { encodeWsMessage, protocolError, readRequestIdToken } from '@polder/protocol'
import Fastify, { type FastifyInstance } from 'fastify'
import { type RawData, type WebSocket, WebSocketServer } from 'ws'
import type { ExchangeConfig } from './config.ts'

export type Clock = { nowMs(): number }
export const systemClock: Clock = { nowMs: () => Date.now() }

export type ExchangeServer = {
  app: FastifyInstance
  /** Starts listening; resolves with the base URL (http://host:port). */
  listen(): Promise<string>
  /** Stops accepting, closes every socket with 1001 (going away), then the HTTP server. */
  close(): Promise<void>
}

const wsPaths = new Set(['/v2', '/v2/'])
const wsCloseGoingAway = 1001

export function createExchangeServer(
  config: ExchangeConfig,
  clock: Clock = systemClock,
): ExchangeServer {
  const startedMs = clock.nowMs()
  const app = Fastify({
    logger: { level: config.logLevel },
    disableRequestLogging: true,
    // Protocol errors are ours to shape; Fastify's own 400s for bad JSON are mapped below.
    return503OnClosing: true,
  })

  // The roots answer with a short index so that every URL `npm start` prints opens something.
  const index = { name: 'Polder exchange', rest: '/v2', websocket: '/v2', health: '/health' }
  app.get('/', async () => index)
  app.get('/v2', async () => index)
  app.get('/health', async () => ({ status: 'ok', uptimeMs: clock.nowMs() - startedMs }))
  app.get('/v2/time', async () => ({ time: clock.nowMs() }))

  app.setNotFoundHandler((request, reply) => {
    request.log.debug({ method: request.method, url: request.url }, 'unknown endpoint')
    const { status, body } = protocolError(110)
    reply.code(status).send(body)
  })
  app.setErrorHandler((error: { code?: string; statusCode?: number }, request, reply) => {
    if (
      error.code === 'FST_ERR_CTP_INVALID_JSON_BODY' ||
      error.code === 'FST_ERR_CTP_EMPTY_JSON_BODY'
    ) {
      const { status, body } = protocolError(102)
      return reply.code(status).send(body)
    }
    request.log.error({ err: error }, 'unhandled error')
    const { status, body } = protocolError(101)
    return reply.code(status).send(body)
  })

  const wss = new WebSocketServer({ noServer: true, maxPayload: config.wsMessageBytesMax })
  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const path = new URL(request.url ?? '/', 'http://localhost').pathname
    if (!wsPaths.has(path)) {
      socket.end('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n')
      return
    }
    wss.handleUpgrade(request, socket, head, (ws) => wss.emit('connection', ws, request))
  }
  app.server.on('upgrade', onUpgrade)
  wss.on('connection', (ws) => {
    ws.on('message', (data, isBinary) => onMessage(ws, data, isBinary))
    ws.on('error', (error) => app.log.debug({ err: error }, 'websocket error'))
  })

  // Replies echo `requestId` as the exact token received: ccxt sends ~17-digit ids beyond 2^53.
  function reply(
    ws: WebSocket,
    message: { action: string; [key: string]: unknown },
    requestIdToken?: string,
  ): void {
    ws.send(encodeWsMessage(message, requestIdToken))
  }

  function onMessage(ws: WebSocket, data: RawData, isBinary: boolean): void {
    const text = isBinary ? undefined : data.toString()
    let message: unknown
    try {
      message = text === undefined ? undefined : JSON.parse(text)
    } catch {
      message = undefined
    }
    if (
      text === undefined ||
      typeof message !== 'object' ||
      message === null ||
      Array.isArray(message)
    ) {
      ws.send(JSON.stringify(protocolError(102).body))
      return
    }
    const requestIdToken = readRequestIdToken(text)
    const action = (message as { action?: unknown }).action
    if (typeof action !== 'string') {
      const requestId = (message as { requestId?: unknown }).requestId
      ws.send(JSON.stringify({ requestId, ...protocolError(203, { param: 'action' }).body }))
      return
    }
    switch (action) {
      case 'getTime':
        reply(ws, { action, response: { time: clock.nowMs() } }, requestIdToken)
        return
      default:
        reply(ws, { action, ...protocolError(415).body }, requestIdToken)
    }
  }

  return {
    app,
    async listen() {
      await app.listen({ host: config.host, port: config.port })
      const address = app.server.address()
      if (address === null || typeof address === 'string')
        throw new Error('server has no TCP address')
      const host = address.family === 'IPv6' ? `[${address.address}]` : address.address
      return `http://${host}:${address.port}`
    },
    async close() {
      app.server.off('upgrade', onUpgrade)
      for (const ws of wss.clients) ws.close(wsCloseGoingAway, 'server shutting down')
      await new Promise<void>((resolve) => wss.close(() => resolve()))
      await app.close()
    },
  }
}
