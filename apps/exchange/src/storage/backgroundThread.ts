// The server's background threads (the journal's checkpoints, the archives' writes) give
// way to its event loop: each runs at a lower priority (nice 10 by default), so it gets a CPU when
// the event loop does not want one, and does not take the loop's CPU when it wakes. Its work
// comes in bursts (a 200 ms batch of closed orders is 5-15 ms of inserts, a checkpoint copies a
// second's log) that, at the same priority, the kernel may run on the loop's CPU while requests
// wait there. POLDER_BACKGROUND_NICE sets the value (0 to 19; checked by the configuration at
// start, src/config.ts).
import { setPriority } from 'node:os'

export const backgroundNiceDefault = 10

/** The nice value POLDER_BACKGROUND_NICE asks for, or an error saying what is wrong with it. */
export function backgroundNiceOf(text: string | undefined): number | Error {
  if (text === undefined || text === '') return backgroundNiceDefault
  const value = /^\d+$/.test(text) ? Number(text) : Number.NaN // not `0x10` nor `1e1`
  return Number.isInteger(value) && value >= 0 && value <= 19
    ? value
    : new Error(`POLDER_BACKGROUND_NICE must be a whole number from 0 to 19, got "${text}"`)
}

const configured = backgroundNiceOf(process.env.POLDER_BACKGROUND_NICE)
export const backgroundThreadNice = configured instanceof Error ? backgroundNiceDefault : configured

/**
 * Lowers the calling thread's priority to `backgroundThreadNice`. Only on Linux, where a thread
 * has a priority of its own; elsewhere this would lower the whole process.
 */
export function yieldToEventLoop(): void {
  if (process.platform !== 'linux') return
  try {
    setPriority(backgroundThreadNice)
  } catch {
    // Lowering is always allowed; a sandbox that forbids it leaves the thread as it was.
  }
}
