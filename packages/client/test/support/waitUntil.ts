import { setTimeout as realDelay } from 'node:timers/promises'

// Waits for real I/O without touching the clock: vitest's `vi.waitFor` advances fake timers while
// it polls, which would break the timing rules under test. `node:timers/promises` is not faked.

export async function waitUntil(check: () => void, timeoutMs = 5000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    try {
      check()
      return
    } catch (error) {
      if (performance.now() > deadline) throw error
      await realDelay(5)
    }
  }
}
