import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest'
import { createConnectionStatusMonitor, globalTimers, systemClock } from '../src/index.ts'

// Spec §4, §9: connection status under fake timers (Date is faked too, so the clock follows).

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 })
})
afterEach(() => {
  vi.useRealTimers()
})

function monitor() {
  const status = createConnectionStatusMonitor({ timers: globalTimers, clock: systemClock })
  const read = () => status.store.getState()
  return { status, read }
}

describe('spec §4 connection status', () => {
  test('Initialised until started, then Connecting until the first update', () => {
    const { status, read } = monitor()
    expect(read()).toEqual({ status: 'Initialised', lastUpdate: undefined, checkCount: 0 })
    status.start()
    expect(read().status).toBe('Connecting')
    vi.advanceTimersByTime(5000)
    expect(read().status).toBe('Connecting')
  })

  test('a 0.5 s start poll waits for the first update, then Connected', () => {
    const { status, read } = monitor()
    status.start()
    vi.advanceTimersByTime(200)
    status.markUpdate()
    expect(read().status).toBe('Connecting')
    vi.advanceTimersByTime(299)
    expect(read().status).toBe('Connecting')
    vi.advanceTimersByTime(1)
    expect(read()).toEqual({ status: 'Connected', lastUpdate: 1_000_200, checkCount: 0 })
  })

  test('then a check every 2.1 s: a last update older than 3 s makes it Disconnecting and counts a check', () => {
    const { status, read } = monitor()
    status.start()
    status.markUpdate() // at 0
    vi.advanceTimersByTime(500) // start poll: Connected; checks every 2.1 s from here
    vi.advanceTimersByTime(2100) // check at 2.6 s: 2.6 s old, fresh enough
    expect(read()).toMatchObject({ status: 'Connected', checkCount: 0 })
    vi.advanceTimersByTime(2100) // check at 4.7 s: older than 3 s
    expect(read()).toMatchObject({ status: 'Disconnecting', checkCount: 1 })
    vi.advanceTimersByTime(2099)
    expect(read().checkCount).toBe(1)
    vi.advanceTimersByTime(1) // check at 6.8 s
    expect(read()).toMatchObject({ status: 'Disconnecting', checkCount: 2 })
  })

  test('after 3 checks it becomes Disconnected', () => {
    const { status, read } = monitor()
    status.start()
    status.markUpdate()
    vi.advanceTimersByTime(500 + 2100 * 3) // checks at 2.6 s (fresh), 4.7 s, 6.8 s
    expect(read()).toMatchObject({ status: 'Disconnecting', checkCount: 2 })
    vi.advanceTimersByTime(2100) // 8.9 s: third stale check
    expect(read()).toMatchObject({ status: 'Disconnected', checkCount: 3 })
  })

  test('a fresh update returns it to Connected', () => {
    const { status, read } = monitor()
    status.start()
    status.markUpdate()
    vi.advanceTimersByTime(500 + 2100 * 4)
    expect(read().status).toBe('Disconnected')
    status.markUpdate()
    expect(read()).toMatchObject({ status: 'Connected', checkCount: 0 })
    vi.advanceTimersByTime(2100)
    expect(read().status).toBe('Connected')
  })

  test('stop clears the timers', () => {
    const { status } = monitor()
    status.start()
    expect(vi.getTimerCount()).toBe(1)
    status.markUpdate()
    vi.advanceTimersByTime(500)
    expect(vi.getTimerCount()).toBe(1)
    status.stop()
    expect(vi.getTimerCount()).toBe(0)
  })
})
