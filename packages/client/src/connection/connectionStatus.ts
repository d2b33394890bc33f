import { createStore, type StoreApi } from 'zustand/vanilla'
import type { Clock, TimerHandle, Timers } from '../environment.ts'

// Spec §4, §9: the connection status the UI shows, from the age of the last update received.
// Started, it polls every 0.5 s until the first update, then checks every 2.1 s: an update older
// than 3 s makes it Disconnecting and counts a check; after 3 such checks it is Disconnected. A
// fresh update makes it Connected again at once.

export type ConnectionStatus =
  | 'Initialised'
  | 'Connecting'
  | 'Connected'
  | 'Disconnecting'
  | 'Disconnected'

export const connectionStartPollMs = 500
export const connectionCheckIntervalMs = 2100
export const connectionStaleAfterMs = 3000
export const connectionChecksMax = 3

export type ConnectionStatusState = {
  readonly status: ConnectionStatus
  /** ms of the last update, undefined before the first. */
  readonly lastUpdate: number | undefined
  readonly checkCount: number
}

export type ConnectionStatusMonitor = {
  readonly store: StoreApi<ConnectionStatusState>
  /** Begin watching (Connecting until the first update). */
  start(): void
  /** An update arrived. */
  markUpdate(): void
  stop(): void
}

export function createConnectionStatusMonitor(options: {
  timers: Timers
  clock: Clock
}): ConnectionStatusMonitor {
  const { timers, clock } = options
  const store = createStore<ConnectionStatusState>()(() => ({
    status: 'Initialised',
    lastUpdate: undefined,
    checkCount: 0,
  }))
  let startPoll: TimerHandle | undefined
  let check: TimerHandle | undefined

  const clearTimers = (): void => {
    if (startPoll !== undefined) timers.clearInterval(startPoll)
    if (check !== undefined) timers.clearInterval(check)
    startPoll = undefined
    check = undefined
  }

  const runCheck = (): void => {
    const { lastUpdate, checkCount } = store.getState()
    if (lastUpdate === undefined) return
    if (clock.now() - lastUpdate > connectionStaleAfterMs) {
      const checks = checkCount + 1
      store.setState({
        status: checks >= connectionChecksMax ? 'Disconnected' : 'Disconnecting',
        checkCount: checks,
      })
    } else if (store.getState().status !== 'Connected') {
      store.setState({ status: 'Connected', checkCount: 0 })
    }
  }

  const startChecks = (): void => {
    if (startPoll !== undefined) timers.clearInterval(startPoll)
    startPoll = undefined
    check = timers.setInterval(runCheck, connectionCheckIntervalMs)
  }

  return {
    store,
    start() {
      clearTimers()
      store.setState({ status: 'Connecting', checkCount: 0 })
      startPoll = timers.setInterval(() => {
        if (store.getState().lastUpdate === undefined) return
        store.setState({ status: 'Connected', checkCount: 0 })
        startChecks()
      }, connectionStartPollMs)
    },
    markUpdate() {
      const state = store.getState()
      // A fresh update returns the status to Connected at once (not before the start poll saw one).
      if (check !== undefined && state.status !== 'Connected') {
        store.setState({ lastUpdate: clock.now(), status: 'Connected', checkCount: 0 })
      } else {
        store.setState({ lastUpdate: clock.now() })
      }
    },
    stop() {
      clearTimers()
    },
  }
}
