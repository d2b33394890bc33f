// The hub's bookkeeping of which books to flush, against a service that only records what is
// submitted to it (the rest of the path, with a real server, is in bookLeadingEdge.test.ts).
import type { EngineEvent } from '@polder/engine'
import { describe, expect, it } from 'vitest'
import { MarketDataHub } from '../src/api/marketDataHub.ts'
import type { CoreCommand, CoreOutcome } from '../src/core/exchangeCore.ts'
import type { ExchangeService, OutcomeListener } from '../src/core/exchangeService.ts'

const intervalMs = 20

/**
 * A service that applies nothing: it tells the hub of an outcome when asked to, and keeps every
 * command submitted; its engine has unpublished changes in the markets of `unpublished`.
 */
function recordingService(unpublished: readonly string[] = []) {
  const outcomeListeners: OutcomeListener[] = []
  const submitted: CoreCommand[] = []
  /** Run inside the next submit of a flushBook of this market, before it is applied. */
  const before = new Map<string, () => void>()
  const changed = (market: string): CoreOutcome => ({
    ok: true,
    events: [{ type: 'order', market } as unknown as EngineEvent],
  })
  const tell = (market: string) => {
    const command = { type: 'placeOrder', market } as unknown as CoreCommand
    for (const listener of outcomeListeners) listener(command, changed(market))
  }
  const service = {
    core: {
      engine: {
        marketIds: () => ['A-EUR', 'B-EUR'],
        hasUnpublishedChanges: (market: string) => unpublished.includes(market),
      },
    },
    onOutcome: (listener: OutcomeListener) => outcomeListeners.push(listener),
    onEvents: () => {},
    submit: async (command: CoreCommand): Promise<CoreOutcome> => {
      if (command.type === 'flushBook') {
        before.get(command.market)?.()
        before.delete(command.market)
      }
      submitted.push(command)
      return { ok: true, events: [] }
    },
  }
  const flushed = () =>
    submitted.flatMap((command) => (command.type === 'flushBook' ? [command.market] : []))
  return { service: service as unknown as ExchangeService, tell, before, flushed }
}

describe('the book flushes of the market data hub', () => {
  it('does not pass over a change made while the leading flushes are being submitted', async () => {
    const { service, tell, before, flushed } = recordingService()
    const hub = new MarketDataHub(service, () => 8, Date.now, { bookFlushIntervalMs: intervalMs })
    hub.start()
    try {
      // One task changes two quiet markets; B's flush is preceded by a change to A (as the
      // cancels of an expired cancel-on-disconnect countdown are, inside the flush's submit).
      before.set('B-EUR', () => tell('A-EUR'))
      tell('A-EUR')
      tell('B-EUR')
      await Promise.resolve()
      expect(flushed()).toEqual(['A-EUR', 'B-EUR'])
      // A's late change waits for the timer, which flushes it once half an interval has passed.
      await new Promise((resolve) => setTimeout(resolve, intervalMs * 4))
      expect(flushed()).toEqual(['A-EUR', 'B-EUR', 'A-EUR'])
    } finally {
      hub.stop()
    }
  })

  it('flushes at its first tick the changes a restored engine holds unpublished', async () => {
    const { service, flushed } = recordingService(['B-EUR'])
    const hub = new MarketDataHub(service, () => 8, Date.now, { bookFlushIntervalMs: intervalMs })
    hub.start()
    try {
      await new Promise((resolve) => setTimeout(resolve, intervalMs * 4))
      expect(flushed()).toEqual(['B-EUR'])
    } finally {
      hub.stop()
    }
  })

  it('flushes a busy market with the timer, not on each change', async () => {
    const { service, tell, flushed } = recordingService()
    const hub = new MarketDataHub(service, () => 8, Date.now, { bookFlushIntervalMs: intervalMs })
    hub.start()
    try {
      tell('A-EUR')
      for (let change = 0; change < 5; change += 1) {
        await Promise.resolve()
        tell('A-EUR')
      }
      await Promise.resolve()
      expect(flushed()).toEqual(['A-EUR'])
      await new Promise((resolve) => setTimeout(resolve, intervalMs * 4))
      expect(flushed()).toEqual(['A-EUR', 'A-EUR'])
    } finally {
      hub.stop()
    }
  })
})
