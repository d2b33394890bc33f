import { z } from 'zod'
import { assetSymbol, decimalString, positiveDecimalString } from '../primitives.ts'
import type { WsEventName } from '../ws/wsEvent.ts'
import { wsEventSchemas } from '../ws/wsEvent.ts'
import {
  bookChannel,
  requestId,
  type SubscribeRequest,
  type UnsubscribeRequest,
  type WsAction,
  wsRequests,
} from '../ws/wsRequest.ts'
import { type WsResponseAction, wsResponses } from '../ws/wsResponse.ts'

// The socket names of the spec (§7) mapped onto the protocol (§6). Most are protocol actions and
// events under the same name. The differences:
// - `subscribeToBook` / `unsubscribeFromBook` are the client's names for a protocol `subscribe` /
//   `unsubscribe` whose channels are all `book` channels; on the wire they are sent as those.
// - "get24h ticker" is the protocol's `getTicker24h`.
// - `update`, `mobileUpdate` and `unauthenticate` are not protocol events; their schemas are
//   defined here. They are never sent to v2 API clients (the SDK and ccxt), only to Polder's own
//   clients that ask for them.
// - The spec's store actions `clearTrades` and `resetTicker24h` never leave the client.

// --- actions -----------------------------------------------------------------------------------

const bookChannels = z.array(bookChannel).min(1)

/** `subscribeToBook` on the wire: a protocol subscribe with book channels only. */
export const subscribeToBookRequest = z.strictObject({
  action: z.literal('subscribe'),
  requestId: requestId.optional(),
  channels: bookChannels,
})
/** `unsubscribeFromBook` on the wire: a protocol unsubscribe with book channels only. */
export const unsubscribeFromBookRequest = z.strictObject({
  action: z.literal('unsubscribe'),
  requestId: requestId.optional(),
  channels: bookChannels,
})

/** The protocol message for the spec's `subscribeToBook` / `unsubscribeFromBook`. */
export function toProtocolBookSubscription(
  specAction: 'subscribeToBook',
  markets: readonly string[],
): SubscribeRequest
export function toProtocolBookSubscription(
  specAction: 'unsubscribeFromBook',
  markets: readonly string[],
): UnsubscribeRequest
export function toProtocolBookSubscription(
  specAction: 'subscribeToBook' | 'unsubscribeFromBook',
  markets: readonly string[],
): SubscribeRequest | UnsubscribeRequest {
  const channels = [{ name: 'book' as const, markets: [...markets] }]
  return specAction === 'subscribeToBook'
    ? { action: 'subscribe', channels }
    : { action: 'unsubscribe', channels }
}

export type SpecSocketAction = {
  /** The action on the wire. */
  readonly protocolAction: WsAction
  /** Schema of the message sent. */
  readonly request: z.ZodType
  /** Schema of the `response` of the reply, when the reply is an action response. */
  readonly response: z.ZodType | undefined
  /** The event that answers it, when the reply is an event. */
  readonly replyEvent: WsEventName | undefined
}

function same<const Action extends WsResponseAction>(action: Action) {
  return {
    protocolAction: action,
    request: wsRequests[action],
    response: wsResponses[action],
    replyEvent: undefined,
  } as const
}

/** Every socket action the spec's client sends (spec §7), keyed by the spec's name. */
export const specSocketActions = {
  authenticate: {
    protocolAction: 'authenticate',
    request: wsRequests.authenticate,
    response: undefined,
    replyEvent: 'authenticate',
  },
  getAssets: same('getAssets'),
  getMarkets: same('getMarkets'),
  getBook: same('getBook'),
  subscribeToBook: {
    protocolAction: 'subscribe',
    request: subscribeToBookRequest,
    response: undefined,
    replyEvent: 'subscribed',
  },
  unsubscribeFromBook: {
    protocolAction: 'unsubscribe',
    request: unsubscribeFromBookRequest,
    response: undefined,
    replyEvent: 'unsubscribed',
  },
  getTrades: same('getTrades'),
  privateGetTrades: same('privateGetTrades'),
  privateGetBalance: same('privateGetBalance'),
  privateGetOrdersOpen: same('privateGetOrdersOpen'),
  privateCreateOrder: same('privateCreateOrder'),
  privateCancelOrder: same('privateCancelOrder'),
  /** Fees; sent right after a successful authenticate. */
  privateGetAccount: same('privateGetAccount'),
  getTime: same('getTime'),
  /** The spec's "get24h ticker". */
  getTicker24h: same('getTicker24h'),
  subscribe: {
    protocolAction: 'subscribe',
    request: wsRequests.subscribe,
    response: undefined,
    replyEvent: 'subscribed',
  },
  unsubscribe: {
    protocolAction: 'unsubscribe',
    request: wsRequests.unsubscribe,
    response: undefined,
    replyEvent: 'unsubscribed',
  },
} as const satisfies Record<string, SpecSocketAction>

