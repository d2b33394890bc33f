import type { Logger, TimerHandle, Timers } from '../environment.ts'
import { SocketClosedError, SocketConnectTimeoutError, SocketNotOpenError } from '../errors.ts'
import type { SocketClose, SocketConnectionState, SocketStore } from '../stores/socketStore.ts'
import { describeCloseCode } from './closeCodes.ts'

// One WebSocket connection with the states of spec §4 (not initialised, connecting, open,
// closing, closed) and the connect timeout (default 4 s). The WebSocket constructor is injected:
// `globalThis.WebSocket` in browsers and Node 24, anything with the same API elsewhere.

export const defaultConnectTimeoutMs = 4000
/** Largest message accepted from the server; a bigger one is dropped and logged. */
export const incomingMessageBytesMax = 16 * 1024 * 1024

/** The part of the WHATWG WebSocket the client uses. */
export type WebSocketLike = {
  readonly readyState: number
  send(data: string): void
  close(code?: number, reason?: string): void
  onopen: ((event: Event) => void) | null
  onclose: ((event: CloseEvent) => void) | null
  onerror: ((event: Event) => void) | null
  onmessage: ((event: MessageEvent) => void) | null
}

export type WebSocketConstructor = new (url: string) => WebSocketLike

export type SocketConnectionOptions = {
  url: string
  WebSocket: WebSocketConstructor
  timers: Timers
  logger: Logger
  store: SocketStore
  connectTimeoutMs?: number
  onMessage(text: string): void
  /** The socket closed after it had opened; `intentional` when `close()` asked for it. */
  onClose(close: SocketClose, intentional: boolean): void
}

const openState = 1

export class SocketConnection {
  readonly connectTimeoutMs: number
  readonly #options: SocketConnectionOptions
  #socket: WebSocketLike | undefined
  #closing = false

  constructor(options: SocketConnectionOptions) {
    this.#options = options
    this.connectTimeoutMs = options.connectTimeoutMs ?? defaultConnectTimeoutMs
  }

  get state(): SocketConnectionState {
    return this.#options.store.getState().connection
  }

  #setState(connection: SocketConnectionState, lastClose?: SocketClose): void {
    this.#options.store.setState(
      lastClose === undefined ? { connection } : { connection, lastClose },
    )
  }

  /** Open the socket; rejects on the connect timeout or when it closes before opening. */
  connect(): Promise<void> {
    if (this.state === 'open' || this.state === 'connecting') {
      return Promise.reject(new SocketNotOpenError('connect: already connecting or open'))
    }
    const { timers, logger } = this.#options
    this.#closing = false
    this.#setState('connecting')
    const socket = new this.#options.WebSocket(this.#options.url)
    this.#socket = socket
    return new Promise<void>((resolve, reject) => {
      let opened = false
      let timeout: TimerHandle | undefined = timers.setTimeout(() => {
        timeout = undefined
        detach()
        this.#socket = undefined
        this.#setState('closed')
        socket.close()
        reject(new SocketConnectTimeoutError(this.connectTimeoutMs))
      }, this.connectTimeoutMs)
      const clearTimeout = (): void => {
        if (timeout !== undefined) timers.clearTimeout(timeout)
        timeout = undefined
      }
      const detach = (): void => {
        socket.onopen = null
        socket.onclose = null
        socket.onerror = null
        socket.onmessage = null
      }
      socket.onopen = () => {
        clearTimeout()
        opened = true
        this.#setState('open')
        resolve()
      }
      socket.onerror = () => logger.debug('Socket error event.')
      socket.onmessage = (event) => {
        if (typeof event.data !== 'string') {
          logger.warn('Binary socket message dropped.')
          return
        }
        if (event.data.length > incomingMessageBytesMax) {
          logger.warn(`Socket message of ${event.data.length} characters dropped.`)
          return
        }
        this.#options.onMessage(event.data)
      }
      socket.onclose = (event) => {
        clearTimeout()
        detach()
        if (this.#socket === socket) this.#socket = undefined
        const close: SocketClose = {
          code: event.code,
          reason: event.reason,
          description: describeCloseCode(event.code),
        }
        logger.debug(`Socket closed: ${close.code} ${close.description}`, close.reason)
        this.#setState('closed', close)
        if (!opened) {
          reject(new SocketClosedError(event.code, close.description))
          return
        }
        this.#options.onClose(close, this.#closing)
      }
    })
  }

  get isOpen(): boolean {
    return this.#socket !== undefined && this.#socket.readyState === openState
  }

  /** Send one JSON message; throws SocketNotOpenError when the socket is not open. */
  send(message: object): void {
    const socket = this.#socket
    if (socket === undefined || socket.readyState !== openState || this.state !== 'open') {
      const action = 'action' in message ? String(message.action) : 'message'
      throw new SocketNotOpenError(action)
    }
    socket.send(JSON.stringify(message))
  }

  close(code = 1000, reason = ''): void {
    const socket = this.#socket
    if (socket === undefined) return
    this.#closing = true
    this.#setState('closing')
    socket.close(code, reason)
  }
}
