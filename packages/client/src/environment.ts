// The outside world the client touches, injected so that tests run with fake timers, seeded
// randomness and real sockets (STYLE habit 7). Defaults read `globalThis` at call time, never
// Node APIs: the core runs in browsers and in Node alike.

export type TimerHandle = unknown

export type Timers = {
  setTimeout(callback: () => void, delayMs: number): TimerHandle
  clearTimeout(handle: TimerHandle): void
  setInterval(callback: () => void, intervalMs: number): TimerHandle
  clearInterval(handle: TimerHandle): void
}

export type Clock = { now(): number }

export type Logger = {
  debug(message: string, details?: unknown): void
  warn(message: string, details?: unknown): void
  error(message: string, details?: unknown): void
}

/** `globalThis` timers, looked up on every call so `vi.useFakeTimers()` applies after creation. */
export const globalTimers: Timers = {
  setTimeout: (callback, delayMs) => globalThis.setTimeout(callback, delayMs),
  clearTimeout: (handle) => globalThis.clearTimeout(handle as number),
  setInterval: (callback, intervalMs) => globalThis.setInterval(callback, intervalMs),
  clearInterval: (handle) => globalThis.clearInterval(handle as number),
}

export const systemClock: Clock = { now: () => Date.now() }

export const silentLogger: Logger = { debug() {}, warn() {}, error() {} }

/** Warnings and errors to the console; debug messages are dropped. */
export const consoleLogger: Logger = {
  debug() {},
  warn: (message, details) => globalThis.console.warn(message, details),
  error: (message, details) => globalThis.console.error(message, details),
}

/** A unique id per call (order event ids). */
export type CreateId = () => string

export const randomUuid: CreateId = () => globalThis.crypto.randomUUID()

/** A number in [0, 1) (backoff jitter). */
export type Random = () => number