export type SpecSocketActionName = keyof typeof specSocketActions

// --- events ------------------------------------------------------------------------------------

/** Assets one price update may carry. */
export const priceUpdateAssetsMax = 1000

/**
 * `update`: the price update map of spec §3, keyed by asset symbol; the value is
 * `[lastPrice, change24h]` (change in percent, e.g. `"-1.25"`).
 */
export const priceUpdateEvent = z.object({
  event: z.literal('update'),
  data: z.record(assetSymbol, z.tuple([positiveDecimalString, decimalString])),
})
export type PriceUpdateEvent = z.infer<typeof priceUpdateEvent>

/** `mobileUpdate`: the same map with only the last price as first (and only) element. */
export const mobilePriceUpdateEvent = z.object({
  event: z.literal('mobileUpdate'),
  data: z.record(assetSymbol, z.tuple([positiveDecimalString])),
})
export type MobilePriceUpdateEvent = z.infer<typeof mobilePriceUpdateEvent>

/**
 * `unauthenticate`: the session's authentication ended (expired or revoked). The client records
 * errorCode 401 (`unauthenticatedErrorCode`) and shows hermes_auth_invalid_session. No `error`
 * key: both v2 clients treat any message with one as an error reply.
 */
export const unauthenticateEvent = z.object({
  event: z.literal('unauthenticate'),
  reason: z.string().optional(),
})
export type UnauthenticateEvent = z.infer<typeof unauthenticateEvent>

export type SpecSocketEvent = {
  /** The protocol event of the same name, or undefined for a Polder-only event. */
  readonly protocolEvent: WsEventName | undefined
  readonly schema: z.ZodType
}

/** Every socket event the spec's client handles (spec §7), keyed by the spec's name. */
export const specSocketEvents = {
  update: { protocolEvent: undefined, schema: priceUpdateEvent },
  mobileUpdate: { protocolEvent: undefined, schema: mobilePriceUpdateEvent },
  ticker24h: { protocolEvent: 'ticker24h', schema: wsEventSchemas.ticker24h },
  unsubscribed: { protocolEvent: 'unsubscribed', schema: wsEventSchemas.unsubscribed },
  authenticate: { protocolEvent: 'authenticate', schema: wsEventSchemas.authenticate },
  unauthenticate: { protocolEvent: undefined, schema: unauthenticateEvent },
  subscribed: { protocolEvent: 'subscribed', schema: wsEventSchemas.subscribed },
  book: { protocolEvent: 'book', schema: wsEventSchemas.book },
  order: { protocolEvent: 'order', schema: wsEventSchemas.order },
  fill: { protocolEvent: 'fill', schema: wsEventSchemas.fill },
} as const satisfies Record<string, SpecSocketEvent>

export type SpecSocketEventName = keyof typeof specSocketEvents

/** Any event a Polder client handles: every protocol event plus the Polder-only ones. */
export const clientSocketEvent = z.discriminatedUnion('event', [
  wsEventSchemas.subscribed,
  wsEventSchemas.unsubscribed,
  wsEventSchemas.book,
  wsEventSchemas.trade,
  wsEventSchemas.candle,
  wsEventSchemas.ticker,
  wsEventSchemas.ticker24h,
  wsEventSchemas.order,
  wsEventSchemas.fill,
  wsEventSchemas.authenticate,
  priceUpdateEvent,
  mobilePriceUpdateEvent,
  unauthenticateEvent,
])
export type ClientSocketEvent = z.infer<typeof clientSocketEvent>
