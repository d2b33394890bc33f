// Standard WebSocket close codes (RFC 6455 §7.4.1 and the IANA registry). Spec §8: used for debug
// logging only.

export const closeCodeDescriptions: Readonly<Record<number, string>> = {
  1000: 'Normal Closure',
  1001: 'Going Away',
  1002: 'Protocol Error',
  1003: 'Unsupported Data',
  1004: 'Reserved',
  1005: 'No Status Received',
  1006: 'Abnormal Closure',
  1007: 'Invalid Frame Payload Data',
  1008: 'Policy Violation',
  1009: 'Message Too Big',
  1010: 'Mandatory Extension',
  1011: 'Internal Error',
  1012: 'Service Restart',
  1013: 'Try Again Later',
  1014: 'Bad Gateway',
  1015: 'TLS Handshake',
}

export function describeCloseCode(code: number): string {
  const known = closeCodeDescriptions[code]
  if (known !== undefined) return known
  if (code >= 3000 && code <= 3999) return 'Registered Library Code'
  if (code >= 4000 && code <= 4999) return 'Private Use Code'
  return 'Unknown Close Code'
}
