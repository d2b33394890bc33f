// One WebSocket connection speaking protocol §6: flat JSON requests, `{action, requestId,
// response}` replies, `{action, requestId, errorCode, error}` errors that leave the connection
// usable, `authenticate` for the whole connection, and subscriptions.

import type { Duplex } from 'node:stream'
import {
  type AuthenticateRequest,
  encodeWsMessage,
  type ParsedWsRequest,
  type ProtocolErrorReply,
  protocolError,
  requestIdEcho,
  requestId as requestIdSchema,
  restEndpointWeight,
  type SubscriptionChannel,
  safeParse,
  wsActions,
  wsRequest,
} from '@polder/protocol'
import type { WebSocket } from 'ws'
import type {
  ApiKeyRecord,
  LiveSession,
  Permission,
  RevokedCredential,
} from '../accounts/accountStore.ts'
import { verifySignedRequest, websocketSignedRequest } from '../auth/signature.ts'
import type { RateLimiter } from '../limits/rateLimiter.ts'
import { type ActionRegistry, type Caller, endpointOfAction } from './actions.ts'
import { ConnectionSubscriptions, TooManySubscriptionsError } from './subscriptions.ts'

export type WsDeps = {
  /** Where a broadcast's writes wait to be let go, a slice at a time (see UncorkQueue). */
  fanOut: UncorkQueue
  actions: ActionRegistry
  rateLimiter: RateLimiter
  findApiKey: (key: string) => Promise<ApiKeyRecord | undefined>
  /** Loads what an account's requests need (its fee tier) while authentication is pending. */
  warmAccount?: (accountId: number) => Promise<void>
  /** A live browser session, or undefined (expired, revoked, unknown). */
  findSession: (token: string) => Promise<LiveSession | undefined>
  nowMs: () => number
  /** Whether a market id is listed; subscriptions to unknown markets are refused (205). */
  marketExists: (market: string) => boolean
  /** Called whenever the connection's subscriptions or its account change (for fan-out). */
  onSubscriptionsChanged?: (connection: WsConnection) => void
  /** Called after a confirmed subscribe, e.g. to push the current 24-hour tickers at once. */
  afterSubscribe?: (connection: WsConnection, channels: readonly SubscriptionChannel[]) => void
}

/** The request fields a WebSocket error reply echoes (protocol §6: "...echoed params"). */
const echoedFields = ['market', 'orderId', 'clientOrderId'] as const
/** Longer ones are not echoed: a reply does not carry back what a client could make it carry. */
const echoedLengthMax = 64

/** A request that failed unexpectedly, answered already (101, by its requestId): for the log. */
export class RequestFailedError extends Error {
  override name = 'RequestFailedError'
}

/**
 * Connections whose sockets are corked, let go a slice at a time in the order they were corked:
 * the first slice at the end of the tick, the rest one slice a turn (`nextTurn`). Two of them:
 * `endOfTurn` below lets every connection go at once (a turn's replies leave in one write), and
 * each server's fan-out queue lets a broadcast's subscribers go 1,000 a turn: writing one frame
 * to each of 10,000 sockets takes 65-110 ms, and a request read meanwhile is answered between
 * two slices instead of after all of them (a connection waiting for its slice is let go at the
 * end of the turn when it is sent a reply: see WsConnection.#cork).
 */
export class UncorkQueue {
  readonly #sliceConnections: number
  readonly #nextTurn: (run: () => void) => void
  #queue: WsConnection[] = []
  #scheduled = false

  /** `nextTurn` runs the next slice (tests slow it down to watch what happens in between). */
  constructor(sliceConnections: number, nextTurn: (run: () => void) => void = setImmediate) {
    this.#sliceConnections = sliceConnections
    this.#nextTurn = nextTurn
  }

  /** Connections waiting for their slice (one let go early by a reply still counts). */
  get waiting(): number {
    return this.#queue.length
  }

