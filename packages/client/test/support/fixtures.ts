import type { BookResponse, FillEvent, OrderEvent } from '@polder/protocol'
import type { Logger } from '../../src/index.ts'

export type LogEntry = { level: 'debug' | 'warn' | 'error'; message: string; details: unknown }

export function recordingLogger(): Logger & { entries: LogEntry[] } {
  const entries: LogEntry[] = []
  return {
    entries,
    debug: (message, details) => entries.push({ level: 'debug', message, details }),
    warn: (message, details) => entries.push({ level: 'warn', message, details }),
    error: (message, details) => entries.push({ level: 'error', message, details }),
  }
}

/** Timers that delegate to the (possibly faked) globals at call time. */
export { globalTimers as testTimers } from '../../src/index.ts'

export function sequentialIds(prefix = 'event'): () => string {
  let next = 0
  return () => {
    next += 1
    return `${prefix}-${next}`
  }
}

export function bookSnapshot(
  market: string,
  nonce: number,
  bids: [string, string][] = [['100', '1']],
  asks: [string, string][] = [['101', '1']],
): BookResponse {
  return { market, nonce, bids, asks }
}

export const orderId = '5f1c6b5e-8f3c-4f4e-9d1a-0a1b2c3d4e5f'
export const otherOrderId = '6a2d7c6f-9a4d-4a5f-8e2b-1b2c3d4e5f60'

export function orderEvent(overrides: Partial<OrderEvent> = {}): OrderEvent {
  return {
    event: 'order',
    orderId,
    market: 'BTC-EUR',
    created: 1_000,
    updated: 1_000,
    status: 'new',
    side: 'buy',
    orderType: 'limit',
    amount: '1',
    amountRemaining: '1',
    price: '30000',
    onHold: '30000',
    onHoldCurrency: 'EUR',
    timeInForce: 'GTC',
    postOnly: false,
    selfTradePrevention: 'decrementAndCancel',
    visible: true,
    ...overrides,
  }
}

export function fillEvent(overrides: Partial<FillEvent> = {}): FillEvent {
  return {
    event: 'fill',
    timestamp: 2_000,
    market: 'BTC-EUR',
    orderId,
    fillId: 'fill-1',
    side: 'buy',
    amount: '0.5',
    price: '30000',
    taker: true,
    fee: '3.75',
    feeCurrency: 'EUR',
    ...overrides,
  }
}

export const apiKey = 'k'.repeat(64)
export const signature = 'a'.repeat(64)
