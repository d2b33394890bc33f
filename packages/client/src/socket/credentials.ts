import type { AuthenticateRequest } from '@polder/protocol'
import { type Clock, systemClock } from '../environment.ts'

// Protocol §2.2: the WebSocket `authenticate` fields, signed with HMAC-SHA256 over
// `timestamp + 'GET' + '/v2/websocket'` through WebCrypto (browsers and Node alike). A fresh
// signature per call: the access window makes an old one useless after a reconnect.

export type AuthenticateCredentials = Omit<AuthenticateRequest, 'action' | 'requestId'>

export type CredentialsProvider = () => AuthenticateCredentials | Promise<AuthenticateCredentials>

function toHex(buffer: ArrayBuffer): string {
  let hex = ''
  for (const byte of new Uint8Array(buffer)) hex += byte.toString(16).padStart(2, '0')
  return hex
}

export async function signWebSocketAuthentication(
  secret: string,
  timestampMs: number,
): Promise<string> {
  const encoder = new TextEncoder()
  const key = await globalThis.crypto.subtle.importKey(
    'raw',
    encoder.encode(secret),
    { name: 'HMAC', hash: 'SHA-256' },
    false,
    ['sign'],
  )
  const signature = await globalThis.crypto.subtle.sign(
    'HMAC',
    key,
    encoder.encode(`${timestampMs}GET/v2/websocket`),
  )
  return toHex(signature)
}

/** A provider that signs with an API key and secret (scripts, bots, the integration suite). */
export function apiKeyCredentials(options: {
  key: string
  secret: string
  clock?: Clock
  windowMs?: number
}): CredentialsProvider {
  const clock = options.clock ?? systemClock
  return async () => {
    const timestamp = clock.now()
    const signature = await signWebSocketAuthentication(options.secret, timestamp)
    return options.windowMs === undefined
      ? { key: options.key, signature, timestamp }
      : { key: options.key, signature, timestamp, window: options.windowMs }
  }
}

/**
 * A provider for the trading app: the session token from login (`POST /exchange/auth/v1/login`),
 * read again at every (re)connect so a renewed login is picked up. No API secret in a browser.
 */
export function sessionCredentials(token: string | (() => string)): CredentialsProvider {
  return () => ({ token: typeof token === 'string' ? token : token() })
}