  /** Queues a connection just corked; it is uncorked when its slice comes. */
  add(connection: WsConnection): void {
    this.#queue.push(connection)
    if (this.#scheduled) return
    this.#scheduled = true
    process.nextTick(() => this.#slice())
  }

  #slice(): void {
    // Taken off the queue first: broadcasts go on adding to it (trades on every commit), and
    // what was let go must not stay behind in it.
    const slice =
      this.#queue.length <= this.#sliceConnections
        ? this.#queue
        : this.#queue.splice(0, this.#sliceConnections)
    if (slice === this.#queue) this.#queue = []
    try {
      for (const connection of slice) connection.uncork()
    } finally {
      // Whatever happened in this slice, the rest of the queue is not left corked.
      if (this.#queue.length > 0) this.#nextTurn(() => this.#slice())
      else this.#scheduled = false
    }
  }
}

/**
 * Connections whose writes are held until the end of the current tick (see #cork); those corked
 * while it lets them go (a write's callback sending again) wait for the next tick.
 */
const endOfTurn = new UncorkQueue(Number.POSITIVE_INFINITY, (run) => process.nextTick(run))

/**
 * A text message as one WebSocket frame (RFC 6455 §5.2: FIN and the text opcode, the payload
 * length in 7, 7+16 or 7+64 bits; a server's frames are not masked), built once for all the
 * subscribers of a broadcast: each of them then costs one write of the same bytes.
 */
export function frameText(text: string): Buffer {
  const payload = Buffer.from(text)
  const length = payload.length
  const headerBytes = length < 126 ? 2 : length < 65_536 ? 4 : 10
  const frame = Buffer.allocUnsafe(headerBytes + length)
  frame[0] = 0x81
  if (headerBytes === 2) frame[1] = length
  else if (headerBytes === 4) {
    frame[1] = 126
    frame.writeUInt16BE(length, 2)
  } else {
    frame[1] = 127
    frame.writeBigUInt64BE(BigInt(length), 2)
  }
  payload.copy(frame, headerBytes)
  return frame
}

/** A market's book events held back while getBooks of it are answered, in nonce order. */
type HeldBook = { answers: number; frames: { nonce: number; frame: Buffer }[]; bytes: number }

/** Bytes queued for a client before it counts as a slow consumer and is disconnected. */
export const sendBufferBytesMax = 4 * 1024 * 1024

const wsActionNames: ReadonlySet<string> = new Set(wsActions)
const isWsAction = (action: string): boolean => wsActionNames.has(action)

/** What a browser session may do: everything but withdraw (that needs an API key with it). */
const sessionPermissions: readonly Permission[] = ['view', 'trade']

/** Weight of a subscribe/unsubscribe or authenticate request (not in the REST table). */
const controlWeight = 1

export class WsConnection {
  readonly #socket: WebSocket
  readonly #deps: WsDeps
  readonly #ip: string
  readonly subscriptions = new ConnectionSubscriptions()
  caller: Caller
  /** The credential the caller authenticated with: an API key, or a session's token hash. */
  #apiKey: string | undefined
  #sessionHash: string | undefined
  /** When the session authenticated with ends (never for an API key). */
  #authExpiresAtMs = Number.POSITIVE_INFINITY
  /** Requests that arrive while authenticating wait for it, so they see its outcome, in order. */
  #authenticating: Promise<void> | undefined
  /**
   * Credentials revoked while an authenticate was looking its own up: the one it found may be
   * among them (a logout at that moment must not leave the socket authenticated).
   */
  #revokedWhileAuthenticating: RevokedCredential[] = []
  /** Whose the cork on the socket is: the end of this turn's (#cork), or a fan-out slice's. */
  #corked: false | 'turn' | 'fanOut' = false
  /** Book events held back while a getBook of their market is answered (see #holdBook). */
  #heldBooks: Map<string, HeldBook> | undefined

  constructor(socket: WebSocket, ip: string, deps: WsDeps) {
    this.#socket = socket
    this.#ip = ip
    this.#deps = deps
  }

  /**
   * Sends unless the client reads too slowly: past `sendBufferBytesMax` queued bytes the
   * connection is closed (1008) instead of delaying everyone else or growing without bound.
   */
  send(text: string): void {
    if (!this.#admit()) return
    this.#cork()
    this.#socket.send(text, { binary: false })
  }

  /**
   * Sends a frame made by `frameText`, as `send` does, written to the socket as it is. The
   * server offers no extension (no compression), so ws would put these same bytes on the wire;
   * writes stay in order with its own, as both are synchronous.
   */
  sendFrame(frame: Buffer): void {
    if (!this.#admit()) return
    const raw = this.#raw()
    if (raw === undefined) return
    this.#corkForFanOut(raw)
    raw.write(frame)
  }

  /**
   * Sends a `book` event framed by `frameText`, as `sendFrame` does, unless a getBook of its
   * market is being answered: it then waits to go out on the right side of the answer.
   */
  sendBookFrame(frame: Buffer, market: string, nonce: number): void {
    const held = this.#heldBooks?.get(market)
    if (held === undefined) {
      this.sendFrame(frame)
      return
    }
    // Nothing more for a socket closing (a slow consumer cut off waits for its close frame).
    if (this.#socket.readyState !== this.#socket.OPEN) return
    held.frames.push({ nonce, frame })
    held.bytes += frame.length
    // Held only for the few turns an answer waits for its commit; a client whose events pile
    // up meanwhile is as slow a consumer as one whose send buffer is full.
    if (held.bytes > sendBufferBytesMax) this.#socket.close(1008, 'slow consumer: send buffer full')
  }

  /** Whether a message may be sent now; a slow consumer is disconnected instead. */
  #admit(): boolean {
    if (this.#socket.readyState !== this.#socket.OPEN) return false
    if (this.#socket.bufferedAmount > sendBufferBytesMax) {
      this.#socket.close(1008, 'slow consumer: send buffer full')
      return false
    }
    return true
  }

  /** The TCP socket under the WebSocket (ws keeps it as `_socket`). */
  #raw(): Duplex | undefined {
    return (this.#socket as unknown as { _socket?: Duplex })._socket
  }

  /**
   * Holds this connection's writes until the current burst of work is done, so that all the
   * messages one turn of the event loop sends it (the replies of a group commit, a book flush
   * for several markets) leave in one write instead of one system call each: on loopback,
   * each of those cost more than building the message.
   */
  #cork(): void {
    if (this.#corked === 'turn') return
    if (this.#corked === false) {
      const raw = this.#raw()
      if (raw === undefined) return
      raw.cork()
    }
    // A connection waiting for a fan-out slice is let go with this turn's writes: its reply
    // goes at the end of the turn, after the broadcast held for it, not after the slices of
    // everyone before it. Its entry stays in the queue: by its slice the connection is let go
    // already, or corked again, and then let go early; either way its writes stay in order.
    this.#corked = 'turn'
    endOfTurn.add(this)
  }

  /**
   * As #cork, for a broadcast's write: the connection waits in the fan-out queue for its slice.
   * Everything sent to a connection goes through the one corked stream, so whatever is sent to
   * it later, a reply included, leaves after what was sent before, whenever the cork is lifted.
   */
  #corkForFanOut(raw: Duplex): void {
    if (this.#corked) return
    this.#corked = 'fanOut'
    raw.cork()
    this.#deps.fanOut.add(this)
  }

  /** Lets the writes held by #cork go. */
  uncork(): void {
    if (!this.#corked) return
    this.#corked = false
    this.#raw()?.uncork()
  }

  /**
   * Gives up the caller when it authenticated with `credential`, just revoked (a logout, a
   * revoked key): what it sends next is answered as from an unauthenticated connection.
   */
  revoke(credential: RevokedCredential): void {
    if (this.#authenticating !== undefined) this.#revokedWhileAuthenticating.push(credential)
    const held = credential.kind === 'key' ? this.#apiKey : this.#sessionHash
    if (
      held !== undefined &&
      held === (credential.kind === 'key' ? credential.key : credential.tokenHash)
    )
      this.#unauthenticate()
  }

  /** The hash of the browser session the socket authenticated with (none for an API key). */
  get sessionHash(): string | undefined {
    return this.#sessionHash
  }

  /**
   * Ends the authentication when its session has run out by `nowMs` (the account sweep calls it,
   * so that a socket that only listens stops hearing of the account too); whether it did.
   */
  expireSession(nowMs: number): boolean {
    if (nowMs < this.#authExpiresAtMs) return false
    this.#unauthenticate()
    return true
  }

  /**
   * Forgets the caller and tells the client with the `unauthenticate` event, which the trading
   * app shows as a session that has ended (spec §8, code 401).
   */
  #unauthenticate(): void {
    if (this.#forgetCaller()) this.send(JSON.stringify({ event: 'unauthenticate' }))
  }

  /**
   * Forgets the caller, and with it the account channel (re-indexed without an account);
   * whether there was one.
   */
  #forgetCaller(): boolean {
    if (this.caller === undefined) return false
    this.caller = undefined
    // Its account channel goes too: it is no longer listed, and does not carry over to the
    // next account the socket authenticates as.
    this.subscriptions.dropAccount()
    this.#apiKey = undefined
    this.#sessionHash = undefined
    this.#authExpiresAtMs = Number.POSITIVE_INFINITY
    this.#deps.onSubscriptionsChanged?.(this)
    return true
  }

  async onMessage(text: string): Promise<void> {
    // Requests wait for an authenticate in flight, whatever its outcome: one that failed was
    // answered by its own requestId, and must not fail the requests behind it too.
    while (this.#authenticating) await this.#authenticating.catch(() => undefined)
    // A session that has run out since it authenticated the connection ends here, before
    // anything is charged to or done for its account.
    const nowMs = this.#deps.nowMs()
    if (nowMs >= this.#authExpiresAtMs) this.#unauthenticate()
    // Every message costs at least one point, charged before any parsing: malformed floods too.
    // (A banned caller's message is still parsed, at most 64 KiB, to answer it by its id.)
    const caller = this.#apiKey ? `key:${this.#apiKey}` : `ip:${this.#ip}`
    const first = this.#deps.rateLimiter.charge(caller, controlWeight, nowMs)
    let message: unknown
    try {
      message = JSON.parse(text)
    } catch {
      message = undefined
    }
    if (typeof message !== 'object' || message === null || Array.isArray(message)) {
      const refusal = first.allowed
        ? protocolError(102)
        : protocolError(105, { expiryInMs: first.bannedUntilMs })
      this.send(JSON.stringify(refusal.body))
      return
    }
    const record = message as Record<string, unknown>
    const action = typeof record.action === 'string' ? record.action : undefined
    // Every reply to a request carries the requestId it was accepted with: a client matching
    // replies by id would otherwise wait for one that never comes, and may send it again.
    const accepted = requestIdSchema.safeParse(record.requestId)
    const requestIdText = accepted.success ? requestIdEcho(text, accepted.data) : undefined
    // Whether the request has had its reply (set by `#handle` and `fail` once it is sent).
    const progress = { answered: false }
    const fail = (reply: ProtocolErrorReply): void => {
      // A failed authenticate leaves no one authenticated, whatever failed: a client switching
      // accounts must not go on trading as the first one. Its error reply says enough.
      if (action === 'authenticate') this.#forgetCaller()
      // Like the live API, echo the request's fields that name what it was about (its market,
      // its order), so a client can tell which one failed: ccxt files the error of an order's
      // update, cancel or read under its orderId, and without one fails every call waiting on
      // the connection.
      const echoed: Record<string, string> = {}
      for (const field of echoedFields) {
        const value = record[field]
        if (typeof value === 'string' && value.length <= echoedLengthMax) echoed[field] = value
      }
      this.send(encodeWsMessage({ action, ...echoed, ...reply.body }, requestIdText))
      progress.answered = true
    }
    if (accepted.success && requestIdText === undefined) {
      fail(protocolError(205, { param: 'requestId' }))
      return
    }
    // A banned caller's requests are answered like any failed request (its action and
    // requestId), so that a client waiting on that id is not left waiting (ccxt matches by it).
    if (!first.allowed) {
      fail(protocolError(105, { expiryInMs: first.bannedUntilMs }))
      return
    }

    // As over REST: the call's weight is charged, and a private one needs an authenticated
    // caller, before its parameters are checked, so the same call gets the same answer (300
    // for a private call from a socket that has not authenticated, whatever its parameters).
    // Only a WebSocket action: a REST-only one (cancel-on-disconnect) is unknown here, 415 for
    // anyone, not 300 for a socket that has not authenticated.
    const endpoint =
      action !== undefined && isWsAction(action) ? endpointOfAction.get(action) : undefined
    const weight = endpoint ? restEndpointWeight(endpoint, record) : controlWeight
    const decision = this.#deps.rateLimiter.charge(
      caller,
      Math.max(0, weight - controlWeight),
      this.#deps.nowMs(),
    )
    if (!decision.allowed) {
      fail(protocolError(105, { expiryInMs: decision.bannedUntilMs }))
      return
    }
    if (endpoint?.auth === 'private' && this.caller === undefined) {
      fail(protocolError(300))
      return
    }
    const parsed = safeParse(wsRequest, message, { location: 'ws' })
    if (!parsed.success) {
      fail({ status: parsed.error.status, body: parsed.error.body })
      return
    }
    const request = parsed.data
    try {
      await this.#handle(request, fail, requestIdText, progress)
    } catch (error) {
      // A fault past the checks (the storage, say): the client hears its request failed, by its
      // action and requestId (a failed authenticate leaving no one authenticated, as any
      // other), unless it was answered already (a subscribe whose first push failed: one
      // reply to a requestId; an error reply that failed before it was sent, a refused
      // authenticate whose forgetting of the caller threw, was not), and the server's log gets
      // the error.
      if (!progress.answered) fail(protocolError(101))
      throw new RequestFailedError(`${request.action} failed`, { cause: error })
    }
  }

  /** Answers `request`; sets `progress.answered` once a reply is sent (an error through `fail`). */
  async #handle(
    request: ParsedWsRequest,
    fail: (reply: ProtocolErrorReply) => void,
    requestIdText: string | undefined,
    progress: { answered: boolean },
  ): Promise<void> {
    switch (request.action) {
      case 'authenticate': {
        const authenticating = this.#authenticate(request, fail)
        this.#authenticating = authenticating
        try {
          await authenticating
        } finally {
          if (this.#authenticating === authenticating) this.#authenticating = undefined
        }
        return
      }
      case 'subscribe':
      case 'unsubscribe': {
        const channels = request.channels as SubscriptionChannel[]
        const refusal = this.#checkChannels(channels, request.action === 'subscribe')
        if (refusal) {
          fail(refusal)
          return
        }
        try {
          if (request.action === 'subscribe') this.subscriptions.subscribe(channels)
          else {
            this.subscriptions.unsubscribe(channels)
            this.#dropUnsubscribedHeldBooks()
          }
        } catch (error) {
          if (!(error instanceof TooManySubscriptionsError)) throw error
          fail(protocolError(205, { param: 'channels' }))
          return
        }
        this.#deps.onSubscriptionsChanged?.(this)
        const event = request.action === 'subscribe' ? 'subscribed' : 'unsubscribed'
        this.send(JSON.stringify({ event, subscriptions: this.subscriptions.describe() }))
        progress.answered = true
        if (request.action === 'subscribe') this.#deps.afterSubscribe?.(this, channels)
        return
      }
      default: {
        const {
          action: _action,
          requestId: _requestId,
          ...params
        } = request as Record<string, unknown>
        const bookMarket =
          request.action === 'getBook' && typeof params.market === 'string'
            ? params.market
            : undefined
        if (bookMarket !== undefined) this.#holdBook(bookMarket)
        try {
          const result = await this.#deps.actions.run(request.action, params, this.caller)
          if (result.ok) {
            if (bookMarket !== undefined)
              this.#sendHeldBooks(bookMarket, (result.response as { nonce: number }).nonce)
            this.send(
              encodeWsMessage({ action: request.action, response: result.response }, requestIdText),
            )
            progress.answered = true
          } else fail(result)
        } finally {
          if (bookMarket !== undefined) this.#unholdBook(bookMarket)
        }
      }
    }
  }

  /**
   * Holds back this connection's book events of `market` until a getBook of it is answered.
   * The snapshot (nonce N) is taken as the request arrives, and the answer waits for the commit
   * that makes it durable; the events of commands applied after the snapshot (N + 1 on) can be
   * made durable in that same commit and published while the answer is still on its way to the
   * socket. The SDK (protocol §6.4) ignores the events that come before its answer and starts
   * from N + 1 after it: let through first, N + 1 would be lost to it and count as a gap.
   */
  #holdBook(market: string): void {
    this.#heldBooks ??= new Map()
    const held = this.#heldBooks.get(market)
    if (held === undefined) this.#heldBooks.set(market, { answers: 1, frames: [], bytes: 0 })
    else held.answers += 1
  }

  /** Sends the held book events of `market` up to `nonceMax`: those an answer shows. */
  #sendHeldBooks(market: string, nonceMax: number): void {
    const held = this.#heldBooks?.get(market)
    if (held === undefined) return
    const later: HeldBook['frames'] = []
    for (const event of held.frames)
      if (event.nonce <= nonceMax) this.sendFrame(event.frame)
      else later.push(event)
    held.frames = later
    held.bytes = later.reduce((bytes, event) => bytes + event.frame.length, 0)
  }

  /**
   * Forgets the held book events of markets no longer subscribed: held for a getBook answer,
   * they would otherwise go out after the `unsubscribed` answer, to a client that has dropped
   * that book.
   */
  #dropUnsubscribedHeldBooks(): void {
    for (const [market, held] of this.#heldBooks ?? []) {
      if (this.subscriptions.has('book', market)) continue
      held.frames = []
      held.bytes = 0
    }
  }

  /** One answer of `market` has gone (or failed); after the last one, the held events go too. */
  #unholdBook(market: string): void {
    const books = this.#heldBooks
    const held = books?.get(market)
    if (books === undefined || held === undefined) return
    held.answers -= 1
    if (held.answers > 0) return
    books.delete(market)
    if (books.size === 0) this.#heldBooks = undefined
    for (const event of held.frames) this.sendFrame(event.frame)
  }

  async #authenticate(
    request: AuthenticateRequest,
    fail: (reply: ProtocolErrorReply) => void,
  ): Promise<void> {
    this.#revokedWhileAuthenticating = []
    // What the socket will hold, taken on only once the account is warm and the credential was
    // not revoked meanwhile: until then the socket keeps what it held (a revocation of that
    // ends it as usual).
    let credential: RevokedCredential
    let expiresAtMs = Number.POSITIVE_INFINITY
    let caller: Caller
    if (request.token !== undefined) {
      // A browser session from login: the trading app's way in (never withdrawals).
      const session = await this.#deps.findSession(request.token)
      if (session === undefined) {
        fail(protocolError(313))
        return
      }
      credential = { kind: 'session', tokenHash: session.tokenHash }
      expiresAtMs = session.expiresAtMs
      caller = { accountId: session.accountId, permissions: sessionPermissions }
    } else {
      // The schema guarantees key, signature and timestamp when there is no token.
      const result = await verifySignedRequest(
        websocketSignedRequest(
          request.key!,
          request.signature!,
          request.timestamp!,
          request.window,
        ),
        this.#deps.nowMs(),
        this.#deps.findApiKey,
        undefined,
      )
      if (!result.ok) {
        fail(protocolError(result.errorCode))
        return
      }
      credential = { kind: 'key', key: result.apiKey.key }
      caller = { accountId: result.apiKey.accountId, permissions: result.apiKey.permissions }
    }
    await this.#deps.warmAccount?.(caller.accountId)
    // Revoked while it was looked up or the account warmed: refused as a revoked credential is.
    const revoked = this.#revokedWhileAuthenticating.some((seen) =>
      seen.kind === 'key'
        ? credential.kind === 'key' && seen.key === credential.key
        : credential.kind === 'session' && seen.tokenHash === credential.tokenHash,
    )
    this.#revokedWhileAuthenticating = []
    if (revoked) {
      fail(protocolError(credential.kind === 'key' ? 305 : 313))
      return
    }
    this.#apiKey = credential.kind === 'key' ? credential.key : undefined
    this.#sessionHash = credential.kind === 'session' ? credential.tokenHash : undefined
    this.#authExpiresAtMs = expiresAtMs
    // Another account's events are subscribed to anew: the channel was the earlier account's.
    if (this.caller !== undefined && this.caller.accountId !== caller.accountId)
      this.subscriptions.dropAccount()
    this.caller = caller
    this.#deps.onSubscriptionsChanged?.(this)
    this.send(JSON.stringify({ event: 'authenticate', authenticated: true }))
  }

  #checkChannels(
    channels: readonly SubscriptionChannel[],
    subscribing: boolean,
  ): ProtocolErrorReply | undefined {
    for (const channel of channels) {
      if (channel.name === 'account' && subscribing && this.caller === undefined)
        return protocolError(300)
      if (channel.markets === '*') continue
      for (const market of channel.markets) {
        if (!this.#deps.marketExists(market)) return protocolError(205, { param: 'market' })
      }
    }
    return undefined
  }
}
