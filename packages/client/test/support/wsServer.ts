import type { AddressInfo } from 'node:net'
import { type WebSocket, WebSocketServer } from 'ws'
import { waitUntil } from './waitUntil.ts'

// A real WebSocket server on a random loopback port, standing in for the exchange server in the
// unit tests (where a test decides every reply, including the awkward ones). It records what every
// connection receives and lets a test answer. tests/integration/ at the root runs against the real server.

export type ReceivedMessage = { connection: number; message: Record<string, unknown> }

export type TestWsServer = {
  readonly url: string
  readonly received: ReceivedMessage[]
  readonly connections: WebSocket[]
  /** Messages received with this action (optionally on one connection). */
  actions(action: string, connection?: number): Record<string, unknown>[]
  /** Send to the latest connection. */
  send(message: unknown): void
  /** Wait until the server has seen a message matching the predicate. */
  waitFor(
    predicate: (message: Record<string, unknown>) => boolean,
  ): Promise<Record<string, unknown>>
  waitForConnections(count: number): Promise<void>
  /** Terminate the latest connection without a close handshake (a dropped socket). */
  dropLatest(): void
  close(): Promise<void>
}

export async function startWsServer(
  onMessage?: (message: Record<string, unknown>, socket: WebSocket) => void,
): Promise<TestWsServer> {
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 })
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  const received: ReceivedMessage[] = []
  const connections: WebSocket[] = []
  server.on('connection', (socket) => {
    const index = connections.length
    connections.push(socket)
    socket.on('message', (data) => {
      const message = JSON.parse(String(data)) as Record<string, unknown>
      received.push({ connection: index, message })
      onMessage?.(message, socket)
    })
  })
  const latest = (): WebSocket => {
    const socket = connections.at(-1)
    if (socket === undefined) throw new Error('no connection yet')
    return socket
  }
  return {
    url: `ws://127.0.0.1:${port}/v2`,
    received,
    connections,
    actions: (action, connection) =>
      received
        .filter(
          (entry) =>
            entry.message.action === action &&
            (connection === undefined || entry.connection === connection),
        )
        .map((entry) => entry.message),
    send: (message) => latest().send(JSON.stringify(message)),
    async waitFor(predicate) {
      let found: Record<string, unknown> | undefined
      await waitUntil(() => {
        found = received.map((entry) => entry.message).find(predicate)
        if (found === undefined) throw new Error('message not received yet')
      })
      return found!
    },
    async waitForConnections(count) {
      await waitUntil(() => {
        if (connections.length < count) throw new Error(`${connections.length} connections`)
      })
    },
    dropLatest: () => latest().terminate(),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.terminate()
        server.close(() => resolve())
      }),
  }
}
